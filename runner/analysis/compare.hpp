// `apod compare`: pairs the measurements of two runs by comparability key and decides, per pair,
// whether the candidate is faster, slower, the same, or whether the data cannot tell.
#pragma once

#include "core/run_record.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace apod {

/// Thresholds for calling a change a regression: the default, and per-experiment overrides.
struct CompareConfig {
  double threshold = 0.05;    ///< relative change beyond which a significant slowdown is a regression
  double alpha = 0.01;        ///< significance level of the Mann-Whitney U test
  int min_samples_for_test = 8;  ///< fewer samples on either side: compare confidence intervals
  std::map<std::string, double> experiment_threshold;
  /// Analysis figures derived from the measured ones (fractions, model estimates, ratios to
  /// another row): compared and shown, never a regression on their own.
  std::set<std::string> ungated_metrics = {"parallel_fraction", "amdahl_limit", "ratio_to_first_row",
                                           "fitted_parallel_fraction", "amdahl_parallel_fraction",
                                           "gustafson_parallel_fraction", "predicted_knee_sm_count",
                                           "model_ms"};

  double threshold_for(const std::string& experiment) const;
};

/// Parses a config file's JSON: {"threshold": 0.05, "alpha": 0.01, "experiments":
/// {"host_transfer": {"threshold": 0.10}}, "ungated_metrics": ["amdahl_limit", ...]}.
/// Throws InputError naming the bad field.
CompareConfig parse_compare_config(const json& doc);

/// Two-sided Mann-Whitney U test with the normal approximation and tie correction; returns the
/// p-value (1 when either side is empty or every value is tied).
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

struct PairResult {
  std::string key, experiment, metric, unit, direction;
  json params;
  double baseline_median = 0, candidate_median = 0;
  double ratio = 0;           ///< candidate / baseline
  double change = 0;          ///< signed relative change in the "better" direction (+ = improvement)
  std::string test;           ///< mann_whitney | ci_overlap
  double p_value = 1;         ///< for mann_whitney
  std::string verdict;        ///< faster | slower | same | inconclusive
  bool regression = false;
  bool gated = true;          ///< false: an analysis figure, never a regression by itself
};

struct Unpaired {
  std::string experiment, metric, reason;  ///< reason: new | removed | not_comparable | failed
  json params;
};

struct Comparison {
  std::string baseline_run, candidate_run;
  std::vector<PairResult> pairs;
  std::vector<Unpaired> unpaired;
  bool regression() const;
};

/// Compares two runs. Only points whose point_status() is ok on both sides are paired; the
/// others are listed as unpaired with the reason "failed".
Comparison compare_runs(const RunRecord& baseline_run, const RunRecord& candidate_run, const CompareConfig& config);

std::string format_text(const Comparison& c);
std::string format_markdown(const Comparison& c);
json to_json(const Comparison& c);

}  // namespace apod
