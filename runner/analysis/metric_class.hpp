// What a verdict assumes of each kind of figure (core/metric_class.hpp; an experiment declares
// its metrics' classes, the store keeps each point's): how much a figure of each kind moves
// from run to run, how heavy the tails of those moves are, and whether a change of it can fail
// a night.
// The numbers are measured on the committed runs (docs/ci.md, "The numbers that set the defaults";
// the program tests/history/calibrate_compare prints them again and fails when a default here is
// less conservative than what it measures).
#pragma once

#include "core/metric_class.hpp"

namespace apod {

/// What the verdicts assume of a class where the history cannot tell. Sigmas are standard
/// deviations of ln(run median), i.e. relative spreads.
struct ClassDefaults {
  double run_sigma;    ///< run-to-run spread of one point on one GPU, used without history
  double device_sigma; ///< spread between GPUs of one model, added when two GPUs are compared
  double tail_df;      ///< heaviest tails allowed: a t reference with at most these df
  bool gated;          ///< a significant slowdown fails the compare (derived figures never do)
};
const ClassDefaults& class_defaults(MetricClass c);

} // namespace apod
