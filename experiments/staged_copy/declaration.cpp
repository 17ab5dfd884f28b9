// staged_copy's declaration: the staged copy's time against nStreams beside the guide's model and
// the sequential version.
#include "declaration.hpp"

namespace apod::staged {

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points = {
      {{{n_streams.key, 1}, {mode.key, "alone"}},
       {transfer_ms.name, h2d_bandwidth.name, kernel_ms.name}},
      {{{n_streams.key, 1}, {mode.key, "sequential"}},
       {total_ms.name, model_ms.name, parallel_fraction.name, amdahl_limit.name}}};
  for (const int n : stream_counts) {
    if (n > 1)
      points.push_back({{{n_streams.key, n}, {mode.key, "chunk"}},
                        {chunk_transfer_ms.name, h2d_bandwidth.name}});
    points.push_back({{{n_streams.key, n}, {mode.key, "staged"}},
                      {total_ms.name, model_ms.name, parallel_fraction.name}});
  }
  return points;
}

Chart total_chart() {
  Chart c = Chart::sweep_of(total_ms)
                .along(n_streams, true, 2)
                .only_where(mode, "staged")
                .model(model_ms, "the guide's model, tT(n) from the chunk's own copy");
  c.y_title = "time from the first copy to the last kernel (ms)";
  c.limits = false;
  c.rules.push_back({.from = RuleSpec::From::metric,
                     .metric = total_ms.name,
                     .only = {mode.key, "sequential"},
                     .label = "sequential (whole copy, then kernel)",
                     .kind = "baseline"});
  c.caption_figures = {{transfer_ms.name, "tT (copy alone)"},
                       {kernel_ms.name, "tE (kernel alone)"}};
  c.says("The staged copy's time from the first copy to the last kernel against nStreams",
         {"Dashed: the guide's model, tE + tT(n) / nStreams when the kernel is the longer, else "
          "tT(n) + tE / nStreams (Best Practices Guide 9.1.2), with tT(n) = nStreams x the "
          "copy of one chunk (256 MiB / nStreams) timed alone: small copies run slower per "
          "byte, so the whole array's tT would under-estimate the stages; dotted: the sequential "
          "version, the whole copy then the kernel, measured."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Staged concurrent copy and execute (nStreams)",
    .description =
        "The Best Practices Guide's overlap of a host-to-device copy with a kernel: one 256 MiB "
        "array in pinned memory, copied and processed sequentially (the whole copy, then the "
        "kernel) or in nStreams = 1..32 stages, each stream copying its chunk and running the "
        "kernel on it. transfer_ms (tT) and kernel_ms (tE) are the copy and the kernel alone over "
        "the whole array; h2d_bandwidth is the copy's rate. The kernel does a calibrated number "
        "of dependent integer multiply-adds per element so that tE matches the measured tT (the "
        "guide assumes them comparable); the count and the calibration runs are in extra. "
        "total_ms is the sequential or staged version from first copy to last kernel. mode=chunk "
        "has chunk_transfer_ms, one stage's chunk (256 MiB / nStreams) copied alone (each "
        "sample the next chunk of the array, in turn), and its rate. model_ms is the guide's "
        "estimate, tE + tT(n) / nStreams when tE > tT(n), else "
        "tT(n) + tE / nStreams (tE + tT for the sequential version), with tT(n) = nStreams x "
        "the chunk's copy (tT(1) = tT), computed per sample pair: the i-th chunk sample with "
        "the i-th tE sample (extra.transfer_n_ms: tT(n) from the medians). parallel_fraction P is "
        "tE over the configuration's total (i-th with "
        "i-th); for the sequential version amdahl_limit is 1 / (1 - P), the speed-up left if "
        "only the kernel got faster. In the staged versions the copy hides behind the kernel (or "
        "the kernel behind the copy), so P there is the share of the total the kernel covers and "
        "may reach 1 within timing noise; they record no amdahl_limit, since the copy alone (tT) "
        "bounds that speed-up. A sequential pair whose tE sample exceeds its total (a late "
        "launch) has no limit and is left out of amdahl_limit, counted in "
        "extra.pairs_without_limit. Every point's output is checked on the host, element by "
        "element, against the closed form of the kernel's work.",
    .citation = "CUDA C++ Best Practices Guide 9.1.2 (Staged concurrent copy and execute) and "
                "3.1.3.1 (Amdahl's law)",
    .version = 2,
    .order = 40,
    .chapter = Chapter::concurrency_launch,
    .params = {n_streams, mode},
    .metrics = {transfer_ms, chunk_transfer_ms, h2d_bandwidth, kernel_ms, total_ms, model_ms,
                parallel_fraction, amdahl_limit},
    .extras = {{"bytes", "bytes of the array"},
               {"words", "words of the array"},
               {"kernel_iterations", "the kernel's calibrated multiply-adds per element"},
               {"calibration_iterations_ms", "the calibration runs"},
               {"threads_per_block", "the kernel's block size"},
               {"copy_engines", "the device's copy engines"},
               {"chunk_bytes", "bytes each stream copies"},
               {"elements_wrong", "elements wrong, on the host"},
               {"pairs_without_limit", "sample pairs with P >= 1 and no Amdahl limit"},
               {transfer_n_key, "tT(n): nStreams x the median copy of one chunk alone"}},
    .headline = total_ms.name,
    .charts = {total_chart()},
    .plan = plan,
});

} // namespace apod::staged
