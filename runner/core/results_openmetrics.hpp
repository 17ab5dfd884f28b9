// A run's figures as OpenMetrics text (https://github.com/OpenObservability/OpenMetrics, the
// exposition format Prometheus scrapes; DCGM's exporter names GPU metrics that way):
// `apod export --format openmetrics`, e.g. for node_exporter's textfile collector.
#pragma once

#include "core/run_record.hpp"

#include <string>

namespace apod {

/// "gb_per_s" from "GB/s": a unit as an OpenMetrics name suffix (lower case, "/" as "_per_",
/// "%" as "percent", any other character outside [a-z0-9] as "_"); "ratio" for the
/// dimensionless "1" and "x"; "" for no unit.
std::string openmetrics_unit(const std::string& unit);

/// "apod_effective_bandwidth_gb_per_s": a metric family's name, apod_<metric>_<unit>, every
/// character outside [a-zA-Z0-9_] as "_"; the unit is not repeated where the metric already ends
/// with it ("latency_ns" in ns: apod_latency_ns).
std::string openmetrics_family(const std::string& metric, const std::string& unit);

/// `run` as an OpenMetrics exposition: one gauge family per metric and unit, declared once
/// (# TYPE, # UNIT where the figure has one, # HELP) with all its samples together, each sample
/// the median of a point's used samples with the labels device, gpu_uuid, host, run, experiment
/// and one per parameter (its name sanitised, "param_" put before a name that another label
/// already has); the text ends with "# EOF". Label values and help text are stored text made
/// visible as terminal_text does, then escaped (\\, \"). Failed points carry no figure and are
/// left out; a point whose labels would repeat another's in its family gets a point_key label.
std::string openmetrics_text(const RunRecord& run);

} // namespace apod
