// fasiha's gist "Understanding overlapping memory transfers and kernel execution for very simple
// CUDA workflows" (shared/seeds/004_...), in two variants: `gist` reproduces its method, and
// `corrected` measures the same 18 rows with each stage between its own events and the host's
// work outside the timers. group.cu runs the trials; this file turns them into measurements.
#include "declaration.hpp"
#include "group.hpp"

#include "core/cuda_check.cuh"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/vocabulary.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace apod {
namespace {

constexpr uint64_t order_seed = 0x0E7A9F; // the rounds' random row order; in every point's extra
// The corrected variant's medians settle well before the gist's 1000 trials; 100 rounds keep the
// stored samples (18 rows x 4-5 series) and the run short.
constexpr int corrected_max_rounds = 100;

using namespace overlap; // its params and metrics

RoundLimits limits_for(Variant v, const SamplingPolicy& policy) {
  RoundLimits l;
  l.warmup_rounds = policy.warmup;
  l.min_rounds = policy.min_samples;
  // The gist's 1000 trials are apod's default max_samples.
  const int cap =
      v == Variant::gist ? policy.max_samples : std::min(policy.max_samples, corrected_max_rounds);
  l.max_rounds = std::max(l.min_rounds, cap);
  l.budget_s = policy.max_point_s;
  return l;
}

// The trial with the smallest used overall time: the gist's best of N.
std::optional<size_t> best_trial(const Series& overall) {
  std::optional<size_t> best;
  for (size_t i = 0; i < overall.size(); ++i)
    if (overall.flag(i) == 0 && (!best || overall.values()[i] < overall.values()[*best]))
      best = i;
  return best;
}

// One row of the gist's table from its best trial: O, K, d = O - K, r = O / (first row's best O).
json gist_table_row(const RowSamples& row, const RowSamples& first) {
  const auto best = best_trial(row.overall_ms), first_best = best_trial(first.overall_ms);
  if (!best || !first_best)
    return nullptr;
  const double o = row.overall_ms.values()[*best], k = row.kernel_ms.values()[*best];
  return {{"trial", *best},
          {"overall_ms", o},
          {"kernel_ms", k},
          {"overhead_ms", o - k},
          {"ratio_to_first_row", o / first.overall_ms.values()[*first_best]}};
}

struct PointContext {
  ExperimentContext& ctx;
  const json& params;
  const json& extra;
  bool verified;
  const std::string& stop_reason;

  void record(const Metric& metric, const Series& series, const json& more = json::object()) const {
    json e = extra;
    e.update(more);
    ctx.record(make_measurement(params, metric, series, verified, std::move(e)));
  }
  // A derived series (zip) carries no stop reason of its own: it takes the group's.
  Series finished(Series s) const {
    finish_series(s, stop_reason, ctx.options.sampling);
    return s;
  }
  void record_bandwidth(const Metric& metric, const Series& times_ms, double bytes,
                        double limit_gbs, const char* limit_label) const {
    json more = {{keys::bytes_moved, bytes}};
    if (limit_gbs > 0) // 0: the link is unknown
      more.update({{keys::limit_gbs, limit_gbs}, {keys::limit_label, limit_label}});
    record(metric, bandwidth_gbs(times_ms, bytes), more);
  }
};

double median_of(const std::vector<double>& v) {
  return summarize(v).median;
}

void record_row(const PointContext& p, Variant variant, const RowSamples& row,
                const RowSamples& first, bool mapped, double bytes, double pcie_gbs) {
  p.record(overall_ms, row.overall_ms);
  p.record(kernel_ms, row.kernel_ms);
  const Series ratio = p.finished(
      Series::zip(row.overall_ms, first.overall_ms, [](double o, double o1) { return o / o1; }));
  if (variant == Variant::gist) {
    const Series overhead = p.finished(
        Series::zip(row.overall_ms, row.kernel_ms, [](double o, double k) { return o - k; }));
    p.record(overhead_ms, overhead);
    p.record(ratio_to_first_row, ratio);
    return;
  }
  p.record(ratio_to_first_row, ratio);
  if (mapped) {
    // The kernel reads every element from host memory and writes it back: 2 x 4 bytes over
    // the link per element, both directions at once (Best Practices Guide 9.1.3).
    p.record_bandwidth(mapped_pcie_bandwidth, row.kernel_ms, 2 * bytes, 2 * pcie_gbs,
                       pcie_both_directions_phrase);
    return;
  }
  p.record(h2d_ms, row.h2d_ms);
  p.record(d2h_ms, row.d2h_ms);
  const char* per_direction = limit_phrase(LimitKind::pcie);
  p.record_bandwidth(h2d_bandwidth, row.h2d_ms, bytes, pcie_gbs, per_direction);
  p.record_bandwidth(d2h_bandwidth, row.d2h_ms, bytes, pcie_gbs, per_direction);
}

void measure(ExperimentContext& ctx, Variant variant, size_t n) {
  const std::vector<Row> rows = rows_of(variant_name(variant), n, ctx.options.quick);
  const RoundOrder random = [&](uint64_t round) {
    return round_order(order_seed, round, rows.size());
  };
  const GroupSamples g = run_group(variant, n, rows, limits_for(variant, ctx.options.sampling),
                                   ctx.options.sampling, random);
  const double bytes = double(n * sizeof(float));
  for (size_t r = 0; r < rows.size(); ++r) {
    const Row& row = rows[r];
    const RowSamples& s = g.rows[r];
    const json params = row_params(variant_name(variant), n, row);
    json extra = {{"gist_row", r + 1},
                  {"bytes", n * sizeof(float)},
                  {"block_dim", 256},
                  {"grid_dim", n / 256},
                  {"elements_wrong", s.check.wrong},
                  {"worst_error_over_tolerance", s.check.worst_error_over_tolerance},
                  {"rounds", g.rounds},
                  {"warmup_rounds", g.warmup_rounds},
                  {"warmup_stable", g.warmup_stable},
                  {"order_seed", order_seed}};
    const RowSamples& first = g.rows[first_row_of_kernel(rows, r)];
    if (variant == Variant::gist) {
      extra["gist_best"] = gist_table_row(s, first);
      extra["host_init_ms_median"] = median_of(s.host_init_ms);
    }
    if (!s.stage_gaps_ms.empty())
      extra["stage_gaps_ms_median"] = median_of(s.stage_gaps_ms);
    const PointContext point{ctx, params, extra, s.check.wrong == 0, g.stop_reason};
    record_row(point, variant, s, first, row.mapped, bytes,
               ctx.device.theoretical_pcie_gbs().value_or(0));
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  int can_map = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, ctx.device.ordinal));
  if (!can_map)
    throw ExperimentSkipped("the device cannot map host memory, which the mapped rows need");
  measure(ctx, Variant::gist, gist_n);
  measure(ctx, Variant::corrected, gist_n);
  measure(ctx, Variant::corrected, ctx.options.quick ? quick_large_n : large_n);
}

} // namespace

APOD_EXPERIMENT(overlap::experiment, run);

} // namespace apod
