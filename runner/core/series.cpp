#include "core/series.hpp"

#include "core/theory.hpp"
#include "core/vocabulary.hpp"

#include <algorithm>
#include <cmath>

namespace apod {

Series::Series(std::vector<double> values, std::vector<uint8_t> flags, std::string stop_reason,
               bool noisy)
    : values_(std::move(values)), flags_(std::move(flags)), stop_reason_(std::move(stop_reason)),
      noisy_(noisy) {
  if (!flags_.empty() && flags_.size() != values_.size())
    throw std::logic_error("Series: one flag per value, or none");
}

Series::Series(const TimedSamples& t) : Series(t.ms, t.excluded, t.stop_reason, t.noisy) {
  if (!t.sm_clock_mhz.empty() && t.sm_clock_mhz.size() != values_.size())
    throw std::logic_error("Series: one SM clock per value, or none");
  clocks_ = t.sm_clock_mhz;
  window_ = t.window;
  target_ci_rel_ = t.target_ci_rel;
}

void Series::add(double value, uint8_t flags, double sm_clock_mhz) {
  // Clocks stay aligned with the values once any is known; a series without any carries none.
  if (!clocks_.empty() || !std::isnan(sm_clock_mhz)) {
    clocks_.resize(values_.size(), std::nan(""));
    clocks_.push_back(sm_clock_mhz);
  }
  flags_.resize(values_.size(), 0); // a series made with no flags had every value used
  values_.push_back(value);
  flags_.push_back(flags);
}

std::vector<double> Series::used() const {
  std::vector<double> out;
  out.reserve(values_.size());
  for (size_t i = 0; i < values_.size(); ++i)
    if (flag(i) == 0)
      out.push_back(values_[i]);
  return out;
}

namespace {

// The clocks as whole MHz (the method resolves no finer), null where unknown; the window as
// run-clock seconds, with the energy when the counter answered at both ends. A series the timing
// core took (it has a window) always says what its clock was, null for every sample too short to
// measure (under 20 us), so "not measured" is stated, never left to an absent key.
void add_timing_facts(json& extra, const Series& series) {
  const auto& clocks = series.sm_clock_mhz();
  if (!series.window().empty() ||
      std::any_of(clocks.begin(), clocks.end(), [](double c) { return !std::isnan(c); })) {
    json out = json::array();
    for (size_t i = 0; i < series.size(); ++i) {
      const double c = series.clock(i);
      out.push_back(std::isnan(c) ? json(nullptr) : json(std::llround(c)));
    }
    extra[keys::sm_clock_mhz] = std::move(out);
  }
  const SamplingWindow& w = series.window();
  if (!w.empty()) {
    json window = {{"start_s", w.start_s}, {"end_s", w.end_s}, {"busy_s", w.busy_s}};
    if (w.energy_j)
      window["energy_j"] = *w.energy_j;
    extra[keys::sampling_window] = std::move(window);
  }
}

} // namespace

Measurement make_measurement(json params, const Metric& metric, const Series& series, bool verified,
                             json extra) {
  Measurement m;
  m.params = std::move(params);
  m.metric = metric.name;
  m.unit = metric.unit;
  m.direction = metric.direction;
  m.samples = series.values();
  m.excluded.resize(series.size());
  for (size_t i = 0; i < series.size(); ++i)
    m.excluded[i] = series.flag(i);
  m.stop_reason = series.stop_reason();
  m.noisy = series.noisy();
  // Fixed counts answer to the same rule as adaptive points, over the figures actually stored
  // (a ratio of two timings can scatter more than either).
  if (m.stop_reason == stop_fixed && series.target_ci_rel() > 0)
    m.noisy = m.noisy || over_ci_target(series.used(), series.target_ci_rel());
  m.verified = verified;
  m.extra = extra.is_object() ? std::move(extra) : json::object();
  add_timing_facts(m.extra, series);
  m.metric_class = metric.class_of(m.params, m.extra);
  return m;
}

Series bandwidth_gbs(const Series& times_ms, double bytes_moved) {
  return times_ms.map([bytes_moved](double ms) { return bandwidth_gbs_from_ms(bytes_moved, ms); });
}

Measurement bandwidth_measurement(json params, double bytes_moved, const Series& times_ms,
                                  bool verified, json extra) {
  Measurement m =
      make_measurement(std::move(params), metrics::effective_bandwidth,
                       bandwidth_gbs(times_ms, bytes_moved), verified, std::move(extra));
  m.extra[keys::bytes_moved] = bytes_moved;
  return m;
}

} // namespace apod
