// What apod knows about a GPU: the facts it reads from the driver and the limits derived from them.
#pragma once

#include "core/errors.hpp"
#include "core/stored_object.hpp"
#include "core/theory.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace apod {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  std::string uuid; ///< "GPU-xxxxxxxx-..." as nvidia-smi prints it
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double memory_clock_khz = 0;   ///< cudaDevAttrMemoryClockRate (peak memory clock)
  int memory_bus_width_bits = 0; ///< cudaDevAttrGlobalMemoryBusWidth
  double sm_clock_khz = 0;       ///< cudaDevAttrClockRate (peak SM clock)
  int64_t l2_bytes = 0;
  int64_t shared_bytes_per_sm = 0; ///< cudaDevAttrMaxSharedMemoryPerMultiprocessor; 0 if unknown
  int64_t total_memory_bytes = 0;
  bool ecc_enabled = false;
  int copy_engines = 0;    ///< cudaDevAttrAsyncEngineCount
  int driver_version = 0;  ///< cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0; ///< cudaRuntimeGetVersion
  std::string pci_bus_id;  ///< "0000:xx:00.0"
  int pcie_generation = 0; ///< from sysfs max_link_speed; 0 if unknown
  int pcie_width = 0;      ///< from sysfs max_link_width; 0 if unknown
  int pcie_current_generation = 0;
  int pcie_current_width = 0;
  /// The link's Max_Payload_Size in bytes (Device Control, from PCI config space); 0 if unknown.
  int pcie_max_payload_bytes = 0;
  /// True when config space could not be read (it needs root) and the payload is the common
  /// server value, pcie_assumed_max_payload_bytes.
  bool pcie_max_payload_assumed = false;

  /// The limits stated by the record the device was read from (device_from_json): the figures
  /// the apod that measured the run computed, printed in its summary and exported. The
  /// theoretical_* functions give them back rather than recompute them, so that a stored run's
  /// percentages stay those it was measured with and a document that states a limit without the
  /// facts behind it (a fixture, a hand-made file) keeps it. Nothing for a device queried now.
  std::optional<double> recorded_bandwidth_gbs, recorded_pcie_gbs;
  StoredObject stored; ///< the object it was read from, written back (core/stored_object.hpp)

  /// The DRAM limit: the recorded figure, else memory clock x bus width (theory.hpp); 0 when
  /// neither is known.
  double theoretical_bandwidth_gbs() const;
  /// The PCIe line rate per direction: the recorded figure, else from the link's generation and
  /// width (theory.hpp, pcie_bandwidth_gbs); nothing when unknown.
  std::optional<double> theoretical_pcie_gbs() const;
  /// The protocol limit per direction at the link's payload size (theory.hpp, pcie_attainable_gbs).
  std::optional<double> attainable_pcie_gbs(PcieDirection direction) const;
};

/// The facts `apod list --json` plans the matrix for when no GPU is visible: an NVIDIA H100
/// 80GB HBM3 (SXM5) as the CUDA runtime reports it (132 SMs, 50 MiB L2, 2619 MHz memory clock
/// on a 5120-bit bus, PCIe 5.0 x16). Nothing is measured on it; it only sizes the points.
DeviceInfo nominal_device();

/// The Max_Payload_Size assumed when config space is unreadable: what servers commonly program.
inline constexpr int pcie_assumed_max_payload_bytes = 256;

/// The device's wire form (docs/results-format.md, `device`): its facts and the limits derived
/// from them; a device read from a document is written back as it was read, fields changed since
/// excepted (core/stored_object.hpp).
json to_json(const DeviceInfo& d);
/// Reads a device's wire form. A fact absent or of another type reads as unknown (0, ""); only a
/// missing name, or a uuid that is not text, is refused: InputError naming `where`.
DeviceInfo device_from_json(const json& j, const std::string& where = "device");

/// Reads the device's facts through the CUDA runtime (device_query.cu). Throws apod::NoDevice
/// when no CUDA-capable device is present and std::runtime_error for a bad ordinal.
DeviceInfo query_device(int ordinal);

/// Number of CUDA devices visible, 0 when there is none or no driver.
int device_count();

/// Why the CUDA runtime offers no device, as it answered (no_device_cause).
struct NoDeviceCause {
  enum class Kind {
    no_driver,  ///< libcuda.so.1 could not be loaded: no NVIDIA driver on this machine
    old_driver, ///< the driver is older than the CUDA runtime apod was built with
    no_gpu,     ///< the driver is loaded and lists no GPU (or CUDA_VISIBLE_DEVICES hides them)
    other,      ///< another failure, in the runtime's own words
  };
  Kind kind = Kind::other;
  int driver_cuda_version = 0;  ///< cudaDriverGetVersion: 12040 is CUDA 12.4; 0 where unknown
  int runtime_cuda_version = 0; ///< the CUDA runtime apod was built with (CUDART_VERSION)
  std::optional<std::string> visible_devices; ///< CUDA_VISIBLE_DEVICES where it is set
  std::string runtime_error;                  ///< cudaGetErrorString's words
};

/// Asks the CUDA runtime why it lists no device (device_query.cu): cudaGetDeviceCount's error
/// (cudaErrorInsufficientDriver: no libcuda.so.1 in the process, or a driver too old;
/// cudaErrorNoDevice: none listed) and the driver's and runtime's CUDA versions.
NoDeviceCause no_device_cause();

/// The cause as one plain clause, the one wording of "no GPU" for every command: "no NVIDIA
/// driver is loaded on this machine (libcuda.so.1 not found)", "no CUDA-capable GPU is visible
/// (CUDA_VISIBLE_DEVICES is '')", "the NVIDIA driver supports CUDA 12.4, older than the CUDA
/// 13.0 runtime apod was built with: update the driver", ... (device.cpp).
std::string no_device_reason(const NoDeviceCause& cause);

/// The NoDevice error (exit 3) a command throws when no GPU is usable: the reason, then
/// "COMMAND needs a GPU" ("apod device needs a GPU"); the reason alone where `command` is "".
NoDevice no_device_error(const std::string& command);

/// Clears a failed experiment's state so the next one starts on a clean context, then checks
/// that the device works again (allocate, launch, copy back). False when a sticky error survived
/// the reset and only a new process can use the GPU (device_query.cu).
bool reset_device_after_failure(int ordinal);

/// PCIe link generation from a sysfs speed string such as "32.0 GT/s PCIe"; 0 if unknown.
int pcie_generation_from_speed(const std::string& speed);

/// The Max_Payload_Size in bytes programmed in a PCIe function's Device Control register, from the
/// bytes of its configuration space (/sys/bus/pci/devices/BDF/config): the PCI Express capability
/// (ID 0x10) is found through the capability list that starts at offset 0x34, Device Control is
/// at +8 and its bits 7:5 hold log2(MPS / 128) (PCIe Base Specification 5.0, 7.5.3.4). Nothing
/// when the list cannot be followed (without root, sysfs gives only the first 64 bytes).
std::optional<int> pcie_max_payload_from_config(const std::vector<uint8_t>& config);

} // namespace apod
