// fasiha's gist "Understanding overlapping memory transfers and kernel execution for very simple
// CUDA workflows" (shared/seeds/004_...), in two variants: `gist` reproduces its method, and
// `corrected` measures the same 18 rows with each stage between its own events and the host's
// work outside the timers. group.cu runs the trials; this file turns them into measurements.
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
constexpr size_t gist_n = 16 * 1024;      // the gist's N
constexpr size_t large_n = size_t(4) << 20, quick_large_n = size_t(256) << 10;
// The corrected variant's medians settle well before the gist's 1000 trials; 100 rounds keep the
// stored samples (18 rows x 4-5 series) and the run short.
constexpr int corrected_max_rounds = 100;

const Metric overall_ms{"overall_ms", "ms", Direction::lower};
const Metric kernel_ms{"kernel_ms", "ms", Direction::lower};
const Metric overhead_ms{"overhead_ms", "ms", Direction::lower};
const Metric h2d_ms{"h2d_ms", "ms", Direction::lower};
const Metric d2h_ms{"d2h_ms", "ms", Direction::lower};
const Metric ratio_to_first_row{"ratio_to_first_row", "x", Direction::lower};
const Metric h2d_bandwidth{"h2d_bandwidth", "GB/s", Direction::higher};
const Metric d2h_bandwidth{"d2h_bandwidth", "GB/s", Direction::higher};
const Metric mapped_pcie_bandwidth{"mapped_pcie_bandwidth", "GB/s", Direction::higher};

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

void measure(ExperimentContext& ctx, Variant variant, size_t n, const std::vector<Row>& rows) {
  const RoundOrder random = [&](uint64_t round) {
    return round_order(order_seed, round, rows.size());
  };
  const GroupSamples g = run_group(variant, n, rows, limits_for(variant, ctx.options.sampling),
                                   ctx.options.sampling, random);
  const double bytes = double(n * sizeof(float));
  for (size_t r = 0; r < rows.size(); ++r) {
    const Row& row = rows[r];
    const RowSamples& s = g.rows[r];
    const json params = {{"variant", variant_name(variant)},
                         {"n", n},
                         {"kernel", kernel_name(row.kernel)},
                         {"pinned", int(row.pinned)},
                         {"mapped", int(row.mapped)},
                         {"new_stream", int(row.new_stream)},
                         {"config", row.config()}};
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
  const std::vector<Row> rows = gist_rows();
  measure(ctx, Variant::gist, gist_n, rows);
  measure(ctx, Variant::corrected, gist_n, rows);
  measure(ctx, Variant::corrected, ctx.options.quick ? quick_large_n : large_n, rows);
}

// Grouped bars per row of the gist's table, one panel per variant and size (their scales differ
// ~100x). The report draws this with the overall_ms points as data.values.
json chart_spec() {
  const json x = {{"field", "params.config"},
                  {"type", "ordinal"},
                  {"sort", nullptr},
                  {"title", "host memory / stream"},
                  {"axis", {{"labelAngle", -35}}}};
  const json offset = {{"field", "params.kernel"}, {"sort", nullptr}};
  const json colour = {
      {"field", "params.kernel"}, {"type", "nominal"}, {"sort", nullptr}, {"title", "kernel"}};
  const json tooltip = json::array({{{"field", "point_text"}, {"title", "point"}},
                                    {{"field", "median_text"}, {"title", "median"}},
                                    {{"field", "range_text"}, {"title", "min – max"}},
                                    {{"field", "n"}, {"title", "samples"}}});
  const json bars = {
      {"mark", {{"type", "bar"}, {"tooltip", true}}},
      {"encoding",
       {{"x", x},
        {"xOffset", offset},
        {"color", colour},
        {"tooltip", tooltip},
        {"y", {{"field", "median"}, {"type", "quantitative"}, {"title", "median"}}}}}};
  const json range = {{"mark", {{"type", "rule"}, {"opacity", 0.6}}},
                      {"encoding",
                       {{"x", x},
                        {"xOffset", offset},
                        {"y", {{"field", "min"}, {"type", "quantitative"}}},
                        {"y2", {{"field", "max"}}}}}};
  const std::string panel = "datum.params.variant + ', ' + (datum.params.n >= 1048576"
                            " ? format(datum.params.n / 1048576, '~g') + ' Mi floats'"
                            " : format(datum.params.n / 1024, '~g') + ' Ki floats')";
  // A top-level width sizes each panel; without one the report asks for "container", which a
  // faceted chart cannot use.
  return {{"width", 280},
          {"transform", json::array({{{"calculate", panel}, {"as", "panel"}}})},
          {"facet",
           {{"field", "panel"},
            {"type", "ordinal"},
            {"sort", nullptr},
            {"title", "variant, elements"}}},
          {"columns", 3},
          {"spec", {{"height", 220}, {"layer", json::array({bars, range})}}},
          {"resolve", {{"scale", {{"y", "independent"}}}}}};
}

} // namespace

APOD_EXPERIMENT(ExperimentInfo{
    .name = "overlap_matrix",
    .title = "Transfers and kernels: pageable, pinned, mapped; default or new stream (gist and "
             "corrected)",
    .description =
        "fasiha's gist on overlapping transfers with kernel execution, in two variants. Both run "
        "the gist's "
        "three in-place float kernels (fast: -2.3f x; medium: asinf; slow: log10f(expf(asinf))) on "
        "its input "
        "sin(i + 3.93123f), held in pageable, pinned, or pinned and device-mapped host memory "
        "(mapped: the "
        "kernel reads and writes host memory over PCIe, no copies), from the default stream or a "
        "new one: "
        "the gist's 18 rows. variant=gist follows the gist's method at its 16 Ki elements: each "
        "trial creates "
        "its stream, host and device memory and events; overall_ms (the gist's O) runs from an "
        "event recorded "
        "before the host writes the input with sin() to an event after the D2H copy, so it "
        "includes the "
        "host's writing (extra.host_init_ms_median); kernel_ms (K) is the pair of events around "
        "the launch "
        "alone (its start passes when the copy before it ends, so K includes any wait for the host "
        "to submit "
        "the launch); overhead_ms (d) is O - K per trial; ratio_to_first_row (r) is O over the O "
        "of the "
        "kernel's first row (mapped, default stream) in the same round. The gist keeps the trial "
        "with the "
        "smallest O and prints that trial's K and d: extra.gist_best holds them, with r from the "
        "two rows' "
        "best O. The gist runs 1000 trials per row; here trials go on to at most 1000 per row "
        "(--max-samples) or until the variant has used the per-point time cap (--point-time-cap, 1 "
        "s), at "
        "least --min-samples; extra.rounds is the count. variant=corrected writes the input before "
        "any event, "
        "allocates once, and times each stage between its own events: h2d_ms, kernel_ms, d2h_ms, "
        "and "
        "overall_ms from the H2D copy's start to the D2H copy's end (a mapped row's only stage is "
        "its "
        "kernel; extra.stage_gaps_ms_median is overall minus the stages). It runs at 16 Ki and at "
        "4 Mi "
        "elements (16 MiB; 256 Ki with --quick), at most 100 rounds, and gives the copies' "
        "h2d_bandwidth and "
        "d2h_bandwidth against the PCIe line rate per direction and, for mapped rows, "
        "mapped_pcie_bandwidth: "
        "the 8 bytes per element the kernel reads and writes over PCIe over kernel_ms, against the "
        "line rate "
        "of both directions. In both variants every round runs one trial of each row, in an order "
        "drawn at "
        "random for that round (extra.order_seed), after warm-up rounds that last until two "
        "rounds' total "
        "times are within 10% of the fastest round (at least 2 and the sampling warm-up, 3 or 1 "
        "with --quick; "
        "at most 20; extra.warmup_rounds and warmup_stable), so no row's figure depends on its "
        "position. Every trial's output is checked on "
        "the host against a float64 reference, within a tolerance from the conditioning of each "
        "kernel's "
        "float evaluation and the CUDA maximum ulp errors (docs/method.md; "
        "extra.worst_error_over_tolerance); "
        "the inputs are the gist's, unchanged. Version 1's parallel_fraction (K / O) and "
        "amdahl_limit are "
        "gone: K / O is the kernel's share of one trial, not Amdahl's P (the share of a program's "
        "serial run "
        "time that can be parallelised). Other differences from the gist: apod destroys each "
        "trial's stream "
        "(the gist leaks it), asks for the L1 preference per kernel rather than for the device, "
        "and stores "
        "true milliseconds (the gist prints event ms x 1000 under 'ms').",
    .citation =
        "fasiha, \"Understanding overlapping memory transfers and kernel execution for very simple "
        "CUDA workflows\", GitHub gist b4c9bfbb919ffd95bdf6 (2014); CUDA C++ Best Practices Guide "
        "9.1.1-9.1.3; CUDA C++ Programming Guide, Mathematical Functions (maximum ulp errors)",
    .version = 2,
    .order = 30,
    .chart = {.metric = "overall_ms",
              .x = "config",
              .x_title = "host memory / stream",
              .color = "kernel",
              .mark = "bar",
              .limit = LimitKind::none,
              .vega_lite = chart_spec()},
    .run = run,
});

} // namespace apod
