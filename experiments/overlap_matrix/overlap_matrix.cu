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
        {"y", {{"field", "median"}, {"type", "quantitative"}, {"title", "overall ms, median"}}}}}};
  const json range = {{"mark", {{"type", "rule"}, {"opacity", 0.6}}},
                      {"encoding",
                       {{"x", x},
                        {"xOffset", offset},
                        {"y", {{"field", "min"}, {"type", "quantitative"}}},
                        {"y2", {{"field", "max"}}}}}};
  const std::string panel = "datum.params.variant + ', ' + (datum.params.n >= 1048576"
                            " ? format(datum.params.n / 1048576, '~g') + ' Mi floats'"
                            " : format(datum.params.n / 1024, '~g') + ' Ki floats')";
  // Panels in the order measured: the gist first, then the corrected variant by size.
  const std::string panel_order = "(datum.params.variant == 'gist' ? 0 : 1e12) + datum.params.n";
  const json transform = json::array({{{"calculate", panel}, {"as", "panel"}},
                                      {{"calculate", panel_order}, {"as", "panel_order"}}});
  // Each panel's width is set in the inner spec (three fit the page side by side): the report
  // gives "container" only to single views, which a faceted chart is not.
  return {{"transform", transform},
          {"facet",
           {{"field", "panel"},
            {"type", "ordinal"},
            {"sort", {{"field", "panel_order"}, {"op", "min"}}},
            {"title", nullptr}}},
          {"columns", 3},
          {"spec", {{"width", 220}, {"height", 220}, {"layer", json::array({bars, range})}}},
          {"resolve", {{"scale", {{"y", "independent"}}}}}};
}

} // namespace

APOD_EXPERIMENT(ExperimentInfo{
    .name = "overlap_matrix",
    .title = "Transfers and kernels: pageable, pinned, mapped; default or new stream (gist and "
             "corrected)",
    .description =
        "fasiha's gist on overlapping transfers with kernels, in two variants. Both run its three "
        "in-place "
        "float kernels (fast: -2.3f x; medium: asinf; slow: log10f(expf(asinf))) on its input "
        "sin(i + 3.93123f) "
        "in pageable, pinned, or pinned and mapped host memory (zero copy: the kernel reads and "
        "writes host "
        "memory over PCIe), from the default stream or a new one: the gist's 18 rows. variant=gist "
        "follows "
        "the gist at its 16 Ki elements, creating stream, memory and events per trial: overall_ms "
        "(its O) "
        "runs from before the host writes the input with sin() to after the D2H copy, so it "
        "includes that "
        "writing; kernel_ms (K) brackets the launch alone; overhead_ms (d) is O - K; "
        "ratio_to_first_row (r) "
        "is O over the kernel's first row (mapped, default stream) in the same round. "
        "extra.gist_best is the "
        "gist's own figure: O, K, d and r of the trial with the smallest O. The gist runs 1000 "
        "trials a row; "
        "here at most 1000 (--max-samples) or fewer once the variant has used --point-time-cap "
        "(extra.rounds). variant=corrected writes the input before any event, allocates once and "
        "times each "
        "stage between its own events (h2d_ms, kernel_ms, d2h_ms; overall_ms from the H2D start to "
        "the D2H "
        "end), at 16 Ki and 4 Mi elements (256 Ki with --quick), with the copies' h2d_bandwidth "
        "and "
        "d2h_bandwidth against the PCIe line rate per direction and, for mapped rows, "
        "mapped_pcie_bandwidth "
        "(8 bytes per element over kernel_ms) against the line rate of both directions. Every "
        "round runs one "
        "trial of each row in an order drawn at random for that round (extra.order_seed), after "
        "warm-up "
        "rounds that last until the rounds' times stop falling (extra.warmup_rounds), so no row's "
        "figure "
        "depends on its position. Every trial's output is checked against a float64 reference "
        "within a "
        "tolerance from the conditioning of each kernel's float evaluation and the CUDA ulp bounds "
        "(docs/method.md), on the gist's unchanged input. Version 1's parallel_fraction (K / O) "
        "and "
        "amdahl_limit are dropped: K / O is the kernel's share of one trial, not Amdahl's P. Times "
        "are true "
        "milliseconds (the gist prints event ms x 1000 under 'ms').",
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
