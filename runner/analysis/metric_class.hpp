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
  /// The smallest slowdown of a figure of the class that the gate must be able to see
  /// (CompareOptions::threshold_for): a change within it is never a regression, and a point or
  /// experiment whose detectable change exceeds it is inconclusive, not "the same". --threshold
  /// and a --config file set one value for every class (docs/ci.md, "Three outcomes").
  double threshold;
  /// Without any history of the machine, an experiment's figures of the class taken whole (their
  /// median) slower by this much gate on their own: far beyond any spread between runs or GPUs
  /// of one model that the committed runs show (docs/ci.md, "Gross changes"). Any single gated
  /// point twice as slow gates too (gross_point).
  double gross_whole;
  /// Its heavy tails are single-run transients (a bulk transfer's hiccup, a 4 ms window shifted)
  /// that a re-measure does not repeat: the light test may flag a slowdown for `apod confirm`,
  /// and a confirmed one gates; the class decides whether a run is conclusive. Host-phase
  /// timings are not: their level moves for several runs at a time (the first runs of a session
  /// 30-50% slower), which re-measuring minutes later repeats; they gate on the heavy test alone
  /// and their inconclusive figures are listed without making the run inconclusive.
  bool confirmable;
};

/// A gated point of a confirmable class measured cleanly and at least this much slower (2x) is a
/// regression, with or without history: no run-to-run or GPU-to-GPU spread of those classes in
/// the committed runs comes near. Host-phase timings do move 2-3.5x between runs (docs/ci.md).
inline constexpr double gross_point = 1.0;
const ClassDefaults& class_defaults(MetricClass c);

} // namespace apod
