#include "analysis/power.hpp"

#include "core/vocabulary.hpp"

#include <algorithm>
#include <vector>

namespace apod {

namespace {

double number_or(const json& j, const char* key, double fallback) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

// A reading (not an event such as the monitor failing) taken while `experiment` was in flight.
bool tagged_with(const json& reading, const std::string& experiment) {
  return reading.is_object() && !reading.contains("event") && reading.contains("experiment") &&
         reading["experiment"].is_string() &&
         reading["experiment"].get<std::string>() == experiment;
}

/// Power over readings taken in order: energy between the first and last that carry it, else
/// the mean of power_w.
std::optional<double> power_of(const std::vector<const json*>& readings) {
  const json* first = nullptr;
  const json* last = nullptr;
  double watts_sum = 0;
  int watts_count = 0;
  for (const json* r : readings) {
    if (number_or(*r, "energy_j", -1) >= 0 && number_or(*r, "t_s", -1) >= 0) {
      if (!first)
        first = r;
      last = r;
    }
    if (const double w = number_or(*r, "power_w", -1); w >= 0)
      watts_sum += w, ++watts_count;
  }
  if (first && last != first) {
    const double joules = number_or(*last, "energy_j", 0) - number_or(*first, "energy_j", 0);
    const double seconds = number_or(*last, "t_s", 0) - number_or(*first, "t_s", 0);
    if (seconds > 0 && joules > 0)
      return joules / seconds;
  }
  if (watts_count > 0)
    return watts_sum / watts_count;
  return std::nullopt;
}

} // namespace

std::optional<PointPower> point_power_w(const json& extra, const json& telemetry,
                                        const std::string& experiment) {
  const json window = extra.is_object() && extra.contains(keys::sampling_window)
                          ? extra[keys::sampling_window]
                          : json(nullptr);
  const double busy_s = number_or(window, "busy_s", 0);
  const double energy_j = number_or(window, "energy_j", 0);
  if (busy_s >= min_energy_window_s && energy_j > 0)
    return PointPower{energy_j / busy_s, power_basis_point_energy};
  if (!telemetry.is_array())
    return std::nullopt;
  std::vector<const json*> in_window, in_experiment;
  const double start_s = number_or(window, "start_s", 0), end_s = number_or(window, "end_s", -1);
  for (const json& r : telemetry) {
    if (!tagged_with(r, experiment))
      continue; // events and readings between experiments
    in_experiment.push_back(&r);
    const double t = number_or(r, "t_s", -1);
    if (t >= start_s && t <= end_s)
      in_window.push_back(&r);
  }
  if (const auto w = power_of(in_window))
    return PointPower{*w, power_basis_point_readings};
  if (const auto w = power_of(in_experiment))
    return PointPower{*w, power_basis_experiment};
  return std::nullopt;
}

bool telemetry_names_experiments(const json& telemetry) {
  return telemetry.is_array() && std::any_of(telemetry.begin(), telemetry.end(), [](const json& r) {
           return r.is_object() && !r.contains("event") && r.contains("experiment");
         });
}

} // namespace apod
