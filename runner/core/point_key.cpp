#include "core/point_key.hpp"

#include "core/measurement.hpp"

#include <cstdio>
#include <functional>
#include <utility>

namespace apod {

std::string canonical_params(const json& params) {
  // nlohmann::json (not ordered_json) keeps object keys sorted, so {a,b} and {b,a} dump alike.
  // Text that is not UTF-8 (only a record built in memory can hold it: every way in replaces
  // it) becomes U+FFFD rather than an exception.
  constexpr auto replace = json::error_handler_t::replace;
  return nlohmann::json::parse(params.dump(-1, ' ', false, replace)).dump(-1, ' ', false, replace);
}

PointKey PointKey::of(std::string experiment, std::string metric, const json& params) {
  return {std::move(experiment), std::move(metric), canonical_params(params)};
}

PointKey PointKey::of(const Measurement& m) {
  return of(m.experiment, m.metric, m.params);
}

std::string PointKey::text() const {
  // Stored names are not trusted to be UTF-8: a bad byte becomes U+FFFD rather than a throw.
  const auto quoted = [](const std::string& name) {
    return json(name).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  std::string text = "[";
  text.append(quoted(experiment)).append(",").append(quoted(metric)).append(",");
  return text.append(params).append("]");
}

std::size_t PointKeyHash::operator()(const PointKey& key) const noexcept {
  const std::hash<std::string> hash;
  std::size_t h = hash(key.experiment);
  for (const std::string* part : {&key.metric, &key.params})
    h = h * 1000003u ^ hash(*part);
  return h;
}

std::string comparability_key(const std::string& gpu_model, const std::string& driver_branch,
                              const PointKey& point, int experiment_version) {
  // The layout of the hashed text is fixed by the keys stored in data/runs (tests/unit/
  // test_point_key.cpp recomputes some): "apod-ck-1" names it, should it ever have to change.
  const std::string canonical = "apod-ck-1|" + gpu_model + "|" + driver_branch + "|" +
                                point.experiment + "|" + std::to_string(experiment_version) + "|" +
                                point.params + "|" + point.metric;
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : canonical) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string comparability_key(const std::string& gpu_model, const std::string& driver_branch,
                              const std::string& experiment, int experiment_version,
                              const json& params, const std::string& metric) {
  return comparability_key(gpu_model, driver_branch, PointKey::of(experiment, metric, params),
                           experiment_version);
}

} // namespace apod
