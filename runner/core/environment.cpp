#include "core/environment.hpp"

namespace apod {

namespace {

// Sets j[key] where the setting is known.
template <class T> void put(json& j, const char* key, const std::optional<T>& value) {
  if (value)
    j[key] = *value;
}

// NVML's clocks and link, in the order nvml.cpp writes them.
constexpr std::pair<const char*, std::optional<int64_t> GpuState::*> nvml_clocks_and_link[] = {
    {"max_sm_clock_mhz", &GpuState::max_sm_clock_mhz},
    {"max_memory_clock_mhz", &GpuState::max_memory_clock_mhz},
    {"max_graphics_clock_mhz", &GpuState::max_graphics_clock_mhz},
    {"application_sm_clock_mhz", &GpuState::application_sm_clock_mhz},
    {"application_memory_clock_mhz", &GpuState::application_memory_clock_mhz},
    {"pcie_generation_now", &GpuState::pcie_generation_now},
    {"pcie_width_now", &GpuState::pcie_width_now},
    {"pcie_generation_max", &GpuState::pcie_generation_max},
    {"pcie_width_max", &GpuState::pcie_width_max},
};

// NVML's ECC error counts, written after the NVLinks.
constexpr std::pair<const char*, std::optional<int64_t> GpuState::*> nvml_ecc_counts[] = {
    {"ecc_corrected_volatile", &GpuState::ecc_corrected_volatile},
    {"ecc_uncorrected_volatile", &GpuState::ecc_uncorrected_volatile},
    {"ecc_corrected_aggregate", &GpuState::ecc_corrected_aggregate},
    {"ecc_uncorrected_aggregate", &GpuState::ecc_uncorrected_aggregate},
};

json nvlinks_json(const std::vector<NvLink>& links) {
  json j = json::array();
  for (const NvLink& l : links)
    j.push_back({{"link", l.link},
                 {"active", l.active},
                 {"version", or_null(l.version)},
                 {"remote_pci_bus_id",
                  l.remote_pci_bus_id.empty() ? json(nullptr) : json(l.remote_pci_bus_id)}});
  return j;
}

// A link without its index is not one: it is left out.
std::vector<NvLink> nvlinks_from_json(const json& j) {
  std::vector<NvLink> links;
  for (const json& l : j) {
    const auto link = field<int>(l, "link");
    if (!link)
      continue;
    links.push_back({*link, field<bool>(l, "active").value_or(false), field<int64_t>(l, "version"),
                     field<std::string>(l, "remote_pci_bus_id").value_or("")});
  }
  return links;
}

// The GPU's state as NVML gave it (Nvml::device_state).
json nvml_fields(const GpuState& s) {
  json j = {{"nvml", s.nvml},
            {"driver_version", s.driver_version},
            {"driver_branch", s.driver_branch},
            {"persistence_mode", or_null(s.persistence_mode)},
            {"compute_mode", or_null(s.compute_mode)},
            {"mig_mode", s.mig_mode ? json(*s.mig_mode) : json("not supported")},
            {"power_limit_w", or_null(s.power_limit_w)}};
  for (const auto& [key, member] : nvml_clocks_and_link)
    j[key] = or_null(s.*member);
  j["nvlinks"] = nvlinks_json(s.nvlinks);
  for (const auto& [key, member] : nvml_ecc_counts)
    j[key] = or_null(s.*member);
  j["nvml_entry_points"] = {{"clocks_event_reasons", or_null(s.clocks_event_reasons_entry_point)},
                            {"temperature", or_null(s.temperature_entry_point)}};
  return j;
}

json writer_fields(const Writer& w) {
  return {{"host", w.host},
          {"boot_id", w.boot_id},
          {"pid_namespace", w.pid_namespace},
          {"pid", w.pid},
          {"start_ticks", w.start_ticks}};
}

json resumption_fields(const Resumption& r) {
  return {{"at", r.at},
          {"previous_writer", r.previous_writer ? to_json(*r.previous_writer) : json(nullptr)}};
}

json plan_fields(const std::vector<PlannedExperiment>& plan) {
  json j = json::array();
  for (const PlannedExperiment& step : plan) {
    j.push_back({{"name", step.name}});
    put(j.back(), "version", step.version);
  }
  return j;
}

std::vector<PlannedExperiment> plan_from_json(const json& j) {
  std::vector<PlannedExperiment> plan;
  for (const json& step : j)
    plan.push_back(
        {field<std::string>(step, "name").value_or(""), field<int64_t>(step, "version")});
  return plan;
}

// The environment's texts, read alike.
constexpr std::pair<const char*, std::string Environment::*> environment_texts[] = {
    {"host", &Environment::host},
    {"os", &Environment::os},
    {"kernel", &Environment::kernel},
    {"machine", &Environment::machine},
    {"cpu_model", &Environment::cpu_model},
    {"apod_version", &Environment::apod_version},
    {"apod_commit", &Environment::apod_commit},
    {"compiler", &Environment::compiler},
    {"build_type", &Environment::build_type},
    {"cuda_architectures", &Environment::cuda_architectures},
    {"extra_cuda_flags", &Environment::extra_cuda_flags},
};

json environment_fields(const Environment& e) {
  json j = {{"host", e.host},
            {"os", e.os},
            {"kernel", e.kernel},
            {"machine", e.machine},
            {"cpu_model", e.cpu_model},
            {"cpu_count", e.cpu_count},
            {"apod_version", e.apod_version},
            {"apod_commit", e.apod_commit},
            {"apod_dirty", e.apod_dirty},
            {"compiler", e.compiler},
            {"build_type", e.build_type},
            {"cuda_architectures", e.cuda_architectures},
            {"cuda_toolkit_build", e.cuda_toolkit_build},
            {"extra_cuda_flags", e.extra_cuda_flags},
            {"gpu_numa_node", e.gpu_numa_node}};
  if (e.device_all)
    j["device_all"] = {{"devices", e.device_all->devices}, {"mode", e.device_all->mode}};
  if (e.gpu_state)
    j["gpu_state"] = to_json(*e.gpu_state);
  if (e.sampling)
    j["sampling"] = to_json(*e.sampling);
  if (e.plan)
    j["plan"] = plan_fields(*e.plan);
  if (e.repeat)
    j["repeat"] = {
        {"index", e.repeat->index}, {"count", e.repeat->count}, {"batch", e.repeat->batch}};
  if (e.writer)
    j["writer"] = to_json(*e.writer);
  if (!e.resumed.empty()) {
    j["resumed"] = json::array();
    for (const Resumption& r : e.resumed)
      j["resumed"].push_back(to_json(r));
  }
  return j;
}

} // namespace

std::string Environment::driver_branch() const {
  return gpu_state ? gpu_state->driver_branch : "";
}

json to_json(const Environment& e) {
  return written_over_stored(e, environment_fields, environment_from_json);
}

Environment environment_from_json(const json& j) {
  Environment e;
  for (const auto& [key, member] : environment_texts)
    e.*member = field<std::string>(j, key).value_or("");
  e.cpu_count = field<int64_t>(j, "cpu_count").value_or(0);
  e.apod_dirty = field<bool>(j, "apod_dirty").value_or(false);
  e.cuda_toolkit_build = field<int64_t>(j, "cuda_toolkit_build").value_or(0);
  e.gpu_numa_node = field<int64_t>(j, "gpu_numa_node").value_or(-1);
  if (const json* all = object_field(j, "device_all"))
    e.device_all = DeviceAll{field<int64_t>(*all, "devices").value_or(0),
                             field<std::string>(*all, "mode").value_or("")};
  if (const json* state = object_field(j, "gpu_state"))
    e.gpu_state = gpu_state_from_json(*state);
  if (const json* sampling = object_field(j, "sampling"))
    e.sampling = sampling_from_json(*sampling);
  if (j.contains("plan") && j["plan"].is_array())
    e.plan = plan_from_json(j["plan"]);
  if (const json* repeat = object_field(j, "repeat"))
    e.repeat = RepeatIndex{field<int64_t>(*repeat, "index").value_or(1),
                           field<int64_t>(*repeat, "count").value_or(1),
                           field<std::string>(*repeat, "batch").value_or("")};
  if (const json* writer = object_field(j, "writer"))
    e.writer = writer_from_json(*writer);
  if (j.contains("resumed") && j["resumed"].is_array())
    for (const json& r : j["resumed"])
      e.resumed.push_back(resumption_from_json(r));
  e.stored = j;
  return e;
}

std::string branch_of_driver(const std::string& driver_version) {
  return driver_version.substr(0, driver_version.find('.'));
}

json to_json(const GpuState& s) {
  if (s.nvml == "available")
    return nvml_fields(s);
  if (!s.nvml.empty()) // NVML did not load, and nothing else was asked
    return {{"nvml", s.nvml}};
  if (s.nvidia_smi.empty())
    return json::object();
  json j = {{"nvidia_smi", s.nvidia_smi}};
  if (s.nvidia_smi == "available")
    j["driver_version"] = s.driver_version;
  for (const auto& [query, answer] : s.nvidia_smi_answers)
    j[query] = answer;
  return j;
}

GpuState gpu_state_from_json(const json& j) {
  GpuState s;
  s.nvml = field<std::string>(j, "nvml").value_or("");
  s.nvidia_smi = field<std::string>(j, "nvidia_smi").value_or("");
  s.driver_version = field<std::string>(j, "driver_version").value_or("");
  s.driver_branch = field<std::string>(j, "driver_branch").value_or("");
  s.persistence_mode = field<int64_t>(j, "persistence_mode");
  s.compute_mode = field<std::string>(j, "compute_mode");
  s.mig_mode = field<int64_t>(j, "mig_mode");
  s.power_limit_w = field<double>(j, "power_limit_w");
  for (const auto& [key, member] : nvml_clocks_and_link)
    s.*member = field<int64_t>(j, key);
  if (j.is_object() && j.contains("nvlinks") && j["nvlinks"].is_array())
    s.nvlinks = nvlinks_from_json(j["nvlinks"]);
  for (const auto& [key, member] : nvml_ecc_counts)
    s.*member = field<int64_t>(j, key);
  if (const json* entry_points = object_field(j, "nvml_entry_points")) {
    s.clocks_event_reasons_entry_point = field<std::string>(*entry_points, "clocks_event_reasons");
    s.temperature_entry_point = field<std::string>(*entry_points, "temperature");
  }
  if (!s.nvidia_smi.empty())
    for (const auto& [key, value] : j.items())
      if (key != "nvidia_smi" && key != "driver_version" && value.is_string())
        s.nvidia_smi_answers.emplace_back(key, value.get<std::string>());
  return s;
}

json to_json(const MonitorAvailability& a) {
  json j = {{"available", a.available}};
  put(j, "sm_clock_check", a.sm_clock_check);
  put(j, "clocks_event_reasons_check", a.clocks_event_reasons_check);
  put(j, "measured_clock_check", a.measured_clock_check);
  put(j, "min_sm_clock_mhz", a.min_sm_clock_mhz);
  put(j, "max_sm_clock_source", a.max_sm_clock_source);
  if (!a.why.empty())
    j["why"] = a.why;
  return j;
}

MonitorAvailability monitor_availability_from_json(const json& j) {
  MonitorAvailability a;
  a.available = field<bool>(j, "available").value_or(false);
  a.sm_clock_check = field<bool>(j, "sm_clock_check");
  a.clocks_event_reasons_check = field<bool>(j, "clocks_event_reasons_check");
  a.measured_clock_check = field<bool>(j, "measured_clock_check");
  a.min_sm_clock_mhz = field<double>(j, "min_sm_clock_mhz");
  a.max_sm_clock_source = field<std::string>(j, "max_sm_clock_source");
  a.why = field<std::string>(j, "why").value_or("");
  return a;
}

json to_json(const SamplingSettings& s) {
  json j = json::object();
  put(j, "min_samples", s.min_samples);
  put(j, "max_samples", s.max_samples);
  put(j, "target_ci_rel", s.target_ci_rel);
  put(j, "max_point_s", s.max_point_s);
  put(j, "flush_l2", s.flush_l2);
  put(j, "monitor_clocks", s.monitor_clocks);
  if (s.monitor)
    j["monitor"] = to_json(*s.monitor);
  put(j, "min_clock_ratio", s.min_clock_ratio);
  put(j, "quick", s.quick);
  put(j, "full", s.full);
  put(j, "warmup", s.warmup);
  return j;
}

SamplingSettings sampling_from_json(const json& j) {
  SamplingSettings s;
  s.min_samples = field<int64_t>(j, "min_samples");
  s.max_samples = field<int64_t>(j, "max_samples");
  s.target_ci_rel = field<double>(j, "target_ci_rel");
  s.max_point_s = field<double>(j, "max_point_s");
  s.flush_l2 = field<bool>(j, "flush_l2");
  s.monitor_clocks = field<bool>(j, "monitor_clocks");
  if (const json* monitor = object_field(j, "monitor"))
    s.monitor = monitor_availability_from_json(*monitor);
  s.min_clock_ratio = field<double>(j, "min_clock_ratio");
  s.quick = field<bool>(j, "quick");
  s.full = field<bool>(j, "full");
  s.warmup = field<int64_t>(j, "warmup");
  return s;
}

json to_json(const Writer& w) {
  return written_over_stored(w, writer_fields, writer_from_json);
}

Writer writer_from_json(const json& j) {
  Writer w;
  w.host = field<std::string>(j, "host").value_or("");
  w.boot_id = field<std::string>(j, "boot_id").value_or("");
  w.pid_namespace = field<std::string>(j, "pid_namespace").value_or("");
  w.pid = field<int64_t>(j, "pid").value_or(0);
  w.start_ticks = field<int64_t>(j, "start_ticks").value_or(-1);
  w.stored = j;
  return w;
}

json to_json(const Resumption& r) {
  return written_over_stored(r, resumption_fields, resumption_from_json);
}

Resumption resumption_from_json(const json& j) {
  Resumption r;
  r.at = field<std::string>(j, "at").value_or("");
  if (const json* previous = object_field(j, "previous_writer"))
    r.previous_writer = writer_from_json(*previous);
  r.stored = j;
  return r;
}

} // namespace apod
