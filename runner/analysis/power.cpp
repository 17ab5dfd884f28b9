#include "analysis/power.hpp"

#include "core/vocabulary.hpp"

#include <algorithm>
#include <vector>

namespace apod {

namespace {

double number_or(const json& j, const char* key, double fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

/// Power over readings taken in order: energy between the first and last that carry it, else
/// the mean of power_w.
std::optional<double> power_of(const std::vector<const TelemetryReading*>& readings) {
  const TelemetryReading* first = nullptr;
  const TelemetryReading* last = nullptr;
  double watts_sum = 0;
  int watts_count = 0;
  for (const TelemetryReading* r : readings) {
    if (r->energy_j.value_or(-1) >= 0 && r->t_s.value_or(-1) >= 0) {
      if (!first)
        first = r;
      last = r;
    }
    if (const double w = r->power_w.value_or(-1); w >= 0)
      watts_sum += w, ++watts_count;
  }
  if (first && last != first) {
    const double joules = *last->energy_j - *first->energy_j;
    const double seconds = *last->t_s - *first->t_s;
    if (seconds > 0 && joules > 0)
      return joules / seconds;
  }
  if (watts_count > 0)
    return watts_sum / watts_count;
  return std::nullopt;
}

} // namespace

std::optional<PointPower> point_power_w(const json& extra,
                                        const std::vector<TelemetryReading>& telemetry,
                                        const std::string& experiment) {
  const json window = extra.is_object() && extra.contains(keys::sampling_window)
                          ? extra[keys::sampling_window]
                          : json(nullptr);
  const double busy_s = number_or(window, "busy_s", 0);
  const double energy_j = number_or(window, "energy_j", 0);
  if (busy_s >= min_energy_window_s && energy_j > 0)
    return PointPower{energy_j / busy_s, power_basis_point_energy};
  std::vector<const TelemetryReading*> in_window, in_experiment;
  const double start_s = number_or(window, "start_s", 0), end_s = number_or(window, "end_s", -1);
  for (const TelemetryReading& r : telemetry) {
    if (!r.during(experiment))
      continue; // events and readings between experiments
    in_experiment.push_back(&r);
    const double t = r.t_s.value_or(-1);
    if (t >= start_s && t <= end_s)
      in_window.push_back(&r);
  }
  if (const auto w = power_of(in_window))
    return PointPower{*w, power_basis_point_readings};
  if (const auto w = power_of(in_experiment))
    return PointPower{*w, power_basis_experiment};
  return std::nullopt;
}

bool telemetry_names_experiments(const std::vector<TelemetryReading>& telemetry) {
  return std::any_of(telemetry.begin(), telemetry.end(),
                     [](const TelemetryReading& r) { return !r.is_event() && r.tagged; });
}

} // namespace apod
