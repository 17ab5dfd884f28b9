// copy_engines' declaration: each copy alone, both at once and beside a device-memory-bound
// kernel, the guide's cpuFunction() overlap, and staged_copy's model at the measured copy rate.
#include "declaration.hpp"

#include "staged_copy/declaration.hpp"

#include <iterator>

namespace apod::engines {

size_t buffer_bytes(bool quick) {
  return quick ? size_t(16) << 20 : size_t(256) << 20;
}

const std::vector<int>& staged_stream_counts() {
  static const std::vector<int> all = [] {
    std::vector<int> counts;
    for (const int n : staged::stream_counts)
      if (n > 1) // one stream copies, then computes: nothing overlaps, no slowdown applies
        counts.push_back(n);
    return counts;
  }();
  return all;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  const auto point = [](const char* c, const char* s) -> json {
    return {{config.key, c}, {stream.key, s}};
  };
  for (const DeviceConfig& c : device_configs) {
    const int works = int(c.h2d) + int(c.d2h) + int(c.kernel);
    // A stream beside others has its rate over its rate alone.
    std::vector<std::string> copy = {copy_bandwidth.name}, kernel = {kernel_bandwidth.name};
    if (works > 1) {
      copy.push_back(rate_ratio.name);
      kernel.push_back(rate_ratio.name);
    }
    if (c.h2d)
      points.push_back({point(c.name, streams::h2d), copy});
    if (c.d2h)
      points.push_back({point(c.name, streams::d2h), copy});
    if (c.kernel)
      points.push_back({point(c.name, streams::kernel), kernel});
    if (c.h2d && c.d2h)
      points.push_back(
          {point(c.name, streams::copies), {total_copy_bandwidth.name, bidirectional_ratio.name}});
  }
  points.push_back({point(configs::cpu_overlap, streams::cpu), {host_time_ms.name}});
  points.push_back({point(configs::cpu_overlap, streams::gpu), {host_time_ms.name}});
  points.push_back(
      {point(configs::cpu_overlap, streams::both), {host_time_ms.name, overlap_fraction.name}});
  for (const char* c : staged_rate_configs)
    for (const int n : staged_stream_counts()) {
      json params = point(c, streams::staged);
      params[n_streams.key] = n;
      points.push_back({params, {staged_model_ms.name, staged_residual.name}, staged_when});
    }
  return points;
}

Chart copy_chart() {
  Chart c = Chart::bars_of(copy_bandwidth).along(config).colour(stream);
  c.y_title = "one copy's rate, median (GB/s)";
  c.says("Each copy's rate (256 MiB from or to pinned memory) alone and beside the other copy "
         "and the kernel, a bar per direction",
         {"Each stream's rate is its bytes over the time between its own events. The guide "
          "(9.1.2): a GPU with two copy engines copies host to device and device to host at once "
          "while kernels run; its asyncEngineCount is in each point's extra (copy_engines)."});
  return c;
}

Chart total_chart() {
  Chart c = Chart::sweep_of(total_copy_bandwidth).along(config);
  c.mark = "bar";
  c.y_title = "both copies' total rate, median (GB/s)";
  c.says("Both copies' bytes over the time from their start to the later one's end, against the "
         "PCIe line rate of both directions");
  return c;
}

Chart ratio_chart() {
  Chart c = Chart::bars_of(rate_ratio).along(config).colour(stream);
  c.y_title = "rate beside the others / rate alone";
  c.limits = false;
  c.says("Each stream's rate beside the other work over its rate alone (sample i with sample i)",
         {"1: the stream keeps its rate alone; the kernel shares DRAM with the copies' DMA."});
  return c;
}

Chart bidirectional_chart() {
  Chart c = Chart::sweep_of(bidirectional_ratio).along(config);
  c.mark = "bar";
  c.y_title = "total / (H2D alone + D2H alone)";
  c.limits = false;
  c.says("Both copies at once: their total rate over the sum of each direction's rate alone",
         {"1: two copy engines each at their one-direction rate; 0.5: the copies take turns."});
  return c;
}

Chart kernel_chart() {
  Chart c = Chart::sweep_of(kernel_bandwidth).along(config);
  c.mark = "bar";
  c.y_title = "the kernel's bytes read + written per second, median (GB/s)";
  c.says("The device-memory-bound kernel's rate alone and beside the copies");
  return c;
}

Chart cpu_chart() {
  Chart c = Chart::sweep_of(host_time_ms).along(stream).only_where(config, configs::cpu_overlap);
  c.mark = "bar";
  c.y_title = "host time, issue to synchronise, median (ms)";
  c.limits = false;
  c.says("The guide's cpuFunction() example: the host loop alone (cpu), the asynchronous copy "
         "and the kernel alone (gpu), and all three issued as the guide does (both)",
         {"Fully overlapped, both is the longer of cpu and gpu; run in turn, their sum "
          "(overlap_fraction in the points)."});
  return c;
}

Chart staged_chart() {
  Chart c = Chart::sweep_of(staged_residual).along(n_streams, true, 2).colour(config);
  c.mark = "point";
  c.y_title = "staged_copy's total / model - 1";
  c.limits = false;
  c.says("staged_copy's measured total against its model with the copy at the H2D rate measured "
         "here beside the kernel (h2d_kernel) and beside the kernel and the D2H copy "
         "(h2d_d2h_kernel)",
         {"The guide's model (9.1.2) takes the copy's rate alone; here tT(n) is staged_copy's own "
          "nStreams x chunk time, slowed by this run's H2D time beside the other work over its "
          "time alone. No bound is claimed: the residual is drawn for reading."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Copy engines: H2D, D2H and a kernel at once; cpuFunction() overlap",
    .description =
        "The Best Practices Guide's asynchronous transfers (9.1.2) on the device's copy engines "
        "(asyncEngineCount, extra.copy_engines). Three kinds of work on their own streams, each "
        "on 256 MiB buffers (16 MiB with --quick): a host-to-device copy from pinned memory, a "
        "device-to-host copy into pinned memory, and a device-memory-bound kernel (each pass "
        "reads one buffer and writes another, 16-byte words, each buffer the copies' size or "
        "four times the L2 if larger, extra.kernel_bytes; as many passes as make it last "
        "1.25 times the H2D copy alone, extra.kernel_passes, so that it runs through both "
        "copies at once). config names what runs at once: each "
        "alone (h2d, d2h, kernel), both copies (h2d_d2h), the H2D copy beside the kernel "
        "(h2d_kernel), and all three (h2d_d2h_kernel). The streams fork from one origin stream "
        "whose events bracket the sample (extra.span_ms, median); each stream's own events time "
        "its work: copy_bandwidth (stream h2d or d2h) and kernel_bandwidth (stream kernel, bytes "
        "read plus written) are its bytes over that time, rate_ratio that rate over the same "
        "stream's rate alone (sample i with sample i). With both copies (stream copies), "
        "total_copy_bandwidth is both copies' bytes over the time from the first start to the "
        "later copy's end, and bidirectional_ratio that total over the sum of the two "
        "directions alone. Every sample is checked: the H2D copy reads the pinned source from "
        "an offset that changes each sample and every word landed is compared on the device "
        "with the position's value; the D2H source is refilled each sample with a new seed and "
        "every word landed is compared by the device through the pinned buffer's mapping (the "
        "first and last 4 Ki words again on the host; the CPU writes the H2D source only "
        "through a copy and reads no more of the destination, so neither copy waits for lines "
        "the cores hold); the kernel's output (its input xor a key of the "
        "sample and pass) is compared on the device. config cpu_overlap is the guide's example: "
        "cudaMemcpyAsync of the H2D buffer, a kernel pass over it, then cpuFunction() on the "
        "host, a chain of dependent 64-bit multiply-adds calibrated to last about as long as the "
        "copy, its result checked against its closed form. host_time_ms (steady clock, host "
        "phases) of the host loop alone (stream cpu), the copy and kernel alone from issue to "
        "synchronise (gpu), and all three (both); overlap_fraction is (cpu + gpu - both) / "
        "min(cpu, gpu). When staged_copy ran earlier in the run, its model (the guide's "
        "estimate with tT(n) = nStreams x its chunk time) is recomputed with the copy slowed by "
        "the H2D time measured here beside other work over the time alone (configs h2d_kernel "
        "and h2d_d2h_kernel): staged_model_ms, and staged_residual, staged_copy's measured "
        "total over it less 1 (nStreams 2 to 32: with one stream nothing overlaps).",
    .citation = "CUDA C++ Best Practices Guide 9.1.2 (Asynchronous and Overlapping Transfers with "
                "Computation: cpuFunction(), asyncEngineCount, staged concurrent copy and "
                "execute); CUDA Runtime API, cudaDeviceProp::asyncEngineCount",
    .version = 1,
    .order = 45,
    .chapter = Chapter::concurrency_launch,
    .params = {config, stream, n_streams},
    .metrics = {copy_bandwidth, total_copy_bandwidth, kernel_bandwidth, rate_ratio,
                bidirectional_ratio, host_time_ms, overlap_fraction, staged_model_ms,
                staged_residual},
    .extras = {{"bytes", "bytes of each copy"},
               {"kernel_bytes", "bytes of the kernel's input and of its output"},
               {"copy_engines", "the device's asyncEngineCount"},
               {"kernel_passes", "the kernel's launches per sample, each one pass"},
               {"threads_per_block", "the kernel's block size"},
               {"blocks", "the kernel's grid size"},
               {"span_ms", "median time from the first stream's start to the last one's end"},
               {"elements_wrong", "words (or host results) wrong, over every sample"},
               {"cpu_iterations", "cpuFunction()'s dependent steps"},
               {"staged_total_ms", "staged_copy's measured total at this nStreams (median)"},
               {"staged_model_alone_ms", "staged_copy's own model at this nStreams (median)"},
               {"staged_chunk_ms", "staged_copy's chunk copied alone (median)"},
               {"staged_kernel_ms", "staged_copy's kernel alone (median)"},
               {"copy_slowdown", "median H2D time beside the other work over alone"}},
    .headline = bidirectional_ratio.name,
    .charts = {copy_chart(), total_chart(), kernel_chart(), ratio_chart(), bidirectional_chart(),
               cpu_chart(), staged_chart()},
    .plan = plan,
});

} // namespace apod::engines
