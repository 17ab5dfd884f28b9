// Runs and devices, for the reader who checks where the numbers came from: a table of the runs
// (folded past 40) and one card per GPU (by uuid) with its facts and limits.
#include "sections/runs.hpp"

#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

namespace {

// Past this many runs the runs table starts folded.
constexpr std::size_t open_rows = 40;

std::string status_class(const std::string& status) {
  if (status == "complete")
    return "status-ok";
  if (status == "failed")
    return "status-bad";
  return "status-warn"; // running, partial, interrupted, or something newer
}

TableData runs_table(const PageModel& page) {
  TableData table({{"run", ""},
                   {"id", ""},
                   {"status", ""},
                   {"started", ""},
                   {"finished", ""},
                   {"device", ""},
                   {"apod", ""}},
                  "runs");
  for (const auto& view : page.runs) {
    const RunRecord& run = *view.run;
    table.add_row({{view.name},
                   {view.id, "mono"},
                   {run.status, status_class(run.status)},
                   {format_timestamp(json(run.started_at)), "time"},
                   {format_timestamp(run.finished_at ? json(*run.finished_at) : json()), "time"},
                   {view.device_model},
                   {run.apod_version}});
  }
  return table;
}

// A fact the device's record gives as 0 or "" is unknown: shown as a dash.
std::string known(double value, const char* format_text) {
  return value > 0 ? fmt::format(fmt::runtime(format_text), value) : "—";
}

std::string known_bytes(int64_t bytes) {
  return bytes > 0 ? format_bytes(static_cast<double>(bytes)) : "—";
}

std::string known_text(const std::string& text) {
  return text.empty() ? "—" : text;
}

std::string cuda_version(int version) {
  return "CUDA " + format_cuda_version(version > 0 ? json(version) : json(nullptr));
}

std::string pcie_link(const DeviceInfo& device) {
  const auto link = [](int generation, int width) -> std::string {
    if (generation <= 0 || width <= 0)
      return "";
    return fmt::format("Gen {} x{}", generation, width);
  };
  const std::string maximum = link(device.pcie_generation, device.pcie_width);
  const std::string current = link(device.pcie_current_generation, device.pcie_current_width);
  if (maximum.empty())
    return current.empty() ? "—" : current;
  // A link trained below its maximum caps every transfer; say so next to the limit.
  if (!current.empty() && current != maximum)
    return maximum + " (running at " + current + ")";
  return maximum;
}

mustache::data device_card(const DeviceInfo& device, const std::vector<std::string>& run_names) {
  mustache::data facts{mustache::data::type::list};
  auto fact = [&](const std::string& label, const std::string& value) {
    mustache::data item;
    item.set("label", label);
    item.set("value", value);
    facts.push_back(item);
  };
  const std::optional<double> pcie = device.theoretical_pcie_gbs();
  fact("theoretical DRAM bandwidth", known(device.theoretical_bandwidth_gbs(), "{:.1f} GB/s"));
  fact("theoretical PCIe bandwidth",
       pcie ? fmt::format("{:.1f} GB/s per direction", *pcie) : "unknown");
  fact("compute capability",
       device.cc_major > 0 ? fmt::format("{}.{}", device.cc_major, device.cc_minor) : "—");
  fact("multiprocessors", known(device.sm_count, "{:.0f} SMs"));
  fact("memory", known_bytes(device.total_memory_bytes));
  fact("memory clock", known(device.memory_clock_khz / 1000, "{:.0f} MHz"));
  fact("memory bus", known(device.memory_bus_width_bits, "{:.0f} bits"));
  fact("L2 cache", known_bytes(device.l2_bytes));
  fact("ECC", device.ecc_enabled ? "on" : "off");
  fact("copy engines", known(device.copy_engines, "{:.0f}"));
  fact("SM clock", known(device.sm_clock_khz / 1000, "{:.0f} MHz"));
  fact("PCIe link", pcie_link(device));
  fact("PCI bus id", known_text(device.pci_bus_id));
  fact("driver supports", cuda_version(device.driver_version));
  fact("runtime", cuda_version(device.runtime_version));
  fact("uuid", known_text(device.uuid));
  std::string runs;
  for (std::size_t i = 0; i < run_names.size() && i < 8; ++i)
    runs += (i ? ", " : "") + run_names[i];
  if (run_names.size() > 8)
    runs += fmt::format(" and {} more", run_names.size() - 8);
  fact(run_names.size() == 1 ? "run" : "runs", runs);

  mustache::data card;
  card.set("name", device.name.empty() ? "unknown device" : device.name);
  card.set("facts", facts);
  return card;
}

struct DeviceGroup {
  const RunView* first_run; ///< its device facts are shown
  std::vector<std::string> run_names;
};

// Runs on one GPU (same uuid) share a card, however many runs there are.
std::vector<DeviceGroup> devices_of(const PageModel& page) {
  std::vector<DeviceGroup> devices;
  for (const auto& run : page.runs) {
    auto it = std::find_if(devices.begin(), devices.end(), [&](const DeviceGroup& d) {
      return d.first_run->device_key == run.device_key;
    });
    if (it == devices.end())
      it = devices.insert(devices.end(), DeviceGroup{&run, {}});
    it->run_names.push_back(run.name);
  }
  return devices;
}

mustache::data device_cards(const std::vector<DeviceGroup>& devices) {
  mustache::data cards{mustache::data::type::list};
  for (const auto& device : devices)
    cards.push_back(device_card(device.first_run->run->device, device.run_names));
  return cards;
}

} // namespace

mustache::data runs_section(const PageContext& context) {
  const PageModel& page = context.page;
  if (page.runs.empty())
    return false;
  TableData runs = runs_table(page);
  mustache::data table = runs.sortable().data();
  table.set("open", runs.row_count() <= open_rows);
  table.set("summary", fmt::format("{} run{}", runs.row_count(), runs.row_count() == 1 ? "" : "s"));
  mustache::data section;
  section.set("runs_table", table);
  section.set("devices", device_cards(devices_of(page)));
  return section;
}

} // namespace apod::report
