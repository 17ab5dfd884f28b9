#include "run/nvml.hpp"

#include "core/in_flight.hpp"

#include <dlfcn.h>

#include <chrono>

namespace apod {

// NVML's C ABI, declared here because the toolkit ships no nvml.h on every system. Handles are
// opaque pointers, results ints; the enum values and struct layouts are NVML's documented ones
// (nvml.h of CUDA 13).
struct NvmlApi {
  void* lib = nullptr;
  using Device = void*;
  /// nvmlTemperature_v1_t, for nvmlDeviceGetTemperatureV.
  struct Temperature {
    unsigned version;
    int sensor_type;
    int temperature;
  };
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_pci)(const char*, Device*) = nullptr;
  int (*clock_info)(Device, int, unsigned*) = nullptr;
  int (*max_clock)(Device, int, unsigned*) = nullptr;
  int (*clock)(Device, int, int, unsigned*) = nullptr; // nvmlDeviceGetClock(type, id)
  int (*event_reasons)(Device, unsigned long long*) = nullptr;
  int (*temperature_v)(Device, Temperature*) = nullptr;
  int (*temperature_old)(Device, int, unsigned*) = nullptr;
  int (*power)(Device, unsigned*) = nullptr;
  int (*energy)(Device, unsigned long long*) = nullptr;
  int (*power_limit)(Device, unsigned*) = nullptr;
  int (*persistence)(Device, int*) = nullptr;
  int (*compute_mode)(Device, int*) = nullptr;
  int (*mig_mode)(Device, unsigned*, unsigned*) = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*pcie_gen)(Device, unsigned*) = nullptr;
  int (*pcie_width)(Device, unsigned*) = nullptr;
  int (*pcie_max_gen)(Device, unsigned*) = nullptr;
  int (*pcie_max_width)(Device, unsigned*) = nullptr;
  std::string event_reasons_name, temperature_name; // the entry points found

  template <class F> bool resolve(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    return f != nullptr;
  }
};

namespace {
constexpr int clock_graphics = 0, clock_sm = 1, clock_mem = 2;
constexpr int clock_id_app_target = 1; // NVML_CLOCK_ID_APP_CLOCK_TARGET
constexpr int temperature_gpu = 0;
constexpr int not_found = 13; // NVML_ERROR_FUNCTION_NOT_FOUND
// Clocks-event reasons that do not slow a measurement down.
constexpr unsigned long long reason_gpu_idle = 0x1, reason_app_clocks = 0x2;
// nvmlTemperature_v1: NVML_STRUCT_VERSION(Temperature, 1) = sizeof | 1 << 24.
constexpr unsigned temperature_v1 = sizeof(NvmlApi::Temperature) | (1u << 24);

template <class T, class F, class... Args> NvmlAnswer<T> ask(F f, Args... args) {
  if (!f)
    return {std::nullopt, not_found};
  T value{};
  const int code = f(args..., &value);
  if (code != 0)
    return {std::nullopt, code};
  return {value, 0};
}

template <class T> json or_null(const NvmlAnswer<T>& a) {
  return a ? json(*a) : json(nullptr);
}
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
  a.resolve(a.clock_info, "nvmlDeviceGetClockInfo");
  a.resolve(a.max_clock, "nvmlDeviceGetMaxClockInfo");
  a.resolve(a.clock, "nvmlDeviceGetClock");
  // The current names first; drivers older than the rename (r535, r555) have only the old ones.
  if (a.resolve(a.event_reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
    a.event_reasons_name = "nvmlDeviceGetCurrentClocksEventReasons";
  else if (a.resolve(a.event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons"))
    a.event_reasons_name = "nvmlDeviceGetCurrentClocksThrottleReasons";
  if (a.resolve(a.temperature_v, "nvmlDeviceGetTemperatureV"))
    a.temperature_name = "nvmlDeviceGetTemperatureV";
  else if (a.resolve(a.temperature_old, "nvmlDeviceGetTemperature"))
    a.temperature_name = "nvmlDeviceGetTemperature";
  a.resolve(a.power, "nvmlDeviceGetPowerUsage");
  a.resolve(a.energy, "nvmlDeviceGetTotalEnergyConsumption");
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

NvmlAnswer<unsigned> Nvml::sm_clock_mhz() {
  return ask<unsigned>(api_->clock_info, device_, clock_sm);
}
NvmlAnswer<unsigned> Nvml::max_sm_clock_mhz() {
  return ask<unsigned>(api_->max_clock, device_, clock_sm);
}

NvmlAnswer<unsigned long long> Nvml::clocks_event_reasons() {
  auto r = ask<unsigned long long>(api_->event_reasons, device_);
  if (r)
    *r.value &= ~(reason_gpu_idle | reason_app_clocks);
  return r;
}

std::optional<double> Nvml::total_energy_j() {
  const auto mj = ask<unsigned long long>(api_->energy, device_);
  return mj ? std::optional<double>(*mj / 1000.0) : std::nullopt;
}

namespace {
NvmlAnswer<int> temperature_c(const NvmlApi& api, void* device) {
  if (api.temperature_v) {
    NvmlApi::Temperature t{temperature_v1, temperature_gpu, 0};
    const int code = api.temperature_v(device, &t);
    return code == 0 ? NvmlAnswer<int>{t.temperature, 0} : NvmlAnswer<int>{std::nullopt, code};
  }
  const auto old = ask<unsigned>(api.temperature_old, device, temperature_gpu);
  return old ? NvmlAnswer<int>{static_cast<int>(*old), 0} : NvmlAnswer<int>{std::nullopt, old.code};
}
} // namespace

json Nvml::device_state() {
  if (!available()) return {{"nvml", why_}};
  char version[96] = {};
  std::string driver;
  if (api_->driver_version && api_->driver_version(version, sizeof version) == 0) driver = version;
  unsigned mig_current = 0, mig_pending = 0;
  const bool mig_ok = api_->mig_mode && api_->mig_mode(device_, &mig_current, &mig_pending) == 0;
  const auto compute = ask<int>(api_->compute_mode, device_);
  const char* compute_names[] = {"default", "exclusive_thread", "prohibited", "exclusive_process"};
  const auto power_limit_mw = ask<unsigned>(api_->power_limit, device_);
  return {
      {"nvml", "available"},
      {"driver_version", driver},
      {"driver_branch", driver_branch(driver)},
      {"persistence_mode", or_null(ask<int>(api_->persistence, device_))},
      {"compute_mode",
       compute && *compute >= 0 && *compute < 4 ? json(compute_names[*compute]) : json(nullptr)},
      {"mig_mode", mig_ok ? json(mig_current) : json("not supported")},
      {"power_limit_w", power_limit_mw ? json(*power_limit_mw / 1000.0) : json(nullptr)},
      {"max_sm_clock_mhz", or_null(max_sm_clock_mhz())},
      {"max_memory_clock_mhz", or_null(ask<unsigned>(api_->max_clock, device_, clock_mem))},
      {"max_graphics_clock_mhz", or_null(ask<unsigned>(api_->max_clock, device_, clock_graphics))},
      {"application_sm_clock_mhz",
       or_null(ask<unsigned>(api_->clock, device_, clock_sm, clock_id_app_target))},
      {"application_memory_clock_mhz",
       or_null(ask<unsigned>(api_->clock, device_, clock_mem, clock_id_app_target))},
      {"pcie_generation_now", or_null(ask<unsigned>(api_->pcie_gen, device_))},
      {"pcie_width_now", or_null(ask<unsigned>(api_->pcie_width, device_))},
      {"pcie_generation_max", or_null(ask<unsigned>(api_->pcie_max_gen, device_))},
      {"pcie_width_max", or_null(ask<unsigned>(api_->pcie_max_width, device_))},
      {"nvml_entry_points",
       {{"clocks_event_reasons",
         api_->event_reasons_name.empty() ? json(nullptr) : json(api_->event_reasons_name)},
        {"temperature",
         api_->temperature_name.empty() ? json(nullptr) : json(api_->temperature_name)}}},
  };
}

json Nvml::reading() {
  const auto power_mw = ask<unsigned>(api_->power, device_);
  const auto energy = total_energy_j();
  return {{"sm_clock_mhz", or_null(sm_clock_mhz())},
          {"memory_clock_mhz", or_null(ask<unsigned>(api_->clock_info, device_, clock_mem))},
          {"temperature_c", or_null(temperature_c(*api_, device_))},
          {"power_w", power_mw ? json(*power_mw / 1000.0) : json(nullptr)},
          {"energy_j", energy ? json(*energy) : json(nullptr)},
          {"throttle_reasons", or_null(clocks_event_reasons())}};
}

TelemetrySampler::TelemetrySampler(Nvml& nvml, int period_ms) : nvml_(nvml) {
  thread_ = std::thread([this, period_ms] {
    while (running_) {
      json r = nvml_.reading();
      const in_flight::Tag tag = in_flight::tag();
      r["t_s"] = in_flight::run_clock_s();
      r["experiment"] = tag.experiment.empty() ? json(nullptr) : json(tag.experiment);
      r["point"] = tag.point < 0 ? json(nullptr) : json(tag.point);
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

void TelemetrySampler::add_event(json event) {
  event["t_s"] = in_flight::run_clock_s();
  std::lock_guard<std::mutex> lock(mutex_);
  readings_.push_back(std::move(event));
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
