// How the scaling experiment turns its timed series into records: the GPU phases' speed-up and
// efficiency curves with their models, the memory-bound curve's bandwidth and knee, and the
// Amdahl and Gustafson curves with their fitted parallel fractions. Host-only (Series,
// make_measurement), so what is stored is unit-tested without a GPU (test_record.cpp).
#pragma once

#include "core/experiment.hpp"
#include "core/series.hpp"
#include "declaration.hpp"
#include "fit.hpp"
#include "model.hpp"

#include <string>
#include <vector>

namespace apod::scaling {

/// `base` with every key of `more` set (an extra's facts plus a point's own).
json merged(json base, const json& more);

/// One partition's times for one curve, one sample per repetition (sample r of every point was
/// taken in the same pass over the points), and whether its output matched the host's answer.
struct PartitionSeries {
  int sm_count = 0;
  double n = 1; ///< SMs over the base (smallest) partition's SMs
  Series ms;
  bool verified = false;
  json extra = json::object(); ///< facts stored with each of the point's records
};

/// Records a GPU phase's curve (params curve, sm_count): kernel_ms, speedup over the first
/// point (the base partition) sample by sample, and efficiency = speedup / N; each speedup and
/// efficiency carries extra.model_speedup = model_speedup[i].
void record_phase_curve(ExperimentContext& ctx, const std::string& curve,
                        const std::vector<PartitionSeries>& points,
                        const std::vector<double>& model_speedup);

/// Where the memory-bound model's limit came from.
struct DramLimit {
  double gbs = 0;
  std::string source; ///< e.g. "achievable_peak of peak_copy, this run"
};

/// The memory-bound model from the base partition's median bandwidth (model.hpp).
BandwidthModel memory_model(const PartitionSeries& base, double bytes_moved, DramLimit limit);

/// Records the memory curve's effective bandwidth per point (read against the theoretical DRAM
/// bandwidth, extra.model_gbs beside it) and predicted_knee_sm_count: one knee per repetition
/// from that repetition's base bandwidth, with the knee measured from the medians in extra.
void record_memory_bandwidth(ExperimentContext& ctx, const std::vector<PartitionSeries>& points,
                             double bytes_moved, DramLimit limit, double theoretical_gbs);

/// A serial phase of another length for Amdahl's law: `scale` times the reference's work,
/// timed alone (its median held fixed like the reference's).
struct SerialLevel {
  double scale = 1;
  double ms = 0;
};

/// One law's curve: the serial phase's median, held fixed, and per point the parallel phase on
/// the base partition (`base`) and on the point's partition (`points`). Amdahl: a fixed problem,
/// so every base entry is the base partition's own series. Gustafson: the problem grown N-fold,
/// timed on the base partition and on N times its SMs.
struct LawInputs {
  ScalingLaw law = ScalingLaw::amdahl;
  double serial_ms = 0;
  std::vector<PartitionSeries> base, points;
  json facts = json::object(); ///< stored with the fitted fraction (the partitions, the sizes)
  /// Amdahl only: the same GPU times with serial phases of other lengths (curves
  /// amdahl_curve(scale)), fitted together with the reference's.
  std::vector<SerialLevel> other_serial;
};

/// The curve name of Amdahl's workload with `scale` times the reference serial work: "amdahl"
/// for 1, else "amdahl_serial_x" and the scale ("amdahl_serial_x0.1", "amdahl_serial_x10").
std::string amdahl_curve(double scale);

/// Records the law's curve(s): speedup = (serial + base) / (serial + point) per repetition and
/// efficiency, each with the fitted law's value and the residual in extra; for Gustafson also
/// kernel_ms and base_partition_ms. N is the SM ratio, a design quantity: taking it from the
/// parallel phase's own times made Amdahl's fit an identity (fit.hpp identity_check). Amdahl
/// fits one P over the reference and every other serial level (fit_amdahl_across_serial).
/// Then the fitted parallel fraction under its own metric (one fit per repetition as samples;
/// the fit of the medians with its standard error, 95% interval, residuals, runs test and
/// identity check in extra), and for Amdahl the limit 1 / (1 - P) with its standard error.
void record_law(ExperimentContext& ctx, const LawInputs& in);

/// Records the serial phase timed alone (params phase host; another length: host_x<scale>),
/// the value held fixed.
void record_serial_phase(ExperimentContext& ctx, const Series& ms, size_t elements,
                         double scale = 1.0);

} // namespace apod::scaling
