// NVML, loaded at run time (dlopen of libnvidia-ml.so.1, which ships with the driver), so apod
// builds without NVML headers and runs where NVML is missing. Used for the provenance of a run,
// for the per-sample clock and throttle check, and for telemetry sampled during a run.
#pragma once

#include "core/experiment.hpp"
#include "core/measurement.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace apod {

struct NvmlApi;  // the resolved entry points (nvml.cpp)

class Nvml {
 public:
  /// Loads NVML and opens the device with this PCI bus id; `available()` says whether it worked.
  explicit Nvml(const std::string& pci_bus_id);
  ~Nvml();
  bool available() const { return device_ != nullptr; }
  const std::string& why_unavailable() const { return why_; }

  /// Settings and limits of the device: driver version, persistence, compute and MIG mode,
  /// power limit, maximum and application clocks, PCIe link (null members where unreadable).
  json device_state();
  /// One telemetry reading: SM and memory clocks (MHz), temperature (C), power (W), throttle bits.
  json reading();
  std::optional<unsigned> sm_clock_mhz();
  std::optional<unsigned> max_sm_clock_mhz();
  /// Active throttle reasons, less the harmless ones (GPU idle, application clock setting).
  std::optional<unsigned long long> throttle_reasons();

 private:
  std::unique_ptr<NvmlApi> api_;
  void* device_ = nullptr;
  std::string why_;
};

/// The per-sample check of SamplingPolicy::monitor: flags a sample taken while the SM clock was
/// under `min_clock_ratio` of its maximum (bit 1) or while a throttle reason was active (bit 2).
class ClockMonitor : public SampleMonitor {
 public:
  ClockMonitor(Nvml& nvml, double min_clock_ratio);
  uint8_t check() override;

 private:
  Nvml& nvml_;
  double min_clock_mhz_ = 0;
};

/// Samples Nvml::reading() every `period_ms` on a background thread while it lives.
class TelemetrySampler {
 public:
  TelemetrySampler(Nvml& nvml, int period_ms);
  ~TelemetrySampler();
  /// Stops sampling and returns the readings, each with "t_s" (seconds since start).
  json stop();

 private:
  Nvml& nvml_;
  std::atomic<bool> running_{true};
  std::mutex mutex_;
  json readings_ = json::array();
  std::thread thread_;
};

/// Driver branch from a driver version string: "580.159.04" -> "580".
std::string driver_branch(const std::string& driver_version);

}  // namespace apod
