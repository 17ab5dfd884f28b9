#include "core/device.hpp"

#include "core/errors.hpp"
#include "core/theory.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace apod {

namespace {
// Where pcie_max_payload_bytes came from, as stored.
constexpr const char* payload_read = "config space";
constexpr const char* payload_assumed = "assumed: config space unreadable (needs root)";
} // namespace

DeviceInfo nominal_device() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3 (nominal: no GPU visible)";
  d.cc_major = 9;
  d.sm_count = 132;
  d.memory_clock_khz = 2619000;
  d.memory_bus_width_bits = 5120;
  d.sm_clock_khz = 1980000;
  d.l2_bytes = int64_t(50) << 20;
  d.shared_bytes_per_sm = 233472;
  d.total_memory_bytes = 85045870592;
  d.copy_engines = 3;
  d.pcie_generation = d.pcie_current_generation = 5;
  d.pcie_width = d.pcie_current_width = 16;
  d.pcie_max_payload_bytes = pcie_assumed_max_payload_bytes;
  d.pcie_max_payload_assumed = true;
  return d;
}

namespace {
// 12040 -> "12.4", as nvidia-smi prints the CUDA version a driver supports.
std::string cuda_version_text(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}
} // namespace

std::string no_device_reason(const NoDeviceCause& cause) {
  using Kind = NoDeviceCause::Kind;
  switch (cause.kind) {
  case Kind::no_driver:
    return "no NVIDIA driver is loaded on this machine (libcuda.so.1 not found)";
  case Kind::old_driver:
    return cause.driver_cuda_version > 0
               ? fmt::format("the NVIDIA driver supports CUDA {}, older than the CUDA {} runtime "
                             "apod was built with: update the driver",
                             cuda_version_text(cause.driver_cuda_version),
                             cuda_version_text(cause.runtime_cuda_version))
               : fmt::format("the NVIDIA driver is older than the CUDA {} runtime apod was built "
                             "with: update the driver",
                             cuda_version_text(cause.runtime_cuda_version));
  case Kind::no_gpu:
    return cause.visible_devices
               ? fmt::format("no CUDA-capable GPU is visible (CUDA_VISIBLE_DEVICES is '{}')",
                             *cause.visible_devices)
               : "no CUDA-capable GPU is visible (the NVIDIA driver is loaded but lists none)";
  case Kind::other:
    break;
  }
  return "no CUDA-capable GPU can be used (" +
         (cause.runtime_error.empty() ? std::string("the CUDA runtime did not say why")
                                      : cause.runtime_error) +
         ")";
}

double DeviceInfo::theoretical_bandwidth_gbs() const {
  if (recorded_bandwidth_gbs)
    return *recorded_bandwidth_gbs;
  if (memory_clock_khz <= 0 || memory_bus_width_bits <= 0)
    return 0;
  return apod::theoretical_bandwidth_gbs(memory_clock_khz, memory_bus_width_bits);
}

std::optional<double> DeviceInfo::theoretical_pcie_gbs() const {
  if (recorded_pcie_gbs)
    return recorded_pcie_gbs;
  return pcie_bandwidth_gbs(pcie_generation, pcie_width);
}

std::optional<double> DeviceInfo::attainable_pcie_gbs(PcieDirection direction) const {
  return pcie_attainable_gbs(pcie_generation, pcie_width, pcie_max_payload_bytes, direction);
}

std::optional<int> pcie_max_payload_from_config(const std::vector<uint8_t>& config) {
  constexpr size_t status = 0x06, capabilities_pointer = 0x34, first_capability = 0x40;
  constexpr uint8_t capability_list_bit = 0x10, pci_express_id = 0x10;
  if (config.size() <= capabilities_pointer || !(config[status] & capability_list_bit))
    return std::nullopt;
  size_t at = config[capabilities_pointer] & 0xFC;
  // A well-formed list has at most 48 entries in the 256-byte space; a longer walk is a loop.
  for (int hops = 0; hops < 48 && at >= first_capability && at + 1 < config.size(); ++hops) {
    if (config[at] == pci_express_id) {
      if (at + 9 >= config.size())
        return std::nullopt;
      const unsigned device_control = config[at + 8] | (config[at + 9] << 8);
      const unsigned encoded = (device_control >> 5) & 0x7;
      if (encoded > 5)
        return std::nullopt; // 110b and 111b are reserved
      return 128 << encoded;
    }
    at = config[at + 1] & 0xFC;
  }
  return std::nullopt;
}

int pcie_generation_from_speed(const std::string& speed) {
  const double gt = std::atof(speed.c_str());
  if (gt >= 63)
    return 6;
  if (gt >= 31)
    return 5;
  if (gt >= 15)
    return 4;
  if (gt >= 7.9)
    return 3;
  if (gt >= 4.9)
    return 2;
  if (gt >= 2.4)
    return 1;
  return 0;
}

namespace {

json device_fields(const DeviceInfo& d) {
  json j = {
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
      {"pcie_max_payload_bytes", nullptr},
      {"pcie_max_payload_source", nullptr},
      {"theoretical_bandwidth_gbs", nullptr},
      {"theoretical_pcie_gbs", or_null(d.theoretical_pcie_gbs())},
      {"attainable_pcie_h2d_gbs", or_null(d.attainable_pcie_gbs(PcieDirection::host_to_device))},
      {"attainable_pcie_d2h_gbs", or_null(d.attainable_pcie_gbs(PcieDirection::device_to_host))},
  };
  if (d.shared_bytes_per_sm > 0) // devices stored before it was read have none
    j["shared_bytes_per_sm"] = d.shared_bytes_per_sm;
  if (d.pcie_max_payload_bytes > 0) {
    j["pcie_max_payload_bytes"] = d.pcie_max_payload_bytes;
    j["pcie_max_payload_source"] = d.pcie_max_payload_assumed ? payload_assumed : payload_read;
  }
  if (const double dram = d.theoretical_bandwidth_gbs(); dram > 0)
    j["theoretical_bandwidth_gbs"] = dram;
  return j;
}

} // namespace

json to_json(const DeviceInfo& d) {
  return written_over_stored(d, device_fields, [](const json& j) { return device_from_json(j); });
}

DeviceInfo device_from_json(const json& j, const std::string& where) {
  if (!field<std::string>(j, "name"))
    refuse_results(where, "missing \"name\"");
  if (j.contains("uuid") && !j["uuid"].is_string())
    refuse_results(where + ".uuid", "expected a string");
  DeviceInfo d;
  d.ordinal = field<int>(j, "ordinal").value_or(0);
  d.name = *field<std::string>(j, "name");
  d.uuid = field<std::string>(j, "uuid").value_or("");
  const std::string cc = field<std::string>(j, "compute_capability").value_or("0.0");
  const auto dot = cc.find('.');
  d.cc_major = std::atoi(cc.substr(0, dot).c_str());
  d.cc_minor = dot == std::string::npos ? 0 : std::atoi(cc.substr(dot + 1).c_str());
  d.sm_count = field<int>(j, "sm_count").value_or(0);
  d.memory_clock_khz = field<double>(j, "memory_clock_khz").value_or(0);
  d.memory_bus_width_bits = field<int>(j, "memory_bus_width_bits").value_or(0);
  d.sm_clock_khz = field<double>(j, "sm_clock_khz").value_or(0);
  d.l2_bytes = field<int64_t>(j, "l2_bytes").value_or(0);
  d.shared_bytes_per_sm = field<int64_t>(j, "shared_bytes_per_sm").value_or(0);
  d.total_memory_bytes = field<int64_t>(j, "total_memory_bytes").value_or(0);
  d.ecc_enabled = field<bool>(j, "ecc_enabled").value_or(false);
  d.copy_engines = field<int>(j, "copy_engines").value_or(0);
  d.driver_version = field<int>(j, "driver_version").value_or(0);
  d.runtime_version = field<int>(j, "runtime_version").value_or(0);
  d.pci_bus_id = field<std::string>(j, "pci_bus_id").value_or("");
  d.pcie_generation = field<int>(j, "pcie_generation").value_or(0);
  d.pcie_width = field<int>(j, "pcie_width").value_or(0);
  d.pcie_current_generation = field<int>(j, "pcie_current_generation").value_or(0);
  d.pcie_current_width = field<int>(j, "pcie_current_width").value_or(0);
  d.pcie_max_payload_bytes = field<int>(j, "pcie_max_payload_bytes").value_or(0);
  d.pcie_max_payload_assumed = field<std::string>(j, "pcie_max_payload_source") == payload_assumed;
  d.recorded_bandwidth_gbs = field<double>(j, "theoretical_bandwidth_gbs");
  d.recorded_pcie_gbs = field<double>(j, "theoretical_pcie_gbs");
  d.stored = j;
  return d;
}

} // namespace apod
