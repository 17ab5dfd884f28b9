// overlap_matrix's declaration: the gist's table as grouped bars, one panel per variant and size.
#include "declaration.hpp"

#include "reference.hpp"

namespace apod::overlap {

Metric timing(const char* name, const char* title) {
  return {.name = name,
          .unit = "ms",
          .direction = Direction::lower,
          .metric_class = MetricClass::host_phase,
          .title = title};
}

Metric link_rate(const char* name) {
  return Metric{.name = name,
                .unit = "GB/s",
                .direction = Direction::higher,
                .metric_class = MetricClass::host_link,
                .limit = LimitKind::pcie}
      .with_case({.key = pinned.key,
                  .equals = 0,
                  .then = MetricClass::host_phase,
                  .why = "the CPU copies pageable memory through a staging buffer"})
      .with_case({.key = "bytes",
                  .below = 16.0 * 1024 * 1024,
                  .then = MetricClass::host_phase,
                  .why = "under 16 MiB a transfer's fixed cost dominates"});
}

json row_params(const char* variant_name, size_t elements, const Row& row) {
  return {{variant.key, variant_name},
          {n.key, elements},
          {kernel.key, kernel_name(row.kernel)},
          {pinned.key, int(row.pinned)},
          {mapped.key, int(row.mapped)},
          {new_stream.key, int(row.new_stream)},
          {config.key, row.config()},
          {host_buffer.key, row.host_buffer()}};
}

std::vector<Row> rows_of(const std::string& variant_name, size_t elements, bool quick) {
  const bool large = elements == (quick ? quick_large_n : large_n);
  return variant_name == "corrected" && large ? with_cold_rows(gist_rows()) : gist_rows();
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  const std::pair<const char*, size_t> groups[] = {
      {"gist", gist_n}, {"corrected", gist_n}, {"corrected", in.quick ? quick_large_n : large_n}};
  for (const auto& [name, elements] : groups)
    for (const Row& row : rows_of(name, elements, in.quick)) {
      PlannedPoint p{row_params(name, elements, row), {overall_ms.name, kernel_ms.name}};
      if (std::string(name) == "gist")
        p.metrics.insert(p.metrics.end(), {overhead_ms.name, ratio_to_first_row.name});
      else if (row.mapped)
        p.metrics.insert(p.metrics.end(), {ratio_to_first_row.name, mapped_pcie_bandwidth.name});
      else
        p.metrics.insert(p.metrics.end(), {ratio_to_first_row.name, h2d_ms.name, d2h_ms.name,
                                           h2d_bandwidth.name, d2h_bandwidth.name});
      points.push_back(std::move(p));
    }
  return points;
}

Chart bars_chart() {
  Chart c = Chart::bars_of(overall_ms).along(config).colour(kernel);
  c.panels = {variant.key, n.key, host_buffer.key};
  c.y_title = "overall time, median (ms)";
  c.limits = false;
  c.says("Overall time of each of the gist's 18 rows (host memory and stream across, a bar per "
         "kernel), one panel per variant, size and host buffer, each on its own scale; gist: "
         "the gist's O, from before the host writes the input to after the copy back; "
         "corrected: from the H2D start to the D2H end",
         {"The gist's K (kernel_ms of variant gist) brackets the launch of a 16 Ki-element "
          "kernel alone: it is the launch latency, the same for the fast, medium and slow "
          "kernels, not their work; the corrected variant's kernel_ms at 4 Mi elements is the "
          "kernel's."});
  return c;
}

Chart h2d_chart() {
  Chart c = Chart::bars_of(h2d_bandwidth).along(config).colour(host_buffer);
  c = c.only_where(variant, "corrected");
  c.panels = {n.key, kernel.key};
  c.y_title = "H2D copy, median (GB/s)";
  c.says("The corrected variant's H2D copy rate per host memory and stream, a bar per host "
         "buffer: just_written, the input the host wrote with memcpy just before the copy (the "
         "gist's and the corrected rows), against cold, a buffer written once before the first "
         "round and untouched by the CPU since (at 4 Mi elements only)",
         {"A DMA read of lines the CPU still holds dirty in its caches waits for the CPU: the "
          "just_written rate measures the host's caches as much as the link; the cold rate is "
          "the link's."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Transfers and kernels: pageable, pinned, mapped; default or new stream (gist and "
             "corrected)",
    .description =
        "fasiha's gist on overlapping transfers with kernels, in two variants. Both run its three "
        "in-place float kernels (fast: -2.3f x; medium: asinf; slow: log10f(expf(asinf))) on its "
        "input sin(i + 3.93123f) in pageable, pinned, or pinned and mapped host memory (zero "
        "copy: the kernel reads and writes host memory over PCIe), from the default stream or a "
        "new one: the gist's 18 rows. variant=gist follows the gist at its 16 Ki elements, "
        "creating stream, memory and events per trial: overall_ms (its O) runs from before the "
        "host writes the input with sin() to after the D2H copy, so it includes that writing; "
        "kernel_ms (K) brackets the launch alone; overhead_ms (d) is O - K; ratio_to_first_row "
        "(r) is O over the kernel's first row (mapped, default stream) in the same round. "
        "extra.gist_best is the gist's own figure: O, K, d and r of the trial with the smallest "
        "O. The gist runs 1000 trials a row; here at most 1000 (--max-samples) or fewer once the "
        "variant has used --point-time-cap (extra.rounds). variant=corrected writes the input "
        "before any event, allocates once and times each stage between its own events (h2d_ms, "
        "kernel_ms, d2h_ms; overall_ms from the H2D start to the D2H end), at 16 Ki and 4 Mi "
        "elements (256 Ki with --quick), with the copies' h2d_bandwidth and d2h_bandwidth against "
        "the PCIe line rate per direction and, for mapped rows, mapped_pcie_bandwidth (8 bytes "
        "per element over kernel_ms) against the line rate of both directions. Every round runs "
        "one trial of each row in an order drawn at random for that round (extra.order_seed), "
        "after warm-up rounds that last until the rounds' times stop falling "
        "(extra.warmup_rounds), so no row's figure depends on its position. Every trial's output "
        "is checked against a float64 reference within a tolerance from the conditioning of each "
        "kernel's float evaluation and the CUDA ulp bounds (docs/method.md), on the gist's "
        "unchanged input. At 4 Mi elements the corrected variant also runs each copy row (pinned "
        "and pageable) with "
        "host_buffer=cold: its H2D copy reads a second host buffer of the same kind, written "
        "once before the first round and untouched by the CPU since, and its D2H copy lands in "
        "the row's usual buffer; every other row has host_buffer=just_written (the host wrote "
        "the input just before the copy). Version 1's parallel_fraction (K / O) and amdahl_limit "
        "are dropped: K / "
        "O is the kernel's share of one trial, not Amdahl's P. Times are true milliseconds (the "
        "gist prints event ms x 1000 under 'ms').",
    .citation =
        "fasiha, \"Understanding overlapping memory transfers and kernel execution for very simple "
        "CUDA workflows\", GitHub gist b4c9bfbb919ffd95bdf6 (2014); CUDA C++ Best Practices Guide "
        "9.1.1-9.1.3; CUDA C++ Programming Guide, Mathematical Functions (maximum ulp errors)",
    .version = 3,
    .order = 30,
    .chapter = Chapter::concurrency_launch,
    .params = {variant, n, kernel, pinned, mapped, new_stream, config, host_buffer},
    .metrics = {overall_ms, kernel_ms, overhead_ms, ratio_to_first_row, h2d_ms, d2h_ms,
                h2d_bandwidth, d2h_bandwidth, mapped_pcie_bandwidth},
    .extras = {{"gist_row", "the row's place in the gist's table"},
               {"bytes", "bytes of the array"},
               {"block_dim", "threads per block"},
               {"grid_dim", "blocks"},
               {"elements_wrong", "elements outside the tolerance"},
               {"worst_error_over_tolerance", "the worst error over its tolerance"},
               {"rounds", "rounds measured"},
               {"warmup_rounds", "rounds run before the first measured one"},
               {"warmup_stable", "whether the warm-up ended with the times steady"},
               {"order_seed", "the seed of each round's random row order"},
               {"gist_best", "the gist's own figure: O, K, d and r of the fastest trial"},
               {"host_init_ms_median", "the host writing the input, inside the overall time"},
               {"stage_gaps_ms_median", "the overall time less the three stages"}},
    .headline = overall_ms.name,
    .charts = {bars_chart(), h2d_chart()},
    .plan = plan,
});

} // namespace apod::overlap
