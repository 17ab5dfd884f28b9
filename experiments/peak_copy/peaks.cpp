#include "peaks.hpp"

#include "declaration.hpp"

#include "core/series.hpp"
#include "core/vocabulary.hpp"

#include <algorithm>
#include <string>

namespace apod {

namespace {

Series series_of(const Measurement& m) {
  return Series(m.samples, m.excluded, m.stop_reason, m.noisy);
}

// The ok point with the highest median among those `keep` accepts, or nullptr.
template <class Keep>
const Measurement* best_of(const std::vector<Measurement>& points, Keep&& keep, size_t* compared) {
  const Measurement* best = nullptr;
  double best_median = 0;
  *compared = 0;
  for (const auto& m : points) {
    if (!keep(m))
      continue;
    ++*compared;
    if (!m.ok())
      continue;
    const double median = series_of(m).summary().median;
    if (!best || median > best_median)
      best = &m, best_median = median;
  }
  return best;
}

// A peak carrying the winner's samples, flags and facts; failed with `reason` when none won.
Measurement peak_of(json params, const Metric& metric, const Measurement* winner, json facts,
                    const std::string& reason) {
  if (!winner) {
    Measurement m = make_measurement(std::move(params), metric, Series{}, false, std::move(facts));
    m.error = reason;
    return m;
  }
  json extra = winner->extra;
  extra.update(facts);
  return make_measurement(std::move(params), metric, series_of(*winner), true, std::move(extra));
}

} // namespace

std::vector<Measurement> access_peaks(const std::vector<Measurement>& points) {
  std::vector<std::string> types;
  for (const auto& m : points) {
    const json type = m.params.value(keys::access_type, json());
    if (m.metric == metrics::effective_bandwidth.name && type.is_string() &&
        std::find(types.begin(), types.end(), type.get<std::string>()) == types.end())
      types.push_back(type.get<std::string>());
  }
  std::vector<Measurement> peaks;
  for (const auto& type : types) {
    size_t compared = 0;
    const Measurement* best = best_of(
        points,
        [&](const Measurement& m) {
          return m.metric == metrics::effective_bandwidth.name &&
                 m.params.value(keys::access_type, "") == type;
        },
        &compared);
    json facts = {{"points_compared", compared}};
    if (best)
      facts["winner"] = best->params;
    peaks.push_back(peak_of({{keys::access_type, type}}, peak::access_peak, best, std::move(facts),
                            "no " + type + " point verified"));
  }
  return peaks;
}

Measurement achievable_peak(const std::vector<Measurement>& peaks) {
  size_t compared = 0;
  const Measurement* best = best_of(
      peaks, [](const Measurement& m) { return m.metric == keys::access_peak; }, &compared);
  json facts = {{"access_types_compared", compared}};
  if (best)
    facts[keys::access_type] = best->params.at(keys::access_type);
  return peak_of({{peak::method.key, peak::best_method}}, peak::achievable_peak, best,
                 std::move(facts), "no access type has a verified point");
}

} // namespace apod
