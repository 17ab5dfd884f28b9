#include "run/nvml.hpp"

#include <dlfcn.h>

#include <chrono>

namespace apod {

// NVML's C ABI, declared here because the toolkit ships no nvml.h on every system. Handles are
// opaque pointers, results ints; the enum values are NVML's documented ones.
struct NvmlApi {
  void* lib = nullptr;
  using Device = void*;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_pci)(const char*, Device*) = nullptr;
  int (*clock)(Device, int, unsigned*) = nullptr;
  int (*max_clock)(Device, int, unsigned*) = nullptr;
  int (*app_clock)(Device, int, unsigned*) = nullptr;
  int (*throttle)(Device, unsigned long long*) = nullptr;
  int (*temperature)(Device, int, unsigned*) = nullptr;
  int (*power)(Device, unsigned*) = nullptr;
  int (*power_limit)(Device, unsigned*) = nullptr;
  int (*persistence)(Device, int*) = nullptr;
  int (*compute_mode)(Device, int*) = nullptr;
  int (*mig_mode)(Device, unsigned*, unsigned*) = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*pcie_gen)(Device, unsigned*) = nullptr;
  int (*pcie_width)(Device, unsigned*) = nullptr;
  int (*pcie_max_gen)(Device, unsigned*) = nullptr;
  int (*pcie_max_width)(Device, unsigned*) = nullptr;

  template <class F>
  void resolve(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
  }
};

namespace {
constexpr int clock_graphics = 0, clock_sm = 1, clock_mem = 2;
constexpr int temperature_gpu = 0;
// Throttle ("clocks event") reasons that do not slow a measurement down.
constexpr unsigned long long reason_gpu_idle = 0x1, reason_app_clocks = 0x2;

template <class T, class F, class... Args>
std::optional<T> query(F f, Args... args) {
  T value{};
  if (!f || f(args..., &value) != 0) return std::nullopt;
  return value;
}

template <class T>
json or_null(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }
}  // namespace

Nvml::Nvml(const std::string& pci_bus_id) : api_(std::make_unique<NvmlApi>()) {
  api_->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api_->lib) {
    why_ = "libnvidia-ml.so.1 not found";
    return;
  }
  auto& a = *api_;
  a.resolve(a.init, "nvmlInit_v2");
  a.resolve(a.shutdown, "nvmlShutdown");
  a.resolve(a.by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  a.resolve(a.clock, "nvmlDeviceGetClockInfo");
  a.resolve(a.max_clock, "nvmlDeviceGetMaxClockInfo");
  a.resolve(a.app_clock, "nvmlDeviceGetApplicationsClock");
  a.resolve(a.throttle, "nvmlDeviceGetCurrentClocksThrottleReasons");
  a.resolve(a.temperature, "nvmlDeviceGetTemperature");
  a.resolve(a.power, "nvmlDeviceGetPowerUsage");
  a.resolve(a.power_limit, "nvmlDeviceGetPowerManagementLimit");
  a.resolve(a.persistence, "nvmlDeviceGetPersistenceMode");
  a.resolve(a.compute_mode, "nvmlDeviceGetComputeMode");
  a.resolve(a.mig_mode, "nvmlDeviceGetMigMode");
  a.resolve(a.driver_version, "nvmlSystemGetDriverVersion");
  a.resolve(a.pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
  a.resolve(a.pcie_width, "nvmlDeviceGetCurrPcieLinkWidth");
  a.resolve(a.pcie_max_gen, "nvmlDeviceGetMaxPcieLinkGeneration");
  a.resolve(a.pcie_max_width, "nvmlDeviceGetMaxPcieLinkWidth");
  if (!a.init || !a.by_pci || a.init() != 0) {
    why_ = "nvmlInit failed";
    return;
  }
  void* device = nullptr;
  if (a.by_pci(pci_bus_id.c_str(), &device) != 0) {
    why_ = "NVML does not know the device at " + pci_bus_id;
    return;
  }
  device_ = device;
}

Nvml::~Nvml() {
  if (api_->lib) {
    if (api_->shutdown && device_) api_->shutdown();
    dlclose(api_->lib);
  }
}

std::optional<unsigned> Nvml::sm_clock_mhz() { return query<unsigned>(api_->clock, device_, clock_sm); }
std::optional<unsigned> Nvml::max_sm_clock_mhz() { return query<unsigned>(api_->max_clock, device_, clock_sm); }

std::optional<unsigned long long> Nvml::throttle_reasons() {
  auto r = query<unsigned long long>(api_->throttle, device_);
  if (r) *r &= ~(reason_gpu_idle | reason_app_clocks);
  return r;
}

json Nvml::device_state() {
  if (!available()) return {{"nvml", why_}};
  char version[96] = {};
  std::string driver;
  if (api_->driver_version && api_->driver_version(version, sizeof version) == 0) driver = version;
  unsigned mig_current = 0, mig_pending = 0;
  const bool mig_ok = api_->mig_mode && api_->mig_mode(device_, &mig_current, &mig_pending) == 0;
  const auto compute = query<int>(api_->compute_mode, device_);
  const char* compute_names[] = {"default", "exclusive_thread", "prohibited", "exclusive_process"};
  const auto power_limit_mw = query<unsigned>(api_->power_limit, device_);
  return {
      {"nvml", "available"},
      {"driver_version", driver},
      {"driver_branch", driver_branch(driver)},
      {"persistence_mode", or_null(query<int>(api_->persistence, device_))},
      {"compute_mode", compute && *compute >= 0 && *compute < 4 ? json(compute_names[*compute]) : json(nullptr)},
      {"mig_mode", mig_ok ? json(mig_current) : json("not supported")},
      {"power_limit_w", power_limit_mw ? json(*power_limit_mw / 1000.0) : json(nullptr)},
      {"max_sm_clock_mhz", or_null(max_sm_clock_mhz())},
      {"max_memory_clock_mhz", or_null(query<unsigned>(api_->max_clock, device_, clock_mem))},
      {"max_graphics_clock_mhz", or_null(query<unsigned>(api_->max_clock, device_, clock_graphics))},
      {"application_sm_clock_mhz", or_null(query<unsigned>(api_->app_clock, device_, clock_sm))},
      {"application_memory_clock_mhz", or_null(query<unsigned>(api_->app_clock, device_, clock_mem))},
      {"pcie_generation_now", or_null(query<unsigned>(api_->pcie_gen, device_))},
      {"pcie_width_now", or_null(query<unsigned>(api_->pcie_width, device_))},
      {"pcie_generation_max", or_null(query<unsigned>(api_->pcie_max_gen, device_))},
      {"pcie_width_max", or_null(query<unsigned>(api_->pcie_max_width, device_))},
  };
}

json Nvml::reading() {
  const auto power_mw = query<unsigned>(api_->power, device_);
  return {{"sm_clock_mhz", or_null(sm_clock_mhz())},
          {"memory_clock_mhz", or_null(query<unsigned>(api_->clock, device_, clock_mem))},
          {"temperature_c", or_null(query<unsigned>(api_->temperature, device_, temperature_gpu))},
          {"power_w", power_mw ? json(*power_mw / 1000.0) : json(nullptr)},
          {"throttle_reasons", or_null(throttle_reasons())}};
}

ClockMonitor::ClockMonitor(Nvml& nvml, double min_clock_ratio) : nvml_(nvml) {
  if (const auto max = nvml_.max_sm_clock_mhz()) min_clock_mhz_ = *max * min_clock_ratio;
}

uint8_t ClockMonitor::check() {
  uint8_t flags = 0;
  if (const auto clock = nvml_.sm_clock_mhz(); clock && *clock < min_clock_mhz_) flags |= 1;
  if (const auto reasons = nvml_.throttle_reasons(); reasons && *reasons != 0) flags |= 2;
  return flags;
}

TelemetrySampler::TelemetrySampler(Nvml& nvml, int period_ms) : nvml_(nvml) {
  thread_ = std::thread([this, period_ms] {
    const auto start = std::chrono::steady_clock::now();
    while (running_) {
      json r = nvml_.reading();
      r["t_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        readings_.push_back(std::move(r));
      }
      for (int waited = 0; running_ && waited < period_ms; waited += 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
}

TelemetrySampler::~TelemetrySampler() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
}

json TelemetrySampler::stop() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  return readings_;
}

std::string driver_branch(const std::string& v) {
  const auto dot = v.find('.');
  return dot == std::string::npos ? v : v.substr(0, dot);
}

}  // namespace apod
