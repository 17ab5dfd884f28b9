#include "core/telemetry.hpp"

#include "core/errors.hpp"

namespace apod {

namespace {

// In the order the telemetry sampler (run/nvml.cpp) and the clock monitor write them.
json telemetry_fields(const TelemetryReading& r) {
  json j = json::object();
  if (r.event) {
    j = {
        {"event", r.event->name}, {"query", r.event->query}, {"experiment", or_null(r.experiment)}};
    if (r.event->nvml_code)
      j["nvml_code"] = *r.event->nvml_code;
    j["t_s"] = or_null(r.t_s);
    return j;
  }
  j = {{"sm_clock_mhz", or_null(r.sm_clock_mhz)},
       {"memory_clock_mhz", or_null(r.memory_clock_mhz)},
       {"temperature_c", or_null(r.temperature_c)},
       {"power_w", or_null(r.power_w)},
       {"energy_j", or_null(r.energy_j)},
       {"throttle_reasons", or_null(r.throttle_reasons)},
       {"t_s", or_null(r.t_s)}};
  if (r.tagged) {
    j["experiment"] = or_null(r.experiment);
    j["point"] = or_null(r.point);
  }
  return j;
}

} // namespace

json to_json(const TelemetryReading& r) {
  return written_over_stored(r, telemetry_fields,
                             [](const json& j) { return telemetry_from_json(j, "telemetry"); });
}

TelemetryReading telemetry_from_json(const json& j, const std::string& where) {
  if (!j.is_object())
    refuse_results(where, "expected an object");
  TelemetryReading r;
  r.t_s = field<double>(j, "t_s");
  if (const auto name = field<std::string>(j, "event"))
    r.event = MonitorEvent{*name, field<std::string>(j, "query").value_or(""),
                           field<int64_t>(j, "nvml_code")};
  r.sm_clock_mhz = field<int64_t>(j, "sm_clock_mhz");
  r.memory_clock_mhz = field<int64_t>(j, "memory_clock_mhz");
  r.temperature_c = field<int64_t>(j, "temperature_c");
  r.power_w = field<double>(j, "power_w");
  r.energy_j = field<double>(j, "energy_j");
  r.throttle_reasons = field<uint64_t>(j, "throttle_reasons");
  r.tagged = j.contains("experiment");
  r.experiment = field<std::string>(j, "experiment");
  r.point = field<int64_t>(j, "point");
  r.stored = j;
  return r;
}

json to_json(const std::vector<TelemetryReading>& telemetry) {
  json j = json::array();
  for (const TelemetryReading& r : telemetry)
    j.push_back(to_json(r));
  return j;
}

} // namespace apod
