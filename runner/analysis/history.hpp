// Change points in a history of runs: a robust step detector over each headline series.
//
// Why this method: asv's step detection fits piecewise-constant segments over the whole
// history, which is the best offline answer but re-segments the past as runs arrive; Conbench's
// rule is a z-score of the newest result against a look-back window, which flags single-run
// spikes. apod needs marks that stay put and no alarms for spikes that revert, so it uses a
// look-back window and a confirmation window: run i starts a step when the median of runs
// i..i+confirm-1 differs from the median of the `window` runs before it by more than `z` robust
// standard deviations (1.4826 x MAD, floored at `min_noise_rel` of the level) and by more than
// `min_change_rel`, and every run of the confirmation window lies beyond the old level on the
// same side. A spike of one run cannot satisfy the confirmation window; the price is that a step
// in the newest run is marked only once `confirm` runs show it. Documented in docs/history.md.
#pragma once

#include <vector>

namespace apod {

struct StepDetector {
  int window = 8;               ///< runs before the candidate step that set the old level
  int min_window = 3;           ///< fewer runs before: no decision
  int confirm = 3;              ///< runs from the step on that must all show it (3: a median a spike cannot move)
  double z = 5.0;               ///< robust z-score of the shift
  double min_change_rel = 0.02; ///< and at least this relative change
  double min_noise_rel = 0.002; ///< noise floor, relative to the level
};

struct ChangePoint {
  int index = 0;          ///< first run of the new level
  double before = 0;      ///< level before (median of the window)
  double after = 0;       ///< level after (median of the confirmation window)
  double change_rel = 0;  ///< (after - before) / before
  double z = 0;
};

/// Change points of `series` (one value per run, oldest first).
std::vector<ChangePoint> detect_steps(const std::vector<double>& series, const StepDetector& detector = {});

}  // namespace apod
