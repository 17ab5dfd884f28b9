// fasiha's gist "Understanding overlapping memory transfers and kernel execution for very simple
// CUDA workflows" (shared/seeds/004_...): three in-place kernels (fast, medium, slow) run on data
// held in pageable, pinned, or pinned and device-mapped host memory, in the default stream or a
// new one. One trial, with the gist's event placement: overall timer start; the host writes the
// input; H2D copy (unless mapped); kernel timer around the launch alone; D2H copy (unless mapped);
// overall timer stop; synchronise. The gist keeps the best of 1000 trials and prints event
// milliseconds x 1000 under a "ms" heading, so its figures are microseconds; apod stores every
// trial, in milliseconds, and the report shows the median and the minimum (the gist's "best").
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/theory.hpp"
#include "core/sampling.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace apod {
namespace {

constexpr int block_dim = 256;  // the gist's BLOCK_DIM (its occupancy-calculator choice)

// The gist's three kernels, unchanged: int index, no bounds check (n is a multiple of block_dim).
__global__ void kernel_fast(float* data) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  data[i] = -2.3f * data[i];
}
__global__ void kernel_medium(float* data) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  data[i] = asinf(data[i]);
}
__global__ void kernel_slow(float* data) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  data[i] = log10f(expf(asinf(data[i])));
}

enum class Kernel { fast, medium, slow };
constexpr Kernel kernels[] = {Kernel::fast, Kernel::medium, Kernel::slow};
const char* kernel_name(Kernel k) { return k == Kernel::fast ? "fast" : k == Kernel::medium ? "medium" : "slow"; }

void launch(Kernel k, float* data, size_t n, cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>(n / block_dim);
  if (k == Kernel::fast) kernel_fast<<<grid, block_dim, 0, stream>>>(data);
  if (k == Kernel::medium) kernel_medium<<<grid, block_dim, 0, stream>>>(data);
  if (k == Kernel::slow) kernel_slow<<<grid, block_dim, 0, stream>>>(data);
  APOD_CUDA_LAUNCH();
}

// The gist's kernelVerifyHost: the same float expressions, computed by the host's libm.
float host_reference(Kernel k, float x) {
  if (k == Kernel::fast) return -2.3f * x;
  if (k == Kernel::medium) return std::asin(x);
  return std::log10(std::exp(std::asin(x)));
}

// The gist's initializeData writes sin(i + 3.93123f). Its check divides by the expected value,
// and in float log10(exp(asin(x))) keeps no relative precision near x = 0 (exp rounds to 1 + y):
// at 16 Mi elements thousands of inputs would sit where one ulp of difference between the GPU's
// and the host's expf exceeds the tolerance. Folding |x| into [0.25, 1] keeps the gist's values'
// shape and signs, never zero, and keeps its check meaningful for every element.
float input_value(size_t i) {
  const float s = std::sin(float(i) + 3.93123f);
  return std::copysign(0.25f + 0.75f * std::fabs(s), s);
}

// One row of the gist's table. Its `combinations` array, in its order.
struct Row {
  bool pinned, mapped, new_stream;
  const char* config;  // the row's label on the chart's x axis
};
constexpr Row rows[] = {
    {true, true, false, "mapped/default"},  {true, false, false, "pinned/default"},
    {false, false, false, "pageable/default"}, {true, true, true, "mapped/new"},
    {true, false, true, "pinned/new"},      {false, false, true, "pageable/new"},
};

// The host and device sides of one row's data. The gist allocates per trial, outside its timer;
// here once per row, so pageable pages are already resident when a trial writes them.
struct RowMemory {
  std::unique_ptr<PinnedBuffer<float>> pinned;
  std::vector<float> pageable;
  DeviceBuffer<float> device;
  float* host = nullptr;
  float* device_view = nullptr;  // what the kernel reads: device memory, or the mapped host pages

  RowMemory(const Row& row, size_t n) {
    if (row.pinned) {
      pinned = std::make_unique<PinnedBuffer<float>>(n, row.mapped ? cudaHostAllocMapped : cudaHostAllocDefault);
      host = pinned->get();
    } else {
      pageable.assign(n, 0.0f);
      host = pageable.data();
    }
    if (row.mapped) {
      APOD_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_view), host, 0));
    } else {
      device = DeviceBuffer<float>(n);
      device_view = device.get();
    }
  }
};

// The host's share of a trial: writing the input. A single thread copying 64 MiB takes longer
// than PCIe takes to move it, which would hide the transfers the large size is there to show,
// so large inputs are written by all host cores (starting threads costs more than 64 KiB).
void write_input(float* host, const std::vector<float>& input) {
  const size_t bytes = input.size() * sizeof(float);
  if (bytes < (size_t(4) << 20)) {
    std::memcpy(host, input.data(), bytes);
    return;
  }
  parallel_count(input.size(), [&](size_t b, size_t e) {
    std::memcpy(host + b, input.data() + b, (e - b) * sizeof(float));
    return size_t(0);
  });
}

// The gist's check: every element within 500 x FLT_EPSILON relative error. Written so that a
// NaN fails it too (the gist's `relErr > relTol` lets NaN through).
size_t count_wrong(const float* got, const std::vector<float>& expected) {
  const float tolerance = 500 * std::numeric_limits<float>::epsilon();
  return parallel_count(expected.size(), [&](size_t b, size_t e) {
    size_t bad = 0;
    for (size_t i = b; i < e; ++i) bad += !(std::abs((got[i] - expected[i]) / expected[i]) <= tolerance);
    return bad;
  });
}

struct RowSamples {
  std::vector<double> overall_ms, kernel_ms, host_init_ms;
  std::vector<uint8_t> excluded;  // the monitor's flags per trial, for every figure of the trial
  size_t wrong = 0;  // elements that failed the check, summed over all trials
};

RowSamples run_row(const ExperimentContext& ctx, Kernel k, const Row& row, const std::vector<float>& input,
                   const std::vector<float>& expected) {
  const size_t n = input.size();
  const size_t bytes = n * sizeof(float);
  RowMemory memory(row, n);
  OwnedStream stream(row.new_stream);
  EventPair overall, kernel;
  RowSamples out;
  const int trials = ctx.options.sampling.warmup + ctx.options.sampling.min_samples;
  for (int t = 0; t < trials; ++t) {
    overall.start(stream.get());
    const auto init_start = std::chrono::steady_clock::now();
    write_input(memory.host, input);
    const double init_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - init_start).count();
    if (!row.mapped)
      APOD_CUDA(cudaMemcpyAsync(memory.device_view, memory.host, bytes, cudaMemcpyHostToDevice, stream.get()));
    kernel.start(stream.get());
    launch(k, memory.device_view, n, stream.get());
    kernel.stop(stream.get());
    if (!row.mapped)
      APOD_CUDA(cudaMemcpyAsync(memory.host, memory.device_view, bytes, cudaMemcpyDeviceToHost, stream.get()));
    overall.stop(stream.get());
    const double overall_ms = overall.elapsed_ms();  // waits for the overall stop, as the gist does
    const double kernel_ms = kernel.elapsed_ms();
    const bool warmup = t < ctx.options.sampling.warmup;
    const uint8_t flags = warmup ? 0 : ctx.options.sampling.check_sample();  // clocks as the trial ended
    // Each trial rewrites the input first, so a skipped kernel or copy leaves values that fail.
    out.wrong += count_wrong(memory.host, expected);
    if (warmup) continue;
    out.excluded.push_back(flags);
    out.overall_ms.push_back(overall_ms);
    out.kernel_ms.push_back(kernel_ms);
    out.host_init_ms.push_back(init_ms);
  }
  return out;
}

Measurement measurement_of(const json& params, const char* metric, const char* unit, Direction direction,
                           std::vector<double> samples, const std::vector<uint8_t>& excluded, const json& extra,
                           bool verified) {
  Measurement m;
  m.params = params;
  m.metric = metric;
  m.unit = unit;
  m.direction = direction;
  m.samples = std::move(samples);
  m.verified = verified;
  m.extra = extra;
  apply_fixed_exclusions(m, excluded);
  return m;
}

void sweep(ExperimentContext& ctx, size_t n, int& gist_row) {
  std::vector<float> input(n), expected(n);
  parallel_count(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) input[i] = input_value(i);
    return size_t(0);
  });
  for (const Kernel k : kernels) {
    parallel_count(n, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) expected[i] = host_reference(k, input[i]);
      return size_t(0);
    });
    double first_row_median_ms = 0;  // r divides by the median O of the kernel's first row
    for (const Row& row : rows) {
      const RowSamples s = run_row(ctx, k, row, input, expected);
      const bool verified = s.wrong == 0;
      const size_t count = s.overall_ms.size();
      std::vector<double> overhead(count), ratio(count), fraction(count), limit(count);
      const auto used = [&](const std::vector<double>& v) { return summarize(used_values(v, s.excluded)); };
      if (first_row_median_ms == 0) first_row_median_ms = used(s.overall_ms).median;
      for (size_t i = 0; i < count; ++i) {
        overhead[i] = s.overall_ms[i] - s.kernel_ms[i];
        ratio[i] = s.overall_ms[i] / first_row_median_ms;
        // Amdahl's "Assess" step: P is the share of the workflow that is the parallel kernel.
        fraction[i] = s.kernel_ms[i] / s.overall_ms[i];
        limit[i] = amdahl_limit(fraction[i]);
      }
      const json params = {{"n", n}, {"kernel", kernel_name(k)}, {"pinned", int(row.pinned)},
                           {"mapped", int(row.mapped)}, {"new_stream", int(row.new_stream)},
                           {"config", row.config}};
      json extra = {{"gist_row", ++gist_row}, {"bytes", n * sizeof(float)}, {"block_dim", block_dim},
                    {"grid_dim", n / block_dim}, {"host_init_ms_median", used(s.host_init_ms).median},
                    {"elements_wrong", s.wrong}};
      const auto lower = Direction::lower, higher = Direction::higher;
      ctx.record(measurement_of(params, "overall_ms", "ms", lower, s.overall_ms, s.excluded, extra, verified));
      ctx.record(measurement_of(params, "kernel_ms", "ms", lower, s.kernel_ms, s.excluded, extra, verified));
      ctx.record(measurement_of(params, "overhead_ms", "ms", lower, overhead, s.excluded, extra, verified));
      extra["first_row_median_overall_ms"] = first_row_median_ms;
      ctx.record(measurement_of(params, "ratio_to_first_row", "x", lower, ratio, s.excluded, extra, verified));
      ctx.record(measurement_of(params, "parallel_fraction", "1", higher, fraction, s.excluded, extra, verified));
      ctx.record(measurement_of(params, "amdahl_limit", "x", higher, limit, s.excluded, extra, verified));
    }
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  // The gist asks the whole device to prefer L1 over shared memory; asking per kernel does the
  // same for these kernels without changing the device for the experiments that follow.
  APOD_CUDA(cudaFuncSetCacheConfig(kernel_fast, cudaFuncCachePreferL1));
  APOD_CUDA(cudaFuncSetCacheConfig(kernel_medium, cudaFuncCachePreferL1));
  APOD_CUDA(cudaFuncSetCacheConfig(kernel_slow, cudaFuncCachePreferL1));
  int gist_row = 0;
  sweep(ctx, size_t(16) * 1024, gist_row);  // the gist's N
  if (!ctx.options.quick) sweep(ctx, size_t(16) << 20, gist_row);  // 64 MiB: transfers dominate
}

// Grouped bars per row of the gist's table, one panel per size (their scales differ ~100x).
// The report draws this once per metric with that metric's points as data.values.
json chart_spec() {
  const json x = {{"field", "params.config"}, {"type", "ordinal"}, {"sort", nullptr},
                  {"title", "host memory / stream"}, {"axis", {{"labelAngle", -35}}}};
  const json offset = {{"field", "params.kernel"}, {"sort", nullptr}};
  const json colour = {{"field", "params.kernel"}, {"type", "nominal"}, {"sort", nullptr}, {"title", "kernel"}};
  const json tooltip = json::array({{{"field", "point_text"}, {"title", "point"}},
                                    {{"field", "median_text"}, {"title", "median"}},
                                    {{"field", "range_text"}, {"title", "min – max"}},
                                    {{"field", "n"}, {"title", "samples"}}});
  const json bars = {{"mark", {{"type", "bar"}, {"tooltip", true}}},
                     {"encoding", {{"x", x}, {"xOffset", offset}, {"color", colour}, {"tooltip", tooltip},
                                   {"y", {{"field", "median"}, {"type", "quantitative"}, {"title", "median"}}}}}};
  const json range = {{"mark", {{"type", "rule"}, {"opacity", 0.6}}},
                      {"encoding", {{"x", x}, {"xOffset", offset},
                                    {"y", {{"field", "min"}, {"type", "quantitative"}}}, {"y2", {{"field", "max"}}}}}};
  const json header = {{"labelExpr", "datum.value >= 1048576 ? format(datum.value / 1048576, '~g') + ' Mi floats'"
                                     " : format(datum.value / 1024, '~g') + ' Ki floats'"}};
  // A top-level width sizes each panel; without one the report asks for "container", which a
  // faceted chart cannot use.
  return {{"width", 280},
          {"facet", {{"column", {{"field", "params.n"}, {"type", "ordinal"}, {"title", "elements"}, {"header", header}}}}},
          {"spec", {{"height", 220}, {"layer", json::array({bars, range})}}},
          {"resolve", {{"scale", {{"y", "independent"}}}}}};
}

}  // namespace

APOD_EXPERIMENT(ExperimentInfo{
    .name = "overlap_matrix",
    .title = "Transfers and kernels: pageable, pinned, mapped; default or new stream",
    .description =
        "A reproduction of fasiha's gist on overlapping transfers with kernel execution. Three in-place "
        "kernels on floats (fast: -2.3x; medium: asinf; slow: log10f(expf(asinf))) run on data in "
        "pageable, pinned, or pinned and device-mapped host memory (mapped: the kernel reads and writes "
        "host memory over PCIe, no copies), in the default stream or a new one, in the gist's row "
        "order, at the gist's 16 Ki elements and at 16 Mi (64 MiB, where transfers dominate). "
        "overall_ms (the gist's O) runs from an event recorded before the host writes the input, "
        "through the H2D copy, kernel and D2H copy, to an event after them; kernel_ms (K) is the "
        "launch alone (its start event passes as soon as the copy before it ends, so where the host is "
        "still submitting the launch, as after a short pinned copy, K includes that gap); overhead_ms is "
        "O - K per trial; ratio_to_first_row is each trial's O over the "
        "median O of the kernel's first row (mapped, default stream) at the same size, the gist's r. "
        "parallel_fraction P = K / O and amdahl_limit 1 / (1 - P) are Amdahl's Assess step: the "
        "speed-up left if only the kernel got faster. Every trial is checked on the host with the "
        "gist's test (relative error within 500 x FLT_EPSILON; NaN fails). Differences from the gist: "
        "inputs are its sin(i + 3.93123) with |x| folded into [0.25, 1], since near 0 the slow "
        "kernel's float result has no relative precision to check; the host writes the input by "
        "copying precomputed values (all cores at 16 Mi); memory and streams are allocated once per "
        "row, not per trial; times are true milliseconds (the gist's 'ms' are microseconds); the "
        "minimum of the samples is the gist's best-of-N figure.",
    .citation = "fasiha, \"Understanding overlapping memory transfers and kernel execution for very simple "
                "CUDA workflows\", GitHub gist b4c9bfbb919ffd95bdf6 (2014); CUDA C++ Best Practices Guide "
                "9.1.1-9.1.3 and 3.1.3.1 (Amdahl's law)",
    .version = 1,
    .order = 30,
    .chart = {.metric = "overall_ms", .x = "config", .x_title = "host memory / stream", .color = "kernel",
              .mark = "bar", .limit = LimitKind::none, .vega_lite = chart_spec()},
    .run = run,
});

}  // namespace apod
