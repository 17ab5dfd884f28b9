#include "run/nvml.hpp"

#include "core/in_flight.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>

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
  /// nvmlPciInfo_t (nvml.h; nvmlDeviceGetPciInfo_v3 and the _v2 remote query fill this layout).
  struct PciInfo {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
  };
  int (*nvlink_state)(Device, unsigned, int*) = nullptr;        // nvmlEnableState_t
  int (*nvlink_version)(Device, unsigned, unsigned*) = nullptr; // nvmlNvlinkVersion_t
  int (*nvlink_remote_pci)(Device, unsigned, PciInfo*) = nullptr;
  int (*ecc_total)(Device, int, int, unsigned long long*) = nullptr; // error type, counter type
  std::string event_reasons_name, temperature_name;                  // the entry points found

  template <class F> bool resolve(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    return f != nullptr;
  }
};

namespace {
constexpr int clock_graphics = 0, clock_sm = 1, clock_mem = 2;
constexpr int clock_id_app_target = 1; // NVML_CLOCK_ID_APP_CLOCK_TARGET
constexpr int temperature_gpu = 0;
constexpr unsigned nvlink_max_links = 18; // NVML_NVLINK_MAX_LINKS (nvml.h of CUDA 12 and 13)
constexpr int ecc_corrected = 0, ecc_uncorrected = 1; // nvmlMemoryErrorType_t
constexpr int ecc_volatile = 0, ecc_aggregate = 1;    // nvmlEccCounterType_t
constexpr int not_found = 13;                         // NVML_ERROR_FUNCTION_NOT_FOUND
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

template <class T> std::optional<int64_t> count(const NvmlAnswer<T>& a) {
  return a ? std::optional<int64_t>(*a) : std::nullopt;
}
} // namespace

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
  a.resolve(a.nvlink_state, "nvmlDeviceGetNvLinkState");
  a.resolve(a.nvlink_version, "nvmlDeviceGetNvLinkVersion");
  a.resolve(a.nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  a.resolve(a.ecc_total, "nvmlDeviceGetTotalEccErrors");
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
    if (api_->shutdown && device_)
      api_->shutdown();
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

// The links NVML answers nvmlDeviceGetNvLinkState for: none on a GPU without NVLink (NVML says
// "not supported") and none past the GPU's own link count (it says "invalid argument").
std::vector<NvLink> nvlinks(const NvmlApi& api, void* device) {
  std::vector<NvLink> links;
  if (!api.nvlink_state)
    return links;
  for (unsigned link = 0; link < nvlink_max_links; ++link) {
    int state = 0;
    if (api.nvlink_state(device, link, &state) != 0)
      continue;
    NvLink l;
    l.link = static_cast<int>(link);
    l.active = state == 1; // NVML_FEATURE_ENABLED
    unsigned version = 0;
    if (api.nvlink_version && api.nvlink_version(device, link, &version) == 0)
      l.version = version;
    NvmlApi::PciInfo pci{};
    if (api.nvlink_remote_pci && api.nvlink_remote_pci(device, link, &pci) == 0) {
      pci.bus_id[sizeof pci.bus_id - 1] = '\0';
      l.remote_pci_bus_id = pci.bus_id;
      if (l.remote_pci_bus_id.empty() && pci.bus != 0) { // a driver that fills the numbers only
        char id[32] = {};
        std::snprintf(id, sizeof id, "%08X:%02X:%02X.0", pci.domain, pci.bus, pci.device);
        l.remote_pci_bus_id = id;
      }
    }
    links.push_back(std::move(l));
  }
  return links;
}
} // namespace

GpuState Nvml::device_state() {
  GpuState s;
  s.nvml = available() ? "available" : why_;
  if (!available())
    return s;
  char version[96] = {};
  if (api_->driver_version && api_->driver_version(version, sizeof version) == 0)
    s.driver_version = version;
  s.driver_branch = branch_of_driver(s.driver_version);
  s.persistence_mode = count(ask<int>(api_->persistence, device_));
  const auto compute = ask<int>(api_->compute_mode, device_);
  const char* compute_names[] = {"default", "exclusive_thread", "prohibited", "exclusive_process"};
  if (compute && *compute >= 0 && *compute < 4)
    s.compute_mode = compute_names[*compute];
  unsigned mig_current = 0, mig_pending = 0;
  if (api_->mig_mode && api_->mig_mode(device_, &mig_current, &mig_pending) == 0)
    s.mig_mode = mig_current;
  if (const auto power_limit_mw = ask<unsigned>(api_->power_limit, device_))
    s.power_limit_w = *power_limit_mw / 1000.0;
  s.max_sm_clock_mhz = count(max_sm_clock_mhz());
  s.max_memory_clock_mhz = count(ask<unsigned>(api_->max_clock, device_, clock_mem));
  s.max_graphics_clock_mhz = count(ask<unsigned>(api_->max_clock, device_, clock_graphics));
  s.application_sm_clock_mhz =
      count(ask<unsigned>(api_->clock, device_, clock_sm, clock_id_app_target));
  s.application_memory_clock_mhz =
      count(ask<unsigned>(api_->clock, device_, clock_mem, clock_id_app_target));
  s.pcie_generation_now = count(ask<unsigned>(api_->pcie_gen, device_));
  s.pcie_width_now = count(ask<unsigned>(api_->pcie_width, device_));
  s.pcie_generation_max = count(ask<unsigned>(api_->pcie_max_gen, device_));
  s.pcie_width_max = count(ask<unsigned>(api_->pcie_max_width, device_));
  s.nvlinks = nvlinks(*api_, device_);
  const auto ecc = [&](int type, int counter) {
    return count(ask<unsigned long long>(api_->ecc_total, device_, type, counter));
  };
  s.ecc_corrected_volatile = ecc(ecc_corrected, ecc_volatile);
  s.ecc_uncorrected_volatile = ecc(ecc_uncorrected, ecc_volatile);
  s.ecc_corrected_aggregate = ecc(ecc_corrected, ecc_aggregate);
  s.ecc_uncorrected_aggregate = ecc(ecc_uncorrected, ecc_aggregate);
  if (!api_->event_reasons_name.empty())
    s.clocks_event_reasons_entry_point = api_->event_reasons_name;
  if (!api_->temperature_name.empty())
    s.temperature_entry_point = api_->temperature_name;
  return s;
}

TelemetryReading Nvml::reading() {
  TelemetryReading r;
  r.sm_clock_mhz = count(sm_clock_mhz());
  r.memory_clock_mhz = count(ask<unsigned>(api_->clock_info, device_, clock_mem));
  r.temperature_c = count(temperature_c(*api_, device_));
  if (const auto power_mw = ask<unsigned>(api_->power, device_))
    r.power_w = *power_mw / 1000.0;
  r.energy_j = total_energy_j();
  if (const auto reasons = clocks_event_reasons())
    r.throttle_reasons = *reasons;
  return r;
}

TelemetrySampler::TelemetrySampler(Nvml& nvml, int period_ms) : nvml_(nvml) {
  thread_ = std::thread([this, period_ms] {
    while (running_) {
      TelemetryReading r = nvml_.reading();
      const in_flight::Tag tag = in_flight::tag();
      r.t_s = in_flight::run_clock_s();
      r.tagged = true;
      if (!tag.experiment.empty())
        r.experiment = tag.experiment;
      if (tag.point >= 0)
        r.point = tag.point;
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
  if (thread_.joinable())
    thread_.join();
}

void TelemetrySampler::add_event(TelemetryReading event) {
  event.t_s = in_flight::run_clock_s();
  std::lock_guard<std::mutex> lock(mutex_);
  readings_.push_back(std::move(event));
}

std::vector<TelemetryReading> TelemetrySampler::stop() {
  running_ = false;
  if (thread_.joinable())
    thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  return readings_;
}

} // namespace apod
