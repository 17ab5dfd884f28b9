#include "analysis/metric_class.hpp"

#include "analysis/distributions.hpp"
#include "core/experiment.hpp"

#include <algorithm>

namespace apod {

const char* class_name(MetricClass c) {
  switch (c) {
  case MetricClass::device_memory:
    return "device_memory";
  case MetricClass::on_chip:
    return "on_chip";
  case MetricClass::host_link:
    return "host_link";
  case MetricClass::host_phase:
    return "host_phase";
  case MetricClass::derived:
    break;
  }
  return "derived";
}

const char* class_phrase(MetricClass c) {
  switch (c) {
  case MetricClass::device_memory:
    return "device memory";
  case MetricClass::on_chip:
    return "on-chip and compute rates";
  case MetricClass::host_link:
    return "host/PCIe transfers";
  case MetricClass::host_phase:
    return "host-phase timings";
  case MetricClass::derived:
    break;
  }
  return "derived figures";
}

const ClassDefaults& class_defaults(MetricClass c) {
  // Measured on the committed H200 runs (docs/ci.md, "The noise model"): run_sigma is the largest
  // run-to-run spread of any point of the class over the six-run batch, device_sigma the largest
  // spread between four GPUs of one model beyond it, tail_df the t distribution whose tails match
  // the large moves seen between runs (infinite: Gaussian tails were not exceeded). Rounded to
  // the conservative side; tests/history/calibrate_compare fails if one is not conservative.
  static const ClassDefaults device_memory{0.006, 0.006, infinite_df, true};
  // No committed run measures FLOP rates or bytes per clock yet (and a compute-bound rate follows
  // the SM clock, which boosts differently from run to run): the host/PCIe class's spreads and
  // tails, the heaviest of a gated class with bounded spreads, until runs are committed.
  static const ClassDefaults on_chip{0.035, 0.025, 3.4, true};
  static const ClassDefaults host_link{0.035, 0.025, 3.4, true};
  static const ClassDefaults host_phase{0.55, 0.30, 2.2, true};
  static const ClassDefaults derived{0.40, 0.25, 2.4, false};
  switch (c) {
  case MetricClass::device_memory:
    return device_memory;
  case MetricClass::on_chip:
    return on_chip;
  case MetricClass::host_link:
    return host_link;
  case MetricClass::host_phase:
    return host_phase;
  case MetricClass::derived:
    break;
  }
  return derived;
}

namespace {

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

bool is_time_unit(const std::string& unit) {
  return unit == "ms" || unit == "us" || unit == "ns" || unit == "s" || unit == "cycles";
}

bool is_rate_unit(const std::string& unit) {
  return unit.size() > 2 && (unit.ends_with("/s") || contains(unit, "/clk"));
}

// Pageable host memory: the CPU copies it through a staging buffer, so the figure carries a host
// phase whatever its unit (host_transfer's pageable series, overlap_matrix's pageable rows).
bool pageable(const json& params) {
  return std::any_of(params.begin(), params.end(), [](const json& v) {
    return v.is_string() && v.get<std::string>() == "pageable";
  });
}

bool read_against_pcie(const Measurement& m, LimitKind experiment_limit) {
  if (experiment_limit == LimitKind::pcie)
    return true;
  const auto label = m.extra.find(keys::limit_label);
  if (label != m.extra.end() && label->is_string() && contains(label->get<std::string>(), "PCIe"))
    return true;
  return contains(m.metric, "pcie") || contains(m.metric, "h2d") || contains(m.metric, "d2h");
}

} // namespace

MetricClass metric_class(const Measurement& m, LimitKind experiment_limit) {
  if (contains(m.metric, "model") || !(is_rate_unit(m.unit) || is_time_unit(m.unit)))
    return MetricClass::derived;
  if (is_time_unit(m.unit) || pageable(m.params))
    return MetricClass::host_phase;
  if (m.unit != "GB/s")
    return MetricClass::on_chip;
  return read_against_pcie(m, experiment_limit) ? MetricClass::host_link
                                                : MetricClass::device_memory;
}

MetricClass metric_class(const Measurement& m) {
  const ExperimentInfo* info = find_experiment(m.experiment);
  return metric_class(m, info ? info->chart.limit : LimitKind::none);
}

} // namespace apod
