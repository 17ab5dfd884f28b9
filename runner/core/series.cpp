#include "core/series.hpp"

#include "core/theory.hpp"

namespace apod {

Series::Series(std::vector<double> values, std::vector<uint8_t> flags, std::string stop_reason, bool noisy)
    : values_(std::move(values)), flags_(std::move(flags)), stop_reason_(std::move(stop_reason)), noisy_(noisy) {
  if (!flags_.empty() && flags_.size() != values_.size())
    throw std::logic_error("Series: one flag per value, or none");
}

std::vector<double> Series::used() const {
  std::vector<double> out;
  out.reserve(values_.size());
  for (size_t i = 0; i < values_.size(); ++i)
    if (flag(i) == 0) out.push_back(values_[i]);
  return out;
}

Measurement make_measurement(json params, const Metric& metric, const Series& series, bool verified, json extra) {
  Measurement m;
  m.params = std::move(params);
  m.metric = metric.name;
  m.unit = metric.unit;
  m.direction = metric.direction;
  m.samples = series.values();
  m.excluded.resize(series.size());
  for (size_t i = 0; i < series.size(); ++i) m.excluded[i] = series.flag(i);
  m.stop_reason = series.stop_reason();
  m.noisy = series.noisy();
  m.verified = verified;
  m.extra = extra.is_object() ? std::move(extra) : json::object();
  return m;
}

Series bandwidth_gbs(const Series& times_ms, double bytes_moved) {
  return times_ms.map([bytes_moved](double ms) { return bandwidth_gbs_from_ms(bytes_moved, ms); });
}

Measurement bandwidth_measurement(json params, double bytes_moved, const Series& times_ms, bool verified, json extra) {
  Measurement m = make_measurement(std::move(params), metrics::effective_bandwidth, bandwidth_gbs(times_ms, bytes_moved),
                                   verified, std::move(extra));
  m.extra["bytes_moved"] = bytes_moved;
  return m;
}

}  // namespace apod
