// NVML, loaded at run time (dlopen of libnvidia-ml.so.1, which ships with the driver), so apod
// builds without NVML headers and runs where NVML is missing. Used for the provenance of a run,
// for the per-sample clock and throttle check (clock_monitor.hpp), and for telemetry sampled
// during a run. Only current entry points are asked (CUDA 13 deprecated the throttle-reason,
// temperature and application-clock calls); a driver too old for one falls back to its old
// name, and device_state() records which names answered.
#pragma once

#include "core/environment.hpp"
#include "core/telemetry.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace apod {

struct NvmlApi; // the resolved entry points (nvml.cpp)

/// An NVML query's value, or the NVML return code saying why there is none.
template <class T> struct NvmlAnswer {
  std::optional<T> value;
  int code = 0; ///< NVML_SUCCESS (0) with a value; else e.g. 3 not supported, 15 GPU lost
  explicit operator bool() const { return value.has_value(); }
  const T& operator*() const { return *value; }
};

/// What the clock monitor asks of the driver; Nvml answers it, tests fake it.
class ClockSource {
public:
  virtual ~ClockSource() = default;
  virtual NvmlAnswer<unsigned> sm_clock_mhz() = 0;
  virtual NvmlAnswer<unsigned> max_sm_clock_mhz() = 0;
  /// Active clocks-event (throttle) reasons, less the harmless ones (GPU idle, application clocks).
  virtual NvmlAnswer<unsigned long long> clocks_event_reasons() = 0;
};

class Nvml : public ClockSource {
public:
  /// Loads NVML and opens the device with this PCI bus id; `available()` says whether it worked.
  explicit Nvml(const std::string& pci_bus_id);
  ~Nvml() override;
  bool available() const { return device_ != nullptr; }
  const std::string& why_unavailable() const { return why_; }

  /// Settings and limits of the device: driver version, persistence, compute and MIG mode,
  /// power limit, maximum and application clocks, PCIe link, NVLinks (state, version, far end)
  /// and ECC error counts (null members where unreadable, absent entry points leave them
  /// empty), and the entry points used for the per-sample checks.
  GpuState device_state();
  /// One telemetry reading: SM and memory clocks (MHz), temperature (C), power (W), the energy
  /// counter (J), clocks-event reason bits.
  TelemetryReading reading();
  NvmlAnswer<unsigned> sm_clock_mhz() override;
  NvmlAnswer<unsigned> max_sm_clock_mhz() override;
  NvmlAnswer<unsigned long long> clocks_event_reasons() override;
  /// The GPU's energy counter in joules (monotonic since the driver loaded); Volta and later.
  std::optional<double> total_energy_j();

private:
  std::unique_ptr<NvmlApi> api_;
  void* device_ = nullptr;
  std::string why_;
};

/// Samples Nvml::reading() every `period_ms` on a background thread while it lives. Each reading
/// carries t_s on the run clock and the experiment and point in flight (core/in_flight.hpp).
class TelemetrySampler {
public:
  TelemetrySampler(Nvml& nvml, int period_ms);
  ~TelemetrySampler();
  /// Adds an event among the readings (e.g. the clock monitor failing), stamped with t_s.
  void add_event(TelemetryReading event);
  /// Stops sampling and returns the readings and events in the order taken.
  std::vector<TelemetryReading> stop();

private:
  Nvml& nvml_;
  std::atomic<bool> running_{true};
  std::mutex mutex_;
  std::vector<TelemetryReading> readings_;
  std::thread thread_;
};

} // namespace apod
