// What apod knows about a GPU: the facts it reads from the driver and the limits derived from them.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace apod {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string uuid;              ///< "GPU-xxxxxxxx-..." as nvidia-smi prints it
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double memory_clock_khz = 0;   ///< cudaDevAttrMemoryClockRate (peak memory clock)
  int memory_bus_width_bits = 0; ///< cudaDevAttrGlobalMemoryBusWidth
  double sm_clock_khz = 0;       ///< cudaDevAttrClockRate (peak SM clock)
  int64_t l2_bytes = 0;
  int64_t total_memory_bytes = 0;
  bool ecc_enabled = false;
  int copy_engines = 0;          ///< cudaDevAttrAsyncEngineCount
  int driver_version = 0;        ///< cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;       ///< cudaRuntimeGetVersion
  std::string pci_bus_id;        ///< "0000:xx:00.0"
  int pcie_generation = 0;       ///< from sysfs max_link_speed; 0 if unknown
  int pcie_width = 0;            ///< from sysfs max_link_width; 0 if unknown
  int pcie_current_generation = 0;
  int pcie_current_width = 0;

  double theoretical_bandwidth_gbs() const;
  std::optional<double> theoretical_pcie_gbs() const;
};

nlohmann::ordered_json to_json(const DeviceInfo& d);
DeviceInfo device_from_json(const nlohmann::ordered_json& j);

/// Reads the device's facts through the CUDA runtime (device_query.cu). Throws apod::NoDevice
/// when no CUDA-capable device is present and std::runtime_error for a bad ordinal.
DeviceInfo query_device(int ordinal);

/// Number of CUDA devices visible, 0 when there is none or no driver.
int device_count();

/// Clears a failed experiment's state so the next one starts on a clean context, then checks
/// that the device works again (allocate, launch, copy back). False when a sticky error survived
/// the reset and only a new process can use the GPU (device_query.cu).
bool reset_device_after_failure(int ordinal);

/// PCIe link generation from a sysfs speed string such as "32.0 GT/s PCIe"; 0 if unknown.
int pcie_generation_from_speed(const std::string& speed);

}  // namespace apod
