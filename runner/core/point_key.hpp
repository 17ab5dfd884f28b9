// What "the same point" means, decided once: the same experiment, metric and parameters. Compare
// pairs a candidate's points with a baseline's by it, the report follows a figure through the
// runs and groups a chart's or a table's rows by it; where a reader also groups by GPU model or
// by run, that is paired with the key, never folded into another definition of the point.
#pragma once

#include <nlohmann/json.hpp>

#include <compare>
#include <cstddef>
#include <string>

namespace apod {

using json = nlohmann::ordered_json;
struct Measurement;

/// A point's identity. Two measurements with equal keys measure the same thing, in whatever run
/// on whatever GPU; whether their figures may be compared takes more (comparability_key).
struct PointKey {
  std::string experiment;
  std::string metric;
  /// The parameters as compact JSON with keys sorted (canonical_params): a point whose
  /// parameters were written in another order is the same point.
  std::string params;

  static PointKey of(const Measurement& m);
  static PointKey of(std::string experiment, std::string metric, const json& params);

  /// The key as one stable string, a JSON array: ["offset_copy","effective_bandwidth",
  /// {"offset":1}]. No name can run into the next, whatever characters it holds.
  std::string text() const;

  friend auto operator<=>(const PointKey&, const PointKey&) = default;
};

/// For unordered containers keyed by PointKey.
struct PointKeyHash {
  std::size_t operator()(const PointKey& key) const noexcept;
};

/// `params` as compact JSON with object keys sorted at every level.
std::string canonical_params(const json& params);

/// The comparability key of a point measured on `gpu_model` under `driver_branch` by version
/// `experiment_version` of its experiment: 16 hex digits of FNV-1a 64 over the GPU model, the
/// driver branch, the experiment's name and version, the canonical parameters and the metric.
/// Stored with every point (docs/results-format.md): its output must never change, or stored
/// runs stop pairing with new ones.
std::string comparability_key(const std::string& gpu_model, const std::string& driver_branch,
                              const PointKey& point, int experiment_version);

/// The same from the parts of the key, as the runner holds them when it records a point.
std::string comparability_key(const std::string& gpu_model, const std::string& driver_branch,
                              const std::string& experiment, int experiment_version,
                              const json& params, const std::string& metric);

} // namespace apod
