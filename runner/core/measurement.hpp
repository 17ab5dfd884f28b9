// One measured point: an experiment's parameters, a metric and every timed sample of it.
#pragma once

#include "core/metric_class.hpp"
#include "core/point_key.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace apod {

using json = nlohmann::ordered_json;

/// Which way a metric improves; `apod compare` and the report read it.
enum class Direction { higher, lower };

const char* to_string(Direction d);
Direction direction_from_string(const std::string& s);

/// Summary statistics of a sample set (computed by `summarize`).
struct Summary {
  int n = 0;
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;
  double rsd = 0;                 ///< relative standard deviation, stddev / mean
  double q1 = 0, q3 = 0, iqr = 0; ///< quartiles (linear interpolation) and q3 - q1
  double ci_low = 0, ci_high = 0; ///< 95% confidence interval of the median
  double ci_half_width_rel() const {
    return median != 0 ? (ci_high - ci_low) / 2 / std::abs(median) : 0;
  }
};

/// Statistics of `values`. The median's confidence interval is distribution-free: the order
/// statistics x(j), x(n+1-j) with the largest j for which P(Binomial(n, 1/2) < j) <= 2.5%
/// (for n < 6 no such j exists and the interval is [min, max]). Empty input gives n == 0.
Summary summarize(const std::vector<double>& values);

/// The values whose flag in `excluded` is 0 (a value past the end of `excluded` counts as used).
std::vector<double> used_values(const std::vector<double>& values,
                                const std::vector<uint8_t>& excluded);

/// Why a point stopped taking samples.
inline constexpr const char* stop_converged = "converged"; ///< CI half-width within target
inline constexpr const char* stop_time_cap = "time_cap";   ///< per-point time cap reached
inline constexpr const char* stop_max_samples = "max_samples";
inline constexpr const char* stop_fixed = "fixed"; ///< a fixed count, no adaptive rule

struct Measurement {
  std::string experiment;
  json params = json::object(); ///< the point's axes, e.g. {"word_bytes":4,"offset":3}
  std::string metric;           ///< e.g. "effective_bandwidth"
  std::string unit;             ///< e.g. "GB/s"
  Direction direction = Direction::higher;
  std::vector<double> samples; ///< every timed sample, in `unit`
  bool verified = false;       ///< output matched the host's answer
  std::string error;           ///< non-empty: the point failed and carries no figure
  json extra = json::object(); ///< experiment-specific facts (bytes moved, launch shape)
  /// Per sample: 0 = used, else why it is left out of the statistics, sample_flag bits
  /// (vocabulary.hpp): 1 SM clock under the threshold, 2 a throttle reason was active, 4 the
  /// clock monitor did not answer. Empty means every sample is used.
  std::vector<uint8_t> excluded;
  std::string stop_reason = stop_fixed;
  bool noisy = false; ///< never reached the confidence target
  /// Hash of GPU model, driver branch, experiment version and the point's PointKey: results
  /// with equal keys may be compared (set by the runner; core/point_key.hpp).
  std::string comparability_key;
  /// What kind of figure it is (core/metric_class.hpp): set from the experiment's declaration
  /// when recorded, stored with the point, read by compare.
  MetricClass metric_class = MetricClass::derived;

  /// The samples the statistics use (all but the excluded ones).
  std::vector<double> used_samples() const;
  /// point_status(*this).ok().
  bool ok() const;
};

/// How many of a point's samples its statistics use and how many were left out (taken under low
/// clocks or throttling): every reader shows both, since a median of 8 samples beside a count of
/// 10 would claim more than it has.
struct SampleCounts {
  std::size_t used = 0, excluded = 0;
  std::size_t taken() const { return used + excluded; }
  /// "10 samples", or "8 samples used, 2 excluded" where some were left out.
  std::string text() const;
};

/// The counts of `m`'s samples, by the same rule as used_samples().
SampleCounts sample_counts(const Measurement& m);

/// What a point is worth, decided in one place for every reader (the run summary, the store,
/// the report, compare): ok (a figure), failed (no figure: an error, a wrong answer, no
/// samples) or excluded (every sample was taken under low clocks or throttling).
enum class PointState { ok, failed, excluded };

struct PointStatus {
  PointState state = PointState::ok;
  std::string reason; ///< the one failure text; empty when ok
  bool ok() const { return state == PointState::ok; }
  /// The stored status word: "ok", or "failed" for a failed or excluded point.
  const char* word() const { return ok() ? "ok" : "failed"; }
};

/// The failure texts, one wording each.
inline constexpr const char* reason_not_verified = "output did not match the host reference";
inline constexpr const char* reason_no_samples = "no samples were taken";
inline constexpr const char* reason_all_excluded =
    "every sample was flagged by the clock monitor (SM clock under the threshold, throttled, or "
    "the monitor not answering)";

/// The point's status: its error if it has one, else a wrong answer, no samples, every sample
/// flagged, in that order.
PointStatus point_status(const Measurement& m);

} // namespace apod
