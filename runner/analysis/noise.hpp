// How much each point moves from run to run on one machine, estimated from the history in a
// database: the unit is the run (a run's median per point), not the sample, because most of a
// point's variance lies between runs. The model, with the numbers that set it, is in docs/ci.md
// ("The noise model"):
//
// - per point and machine (GPU UUID and host), the spread of ln(run median) from the successive
//   differences of its runs in time order (von Neumann's mean square successive difference, which
//   a level change in the history inflates only by one difference, and slow drifts barely), each
//   difference winsorized at 2.5 robust standard deviations so that one run's hiccup (a bulk
//   pinned transfer 5-8% off for a whole point) does not set the point's noise for 30 runs;
//   differences are taken within a segment only (the history, a --repeat batch of candidates),
//   never across the runs being judged;
// - moderated across the points of one experiment's metric on that machine (empirical Bayes,
//   Smyth 2004): a prior proportional to each point's within-run spread of its median (the
//   "trend" of limma), whose weight d0 is estimated from how much the points disagree, so six
//   runs give a usable estimate without pretending the points are alike;
// - without any history, the class default (metric_class.hpp), and always a t reference with at
//   most the class's tail df: host phases have heavier tails than Gaussian noise;
// - per experiment, metric class and machine, the level of the experiment's gated points taken
//   whole: between two successive runs, the median over its points of ln(later / earlier) turned
//   so that positive is slower (at least min_whole_points points); its mean square over the
//   history is the noise of the experiment-wide test (compare.hpp). A transient that moves one
//   or two points (a PCIe hiccup over one 10 ms transfer window) barely moves that median; a
//   whole-run shift of the experiment moves it, and so sets its noise.
#pragma once

#include "analysis/metric_class.hpp"
#include "core/run_record.hpp"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace apod {

/// A run's machine: its GPU's UUID and its host, "GPU-f8207b6e-...@vm".
std::string machine_of(const RunRecord& run);

/// The median of a point's used samples (0 when it has none).
double run_median(const Measurement& m);

enum class NoiseSource {
  history,       ///< this point's own runs on this machine, moderated by its neighbours
  neighbours,    ///< no runs of its own here: the prior from the other points of its metric
  class_default, ///< no history at all: the class default (conservative)
};
const char* noise_source_name(NoiseSource s);

struct NoiseEstimate {
  double sigma = 0; ///< run-to-run standard deviation of ln(run median)
  double df = 0;    ///< degrees of freedom of the t reference (capped at the class's tail df)
  /// The estimate's own df, uncapped: the reference for a measurement that repeats (a hiccup of
  /// one run does not), i.e. the light test of compare.hpp. The class's for class defaults.
  double df_own = 0;
  int runs = 0; ///< runs of this point on this machine behind the estimate
  NoiseSource source = NoiseSource::class_default;
};

/// The newest runs per machine that make its history (NoiseModel::from_runs).
inline constexpr int max_history_runs = 30;

/// An experiment's gated points of one class taken whole need this many points: the median of
/// fewer is one or two points' own figure, already tested as a point.
inline constexpr int min_whole_points = 3;

/// The slowdown of one point between two runs, ln(later / earlier) turned so that positive is
/// slower whatever the metric's direction.
double slowdown_of(const Measurement& m, double earlier, double later);

/// The median of `values` (0 when empty).
double median_of(std::vector<double> values);

class NoiseModel {
public:
  /// No history: every estimate is its class default.
  NoiseModel() = default;
  /// Each segment is a set of runs (any machines, any order) whose successive differences per
  /// machine and point count as run-to-run noise; no difference is taken across segments.
  explicit NoiseModel(const std::vector<std::vector<const RunRecord*>>& segments);
  /// A database's runs: every run not `excluded` nor in `batch` is history (the newest
  /// `max_history_runs` per machine); the runs of `batch` (a --repeat batch judged as one) are a
  /// segment of their own, whose spread is noise whatever level they share.
  static NoiseModel from_runs(const std::vector<const RunRecord*>& runs,
                              const std::set<std::string>& excluded,
                              const std::set<std::string>& batch = {},
                              int history_limit = max_history_runs);
  static NoiseModel from_runs(const std::vector<RunRecord>& runs,
                              const std::set<std::string>& excluded,
                              const std::set<std::string>& batch = {},
                              int history_limit = max_history_runs);
  /// The model for judging `candidate` when the runs `judged` are judged in one compare (a
  /// night): the history is every run not judged, so that runs sharing a regression do not hide
  /// it from each other; on a machine where that leaves fewer than two runs (a database that is
  /// one batch), every run but the candidate.
  static NoiseModel for_candidate(const std::vector<RunRecord>& runs, const std::string& candidate,
                                  const std::set<std::string>& judged);

  /// The noise of point `m` (its comparability key) on `machine`.
  NoiseEstimate estimate(const std::string& machine, const Measurement& m) const;
  /// The run-to-run noise of `experiment`'s gated points of class `c` taken whole on `machine`
  /// (their median slowdown between successive runs); runs == 0 without a history of it. The
  /// other GPUs of its model in the history lend their degrees of freedom: the variance is the
  /// larger of the machine's own and the model's pooled one, the df the pooled ones (a GPU with
  /// a few runs gets the model's tails, never a smaller noise than its own).
  NoiseEstimate estimate_whole(const std::string& machine, const std::string& experiment,
                               MetricClass c) const;
  /// False: the t reference keeps the df as estimated, uncapped by the class's tail df (only to
  /// measure the tails, tests/history/calibrate_compare).
  bool cap_tails = true;
  /// False: a point's and a whole's noise is its own GPU's alone, with no df lent by the other
  /// GPUs of its model (the sibling check judges each GPU on its own run-to-run noise).
  bool lend_across_gpus = true;
  /// Runs of `machine` behind the estimates (the most runs any point has there).
  int runs_on(const std::string& machine) const;

private:
  struct Point {
    double sum_sq_diff = 0, df = 0, within_sum = 0;
    int diffs = 0, runs = 0, within_n = 0;
    std::vector<double> differences; ///< its successive differences, for the robust scale
    double within() const;           ///< mean within-run variance of ln(median)
    /// The run-to-run variance: half the mean square successive difference, each difference
    /// winsorized at 2.5 robust standard deviations (docs/ci.md, "A robust scale").
    double variance() const;
  };
  struct Prior {
    double scale = 0; ///< prior variance = scale x within-run variance of the point
    double d0 = 0;    ///< its weight in degrees of freedom (0: no prior)
  };
  void add_segment(const std::vector<const RunRecord*>& runs);
  void add_wholes(const std::map<std::string, std::vector<double>>& slowdowns,
                  std::map<std::string, int>& runs_in_a_row);
  void fit_priors();
  static std::string group_of(const std::string& machine, const Measurement& m);

  std::map<std::pair<std::string, std::string>, Point> points_;      ///< (machine, key)
  std::map<std::pair<std::string, std::string>, std::string> group_; ///< (machine, key) -> group
  std::map<std::string, Prior> priors_;                              ///< group -> prior
  std::map<std::string, Point> wholes_; ///< machine|experiment|class -> its median slowdowns
  std::map<std::string, int> runs_on_;
  std::map<std::string, std::string> model_of_; ///< machine -> its GPU model
};

} // namespace apod
