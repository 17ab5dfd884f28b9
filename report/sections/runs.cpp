// Runs and devices, for the reader who checks where the numbers came from: a table of the runs
// (folded past 40) and one card per GPU (by uuid) with its facts and limits.
#include "sections/sections.hpp"

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

std::string number_fact(const json& device, const char* key, const char* format_text) {
  return has_number(device, key)
             ? fmt::format(fmt::runtime(format_text), device.at(key).get<double>())
             : "—";
}

std::string pcie_link(const json& device) {
  const auto link = [&](const char* generation, const char* width) -> std::string {
    if (!has_number(device, generation) || !has_number(device, width))
      return "";
    return fmt::format("Gen {} x{}", device.at(generation).get<int>(), device.at(width).get<int>());
  };
  const std::string maximum = link("pcie_generation", "pcie_width");
  const std::string current = link("pcie_current_generation", "pcie_current_width");
  if (maximum.empty())
    return current.empty() ? "—" : current;
  // A link trained below its maximum caps every transfer; say so next to the limit.
  if (!current.empty() && current != maximum)
    return maximum + " (running at " + current + ")";
  return maximum;
}

mustache::data device_card(const json& device, const std::vector<std::string>& run_names) {
  mustache::data facts{mustache::data::type::list};
  auto fact = [&](const std::string& label, const std::string& value) {
    mustache::data item;
    item.set("label", label);
    item.set("value", value);
    facts.push_back(item);
  };
  const auto bytes = [&](const char* key) {
    return has_number(device, key) ? format_bytes(device.at(key).get<double>()) : "—";
  };
  const json& ecc = member(device, "ecc_enabled");
  fact("theoretical DRAM bandwidth",
       number_fact(device, "theoretical_bandwidth_gbs", "{:.1f} GB/s"));
  fact("theoretical PCIe bandwidth",
       has_number(device, "theoretical_pcie_gbs")
           ? number_fact(device, "theoretical_pcie_gbs", "{:.1f} GB/s per direction")
           : "unknown");
  fact("compute capability", string_at(device, "compute_capability", "—"));
  fact("multiprocessors", number_fact(device, "sm_count", "{:.0f} SMs"));
  fact("memory", bytes("total_memory_bytes"));
  fact("memory clock",
       has_number(device, "memory_clock_khz")
           ? fmt::format("{:.0f} MHz", device.at("memory_clock_khz").get<double>() / 1000)
           : "—");
  fact("memory bus", number_fact(device, "memory_bus_width_bits", "{:.0f} bits"));
  fact("L2 cache", bytes("l2_bytes"));
  fact("ECC", ecc.is_boolean() ? (ecc.get<bool>() ? "on" : "off") : "—");
  fact("copy engines", number_fact(device, "copy_engines", "{:.0f}"));
  fact("SM clock", has_number(device, "sm_clock_khz")
                       ? fmt::format("{:.0f} MHz", device.at("sm_clock_khz").get<double>() / 1000)
                       : "—");
  fact("PCIe link", pcie_link(device));
  fact("PCI bus id", string_at(device, "pci_bus_id", "—"));
  fact("driver supports", "CUDA " + format_cuda_version(member(device, "driver_version")));
  fact("runtime", "CUDA " + format_cuda_version(member(device, "runtime_version")));
  fact("uuid", string_at(device, "uuid", "—"));
  std::string runs;
  for (std::size_t i = 0; i < run_names.size() && i < 8; ++i)
    runs += (i ? ", " : "") + run_names[i];
  if (run_names.size() > 8)
    runs += fmt::format(" and {} more", run_names.size() - 8);
  fact(run_names.size() == 1 ? "run" : "runs", runs);

  mustache::data card;
  card.set("name", string_at(device, "name", "unknown device"));
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
