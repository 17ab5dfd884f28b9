#include "link.hpp"

#include <cstdio>

namespace apod::p2p {

int nvlink_generation(int cc_major, int cc_minor) {
  // Pascal GP100 (P100 SXM2) introduced NVLink (Pascal Tuning Guide 1.4.4); Turing (7.5) and the
  // consumer Ampere, Ada parts have at most a two-GPU bridge or none, left unknown here.
  if (cc_major == 6 && cc_minor == 0)
    return 1;
  if (cc_major == 7 && (cc_minor == 0 || cc_minor == 2))
    return 2;
  if (cc_major == 8 && cc_minor == 0)
    return 3;
  if (cc_major == 9 && cc_minor == 0)
    return 4;
  if (cc_major == 10)
    return 5;
  return 0;
}

std::optional<double> nvlink_gbs_per_link(int generation) {
  // Per link and direction: NVLink 1.0 20 GB/s (P100: 4 links, 160 GB/s both ways); 2.0, 3.0 and
  // 4.0 25 GB/s (V100 6 links 300 GB/s, A100 12 links 600 GB/s, H100 18 links 900 GB/s, each
  // total both ways); 5.0 50 GB/s (B200 18 links 1.8 TB/s). NVIDIA's NVLink page and the
  // Hopper Tuning Guide (1.4.x, NVLink); notes23/E.md lists the sources.
  switch (generation) {
  case 1:
    return 20.0;
  case 2:
  case 3:
  case 4:
    return 25.0;
  case 5:
    return 50.0;
  default:
    return std::nullopt;
  }
}

namespace {
struct PciAddress {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
};

std::optional<PciAddress> parse_pci(const std::string& id) {
  PciAddress a;
  char tail = 0;
  if (std::sscanf(id.c_str(), "%x:%x:%x.%x%c", &a.domain, &a.bus, &a.device, &a.function, &tail) !=
      4)
    return std::nullopt;
  return a;
}
} // namespace

bool same_pci_device(const std::string& a, const std::string& b) {
  const auto x = parse_pci(a), y = parse_pci(b);
  return x && y && x->domain == y->domain && x->bus == y->bus && x->device == y->device &&
         x->function == y->function;
}

LinkFacts link_facts(const std::vector<NvLink>& links, const std::string& peer_bus_id,
                     const std::vector<std::string>& gpu_bus_ids, int cc_major, int cc_minor,
                     bool native_atomics, std::optional<double> pcie_gbs) {
  LinkFacts f;
  for (const NvLink& l : links) {
    if (!l.active)
      continue;
    const auto far_end = parse_pci(l.remote_pci_bus_id);
    if (!far_end || far_end->domain == 0xFFFFFFFFu) {
      ++f.nvlinks_far_end_hidden;
      continue;
    }
    if (same_pci_device(l.remote_pci_bus_id, peer_bus_id)) {
      ++f.nvlinks_to_peer;
      continue;
    }
    bool to_gpu = false;
    for (const std::string& gpu : gpu_bus_ids)
      to_gpu = to_gpu || same_pci_device(l.remote_pci_bus_id, gpu);
    if (!to_gpu)
      ++f.nvlinks_to_switch;
  }
  const int generation = nvlink_generation(cc_major, cc_minor);
  const auto per_link = nvlink_gbs_per_link(generation);
  const auto nvlink_rate = [&](int count, const char* words) {
    f.generation = generation;
    if (per_link && count > 0) {
      f.limit_gbs = count * *per_link;
      f.limit_label = std::to_string(count) + " NVLink " + std::to_string(generation) +
                      ".0 links x " + std::to_string(int(*per_link)) + " GB/s per direction" +
                      words;
    }
  };
  if (f.nvlinks_to_peer > 0) {
    f.kind = "nvlink";
    nvlink_rate(f.nvlinks_to_peer, "");
  } else if (f.nvlinks_to_switch > 0 && native_atomics) {
    f.kind = "nvlink_switch";
    nvlink_rate(f.nvlinks_to_switch, " (through NVSwitch)");
  } else if (f.nvlinks_far_end_hidden > 0 && native_atomics) {
    f.kind = "nvlink";
    nvlink_rate(f.nvlinks_far_end_hidden, " (far ends hidden: every active link counted)");
  } else if (native_atomics) {
    f.kind = "nvlink";
    f.generation = generation;
  } else {
    f.kind = "pcie";
    if (pcie_gbs) {
      f.limit_gbs = *pcie_gbs;
      f.limit_label = "this GPU's PCIe line rate per direction";
    }
  }
  return f;
}

std::optional<double> point_limit_gbs(const LinkFacts& link, bool both_ways) {
  if (!link.limit_gbs)
    return std::nullopt;
  return (both_ways ? 2 : 1) * *link.limit_gbs;
}

} // namespace apod::p2p
