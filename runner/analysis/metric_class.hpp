// The four kinds of figure a verdict treats alike: how much a figure of each kind moves from run
// to run, how heavy the tails of those moves are, and whether a change of it can fail a night.
// The numbers are measured on the committed runs (docs/ci.md, "The noise model"; the program
// tests/history/calibrate_compare prints them again and fails when a default here is less
// conservative than what it measures).
#pragma once

#include "core/measurement.hpp"
#include "core/vocabulary.hpp"

namespace apod {

enum class MetricClass {
  device_memory, ///< bandwidths in GB/s on the device (device memory, caches)
  on_chip,       ///< other on-device rates: FLOP/s, bytes per clock (no committed runs yet)
  host_link,     ///< DMA over the host link: pinned, mapped and staged transfers (PCIe limit)
  host_phase,    ///< timings (host phases included) and pageable transfers the CPU copies
  derived,       ///< figures computed from others: fractions, ratios, models, counts
};

inline constexpr MetricClass metric_classes[] = {MetricClass::device_memory, MetricClass::on_chip,
                                                 MetricClass::host_link, MetricClass::host_phase,
                                                 MetricClass::derived};

/// "device_memory", "host_link", "host_phase", "derived" (json, docs).
const char* class_name(MetricClass c);
/// The words a reader sees: "device memory", "host/PCIe transfers", ...
const char* class_phrase(MetricClass c);

/// What the verdicts assume of a class where the history cannot tell. Sigmas are standard
/// deviations of ln(run median), i.e. relative spreads.
struct ClassDefaults {
  double run_sigma;    ///< run-to-run spread of one point on one GPU, used without history
  double device_sigma; ///< spread between GPUs of one model, added when two GPUs are compared
  double tail_df;      ///< heaviest tails allowed: a t reference with at most these df
  bool gated;          ///< a significant slowdown fails the compare (derived figures never do)
};
const ClassDefaults& class_defaults(MetricClass c);

/// The class of a figure, by rule: a metric named "...model..." or whose unit is neither a rate
/// ("/s", "/clk") nor a time is derived; a time (ms, us, ns, s, cycles) or a figure with a
/// parameter "pageable" is host_phase; a GB/s figure read against PCIe (`experiment_limit`, its
/// own limit label, or "pcie"/"h2d"/"d2h" in the metric's name) is host_link, any other GB/s
/// figure device_memory; any other rate is on_chip.
MetricClass metric_class(const Measurement& m, LimitKind experiment_limit);
/// The same with the experiment's limit from the registry (none for an unknown experiment).
MetricClass metric_class(const Measurement& m);

} // namespace apod
