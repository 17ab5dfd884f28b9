#include "core/device.hpp"

#include "core/theory.hpp"

#include <cstdlib>

namespace apod {

double DeviceInfo::theoretical_bandwidth_gbs() const {
  return apod::theoretical_bandwidth_gbs(memory_clock_khz, memory_bus_width_bits);
}

std::optional<double> DeviceInfo::theoretical_pcie_gbs() const {
  return pcie_bandwidth_gbs(pcie_generation, pcie_width);
}

int pcie_generation_from_speed(const std::string& speed) {
  const double gt = std::atof(speed.c_str());
  if (gt >= 63) return 6;
  if (gt >= 31) return 5;
  if (gt >= 15) return 4;
  if (gt >= 7.9) return 3;
  if (gt >= 4.9) return 2;
  if (gt >= 2.4) return 1;
  return 0;
}

nlohmann::ordered_json to_json(const DeviceInfo& d) {
  nlohmann::ordered_json j = {
      {"ordinal", d.ordinal},
      {"name", d.name},
      {"uuid", d.uuid},
      {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
      {"sm_count", d.sm_count},
      {"memory_clock_khz", d.memory_clock_khz},
      {"memory_bus_width_bits", d.memory_bus_width_bits},
      {"sm_clock_khz", d.sm_clock_khz},
      {"l2_bytes", d.l2_bytes},
      {"total_memory_bytes", d.total_memory_bytes},
      {"ecc_enabled", d.ecc_enabled},
      {"copy_engines", d.copy_engines},
      {"driver_version", d.driver_version},
      {"runtime_version", d.runtime_version},
      {"pci_bus_id", d.pci_bus_id},
      {"pcie_generation", d.pcie_generation},
      {"pcie_width", d.pcie_width},
      {"pcie_current_generation", d.pcie_current_generation},
      {"pcie_current_width", d.pcie_current_width},
      {"theoretical_bandwidth_gbs", nullptr},
      {"theoretical_pcie_gbs", nullptr},
  };
  if (d.memory_clock_khz > 0 && d.memory_bus_width_bits > 0)
    j["theoretical_bandwidth_gbs"] = d.theoretical_bandwidth_gbs();
  if (auto pcie = d.theoretical_pcie_gbs()) j["theoretical_pcie_gbs"] = *pcie;
  return j;
}

DeviceInfo device_from_json(const nlohmann::ordered_json& j) {
  DeviceInfo d;
  d.ordinal = j.value("ordinal", 0);
  d.name = j.at("name").get<std::string>();
  d.uuid = j.value("uuid", "");
  const std::string cc = j.value("compute_capability", "0.0");
  const auto dot = cc.find('.');
  d.cc_major = std::atoi(cc.substr(0, dot).c_str());
  d.cc_minor = dot == std::string::npos ? 0 : std::atoi(cc.substr(dot + 1).c_str());
  d.sm_count = j.value("sm_count", 0);
  d.memory_clock_khz = j.value("memory_clock_khz", 0.0);
  d.memory_bus_width_bits = j.value("memory_bus_width_bits", 0);
  d.sm_clock_khz = j.value("sm_clock_khz", 0.0);
  d.l2_bytes = j.value("l2_bytes", int64_t{0});
  d.total_memory_bytes = j.value("total_memory_bytes", int64_t{0});
  d.ecc_enabled = j.value("ecc_enabled", false);
  d.copy_engines = j.value("copy_engines", 0);
  d.driver_version = j.value("driver_version", 0);
  d.runtime_version = j.value("runtime_version", 0);
  d.pci_bus_id = j.value("pci_bus_id", "");
  d.pcie_generation = j.value("pcie_generation", 0);
  d.pcie_width = j.value("pcie_width", 0);
  d.pcie_current_generation = j.value("pcie_current_generation", 0);
  d.pcie_current_width = j.value("pcie_current_width", 0);
  return d;
}

}  // namespace apod
