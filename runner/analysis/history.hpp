// Change points in a history of runs: lasting steps and slow drifts of one point's run medians,
// per machine (GPU UUID and host) or, for an overview, per GPU model.
//
// Why this method: asv fits piecewise-constant segments to the whole history, the best offline
// answer, but it re-segments the past as runs arrive; Conbench scores the newest result against a
// look-back window, which flags one-run spikes. apod wants marks that stay put and no alarm for
// an excursion that reverts, so a step at run i needs (docs/history.md):
// - the median of the confirmation window (runs i..i+confirm-1) to differ from the median of
//   the look-back window (up to `window` runs before i, at least `min_window`) by more than z
//   noise units and more than min_change_rel of the level, the noise being the largest of the
//   look-back window's MAD and the winsorised spread of successive differences around the
//   candidate (and, in a series of more than 20 runs, of the whole series), floored at
//   min_noise_rel;
// - every run of the confirmation window on the new side of the midpoint: an excursion that
//   reverts within the window is not a step;
// - both windows to be levels, not slopes (a ramp is a drift, a window holding an excursion no
//   level to step from).
// Slow drifts are found by a two-sided CUSUM (Page 1954) of the standardised deviations from the
// level of each segment's first runs, each clipped to +-3 noise units (Lucas and Crosier 1982) so
// one wild run cannot raise the alarm alone, confirmed by the alarm run and the `confirm` runs
// after it staying displaced.
#pragma once

#include "core/run_record.hpp"

#include <string>
#include <vector>

namespace apod {

struct StepDetector {
  int window = 8;               ///< runs before the candidate step that set the old level
  int min_window = 3;           ///< fewer runs before: no decision
  int confirm = 5;              ///< runs from the step on that must all show it
  double z = 5.0;               ///< shift in noise units
  double min_change_rel = 0.02; ///< and at least this relative change
  double min_noise_rel = 0.002; ///< noise floor, relative to the level
};

struct ChangePoint {
  int index = 0;         ///< first run of the new level
  double before = 0;     ///< level before (median of the look-back window)
  double after = 0;      ///< level after (median of the confirmation window)
  double change_rel = 0; ///< (after - before) / before
  double z = 0;          ///< shift in noise units
};

/// Lasting steps of `series` (one value per run, oldest first; values > 0).
std::vector<ChangePoint> detect_steps(const std::vector<double>& series,
                                      const StepDetector& detector = {});

struct DriftDetector {
  int reference_runs = 5;       ///< runs that set a segment's reference level
  double k = 0.5;               ///< CUSUM allowance, in noise units
  double h = 5.0;               ///< CUSUM decision interval, in noise units
  double clip = 3.0;            ///< each deviation counts at most this many noise units
  int confirm = 4;              ///< runs after the alarm that must stay displaced (a 4-run
                                ///< excursion that reverts does not)
  double min_change_rel = 0.01; ///< a drift smaller than this by its alarm is not reported
  double min_noise_rel = 0.001; ///< noise floor, relative to the level
};

struct Drift {
  int start = 0;          ///< first run of the drift (where the CUSUM last left zero)
  int alarm = 0;          ///< the run at which the drift was certain
  double before = 0;      ///< reference level
  double after = 0;       ///< level at the alarm (median of the alarm and confirmation runs)
  double change_rel = 0;  ///< (after - before) / before
  double per_run_rel = 0; ///< Theil-Sen slope from start to alarm, relative, per run
};

/// Slow drifts of `series`, looked for between the steps detect_steps() finds.
std::vector<Drift> detect_drifts(const std::vector<double>& series,
                                 const DriftDetector& detector = {},
                                 const StepDetector& steps = {});
/// The same between `steps` already found in `series`.
std::vector<Drift> detect_drifts(const std::vector<double>& series,
                                 const std::vector<ChangePoint>& steps,
                                 const DriftDetector& detector = {});

/// Whose history a series is: one machine (a GPU's UUID and its host), or every GPU of a model
/// pooled (an overview; machines differ, so marks there may be machine changes).
enum class SeriesLevel { machine, model };

struct HistorySeries {
  std::string scope; ///< "GPU-...@host" (machine) or the GPU model
  std::string key;   ///< the comparability key
  std::string experiment, metric, unit;
  Direction direction = Direction::higher;
  json params;
  std::vector<std::string> run_ids; ///< oldest first
  std::vector<double> medians;      ///< run medians, one per run
  std::vector<ChangePoint> steps;
  std::vector<Drift> drifts;
};

/// Every point's series over `runs` (ok points only), in start order, with its steps and drifts.
std::vector<HistorySeries> history_series(const std::vector<RunRecord>& runs, SeriesLevel level,
                                          const StepDetector& steps = {},
                                          const DriftDetector& drifts = {});

} // namespace apod
