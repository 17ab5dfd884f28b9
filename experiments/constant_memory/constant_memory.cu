// Constant memory against the unique addresses a warp asks for (CUDA C++ Best Practices Guide,
// shared/seeds/000_..., 9.2.6: "accesses to different addresses by threads within a warp are
// serialized, thus the cost scales linearly with the number of unique addresses read by all
// threads within a warp"; one address "can be as fast as a register access"; Stich's slides,
// seed 001: 32 bits per warp per clock per multiprocessor on GT200). A throughput kernel fills
// every SM and reads a 1 KB table, k lane groups at k distinct columns of a row, from a
// __constant__ array, from a register (the value computed: the same index arithmetic, no load)
// and from global memory (ld.global and __ldg of the same words); the figure is warp reads per
// clock per SM from each SM's cycle counter. A chase kernel runs one warp whose lanes follow k
// chains through the table, the latency per dependent step in cycles. The law cost(k) = a + b k
// is fitted per source on the host (law.cpp); every sum and every end of chain is checked.
#include "../bank_conflicts/model.hpp" // bytes_per_clock_per_sm: per-SM rates from block clocks
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/sampling.hpp"
#include "core/series.hpp"
#include "declaration.hpp"
#include "law.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace apod::constant_memory;

constexpr int block_size = 256;
constexpr int chase_threads = 32; // one warp

__constant__ uint32_t c_table[table_words];
__constant__ uint32_t c_chain[table_words];

enum class Source { constant, registers, global, ldg };

// The operand of read (row, column): the same value from every source.
template <Source S>
__device__ __forceinline__ uint32_t operand(const uint32_t* table, uint32_t word) {
  if constexpr (S == Source::constant)
    return c_table[word];
  else if constexpr (S == Source::registers)
    return table_value(word);
  else if constexpr (S == Source::global)
    return table[word];
  else
    return __ldg(table + word);
}

// One dependent step from byte offset `offset`: the next offset, loaded or computed.
template <Source S>
__device__ __forceinline__ uint32_t chain_step(const uint32_t* chain, uint32_t offset) {
  if constexpr (S == Source::constant)
    return *reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(c_chain) + offset);
  else if constexpr (S == Source::registers)
    return chain_next_offset(offset);
  else if constexpr (S == Source::global)
    return *reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(chain) + offset);
  else
    return __ldg(reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(chain) + offset));
}

// `table` is not __restrict__: the plain global source stays ld.global (the compiler may not
// prove it read-only and turn it into ld.global.nc, which is what the ldg source asks for).
// Reads u of a trip are 128 bytes apart, so no two fuse into one wider load.
template <Source S>
__global__ void __launch_bounds__(block_size)
    read_kernel(const uint32_t* table, uint32_t* out, unsigned long long* clocks, int k,
                int trips) {
  const uint32_t lane = threadIdx.x % 32;
  uint32_t acc[reads_per_trip] = {};
  const unsigned long long start = clock64();
  for (int t = 0; t < trips; ++t) {
    const uint32_t column = column_of(lane, uint32_t(k), uint32_t(t));
#pragma unroll
    for (uint32_t u = 0; u < reads_per_trip; ++u)
      acc[u] += operand<S>(table, u * row_words + column);
  }
  __syncthreads();
  const unsigned long long end = clock64();
  uint32_t sum = 0;
#pragma unroll
  for (uint32_t u = 0; u < reads_per_trip; ++u)
    sum += acc[u];
  out[blockIdx.x * size_t(block_size) + threadIdx.x] = sum;
  if (threadIdx.x == 0) {
    uint32_t sm = 0;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    clocks[3 * blockIdx.x] = sm, clocks[3 * blockIdx.x + 1] = start,
               clocks[3 * blockIdx.x + 2] = end;
  }
}

// One warp: `warm` untimed steps (the table into the caches), then `steps` timed ones.
template <Source S>
__global__ void __launch_bounds__(chase_threads)
    chase_kernel(const uint32_t* chain, uint32_t* out, long long* cycles, int k, int warm,
                 int steps) {
  uint32_t offset = chain_start_offset(threadIdx.x, uint32_t(k));
  for (int s = 0; s < warm; ++s)
    offset = chain_step<S>(chain, offset);
  __syncwarp();
  const long long start = clock64();
#pragma unroll 4
  for (int s = 0; s < steps; ++s)
    offset = chain_step<S>(chain, offset);
  out[threadIdx.x] = offset; // the store waits for the last step before the clock is read
  __syncwarp();
  const long long end = clock64();
  if (threadIdx.x == 0)
    *cycles = end - start;
}

} // namespace

namespace apod {
namespace {

namespace cm = constant_memory;

constexpr double point_time_cap_s = 0.012; // 48 timed points: under 0.6 s at most
constexpr uint32_t full_trips = 512;       // 4096 reads per thread at one address
constexpr uint32_t quick_trips = 128;
constexpr int chase_warm_steps = 512;
constexpr int chase_steps = 4096;
constexpr int quick_chase_steps = 1024;

Source source_of(const std::string& s) {
  return s == cm::constant_source   ? Source::constant
         : s == cm::register_source ? Source::registers
         : s == cm::global_source   ? Source::global
                                    : Source::ldg;
}

template <class F> auto dispatch(Source s, F&& f) {
  switch (s) {
  case Source::constant:
    return f(std::integral_constant<Source, Source::constant>{});
  case Source::registers:
    return f(std::integral_constant<Source, Source::registers>{});
  case Source::global:
    return f(std::integral_constant<Source, Source::global>{});
  default:
    return f(std::integral_constant<Source, Source::ldg>{});
  }
}

struct Buffers {
  DeviceBuffer<uint32_t> table{table_words}, chain{table_words}, out, chase_out{chase_threads};
  DeviceBuffer<unsigned long long> clocks;
  DeviceBuffer<long long> cycles{1};
  std::vector<unsigned long long> raw;
};

// Samples are the kernels' own cycle counts (warp reads per clock, cycles per step), not event
// times: the timing core's loop without events; the stopping rule and the monitor are the same.
template <class Sample> Series sample(const ExperimentContext& ctx, Sample&& one) {
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);
  for (int i = 0; i < policy.warmup; ++i)
    one();
  AdaptiveSampler sampler(policy);
  while (sampler.want_more())
    sampler.add(one(), policy.check_sample());
  return Series(sampler.finish());
}

struct Point {
  std::string source;
  int k = 1;
  Series rate, latency;
  bool rate_ok = false, latency_ok = false;
  json rate_extra, latency_extra;
};

void measure_throughput(const ExperimentContext& ctx, Buffers& b, Point& p, uint32_t trips_full) {
  const Source s = source_of(p.source);
  const uint32_t trips = trips_per_thread(s == Source::constant, uint32_t(p.k), trips_full);
  dispatch(s, [&](auto tag) {
    constexpr Source S = decltype(tag)::value;
    int blocks_per_sm = 0;
    APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, read_kernel<S>,
                                                            block_size, 0));
    const unsigned grid = unsigned(std::max(1, blocks_per_sm) * ctx.device.sm_count);
    if (b.out.size() < size_t(grid) * block_size) {
      b.out = DeviceBuffer<uint32_t>(size_t(grid) * block_size);
      b.clocks = DeviceBuffer<unsigned long long>(3 * size_t(grid));
    }
    b.raw.resize(3 * size_t(grid));
    APOD_CUDA(cudaMemset(b.out.get(), 0xA5, b.out.bytes()));
    const double warp_reads_per_block = double(block_size / 32) * trips * reads_per_trip;
    p.rate = sample(ctx, [&] {
      read_kernel<S>
          <<<grid, block_size>>>(b.table.get(), b.out.get(), b.clocks.get(), p.k, int(trips));
      APOD_CUDA_LAUNCH();
      APOD_CUDA(cudaMemcpy(b.raw.data(), b.clocks.get(), 3 * size_t(grid) * sizeof(b.raw[0]),
                           cudaMemcpyDeviceToHost));
      std::vector<BlockClock> blocks(grid);
      for (unsigned i = 0; i < grid; ++i)
        blocks[i] = {uint32_t(b.raw[3 * i]), b.raw[3 * i + 1], b.raw[3 * i + 2]};
      return bytes_per_clock_per_sm(blocks, warp_reads_per_block); // warp reads, not bytes
    });
    std::vector<uint32_t> got(size_t(grid) * block_size);
    APOD_CUDA(
        cudaMemcpy(got.data(), b.out.get(), got.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    std::vector<uint32_t> expected(32);
    for (uint32_t lane = 0; lane < 32; ++lane)
      expected[lane] = expected_thread_sum(lane, uint32_t(p.k), trips);
    size_t wrong = 0;
    for (size_t i = 0; i < got.size(); ++i)
      wrong += got[i] != expected[(i % block_size) % 32];
    p.rate_ok = wrong == 0;
    p.rate_extra = {{"elements_wrong", wrong},
                    {"trips_per_thread", trips},
                    {"blocks_per_sm", blocks_per_sm},
                    {"kernel", kernel_facts(read_kernel<S>, block_size, grid)}};
  });
}

void measure_latency(const ExperimentContext& ctx, Buffers& b, Point& p, int steps) {
  dispatch(source_of(p.source), [&](auto tag) {
    constexpr Source S = decltype(tag)::value;
    APOD_CUDA(cudaMemset(b.chase_out.get(), 0xA5, b.chase_out.bytes()));
    long long cycles = 0;
    p.latency = sample(ctx, [&] {
      chase_kernel<S><<<1, chase_threads>>>(b.chain.get(), b.chase_out.get(), b.cycles.get(), p.k,
                                            chase_warm_steps, steps);
      APOD_CUDA_LAUNCH();
      APOD_CUDA(cudaMemcpy(&cycles, b.cycles.get(), sizeof cycles, cudaMemcpyDeviceToHost));
      return double(cycles) / steps;
    });
    uint32_t got[chase_threads];
    APOD_CUDA(cudaMemcpy(got, b.chase_out.get(), sizeof got, cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (uint32_t lane = 0; lane < chase_threads; ++lane)
      wrong += got[lane] != expected_chain_end(lane, uint32_t(p.k),
                                               uint64_t(chase_warm_steps) + uint64_t(steps));
    p.latency_ok = wrong == 0;
    p.latency_extra = {{"elements_wrong", wrong},
                       {"steps", steps},
                       {"kernel", kernel_facts(chase_kernel<S>, chase_threads, 1)}};
  });
}

double median(const Series& s) {
  return s.summary().median;
}

// The law fitted over one source's verified points with a positive figure; nothing when fewer
// than two remain.
std::optional<LineFit> fit_source(const std::vector<Point>& points, const std::string& source,
                                  bool latency) {
  std::vector<double> k, y;
  for (const Point& p : points)
    if (p.source == source && (latency ? p.latency_ok : p.rate_ok)) {
      const double m = median(latency ? p.latency : p.rate);
      if (m > 0)
        k.push_back(p.k), y.push_back(m);
    }
  if (k.size() < 2)
    return std::nullopt;
  return latency ? fit_line(k, y) : fit_cost_law(k, y);
}

void add_fit(json& extra, const LineFit& f) {
  extra["fit_intercept"] = f.intercept;
  extra["fit_slope"] = f.slope;
  extra["fit_r2"] = f.r2;
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const bool quick = ctx.options.quick;
  Buffers b;
  const std::vector<uint32_t> table = table_words_host(), chain = chain_offsets_host();
  APOD_CUDA(cudaMemcpyToSymbol(c_table, table.data(), table.size() * sizeof(uint32_t)));
  APOD_CUDA(cudaMemcpyToSymbol(c_chain, chain.data(), chain.size() * sizeof(uint32_t)));
  APOD_CUDA(cudaMemcpy(b.table.get(), table.data(), b.table.bytes(), cudaMemcpyHostToDevice));
  APOD_CUDA(cudaMemcpy(b.chain.get(), chain.data(), b.chain.bytes(), cudaMemcpyHostToDevice));

  std::vector<Point> points;
  for (const char* s : cm::sources())
    for (const int k : cm::distinct_counts()) {
      Point p;
      p.source = s, p.k = k;
      measure_throughput(ctx, b, p, quick ? quick_trips : full_trips);
      measure_latency(ctx, b, p, quick ? quick_chase_steps : chase_steps);
      points.push_back(std::move(p));
    }

  for (const char* s : cm::sources()) {
    const auto rate_fit = fit_source(points, s, false);
    const auto latency_fit = fit_source(points, s, true);
    const Point* one = nullptr;
    for (const Point& p : points)
      if (p.source == s && p.k == 1 && p.rate_ok && median(p.rate) > 0)
        one = &p;
    for (const Point& p : points) {
      if (p.source != s)
        continue;
      const json params = {{cm::source.key, s}, {cm::distinct.key, p.k}};
      json rate_extra = p.rate_extra;
      if (rate_fit) {
        add_fit(rate_extra, *rate_fit);
        rate_extra[keys::model] = fitted_rate(*rate_fit, p.k);
      }
      ctx.record(make_measurement(params, cm::reads_per_clock, p.rate, p.rate_ok, rate_extra));
      if (one) {
        const double rate_one = median(one->rate);
        json ratio_extra = rate_extra;
        ratio_extra.erase(keys::model);
        ratio_extra["law_ratio"] = p.k;
        if (p.source == cm::constant_source)
          ratio_extra[keys::model] = double(p.k);
        const Series ratio = p.rate.map([&](double r) { return r > 0 ? rate_one / r : 0.0; });
        ctx.record(make_measurement(params, cm::cost_ratio_metric, ratio, p.rate_ok && one,
                                    std::move(ratio_extra)));
      } else {
        Measurement m = make_measurement(params, cm::cost_ratio_metric, p.rate, false, rate_extra);
        m.error = "no verified one-address point of this source to divide by";
        ctx.record(std::move(m));
      }
      json latency_extra = p.latency_extra;
      if (latency_fit) {
        add_fit(latency_extra, *latency_fit);
        latency_extra[keys::model] = latency_fit->at(p.k);
      }
      ctx.record(
          make_measurement(params, cm::latency, p.latency, p.latency_ok, std::move(latency_extra)));
    }
  }
}

} // namespace

APOD_EXPERIMENT(constant_memory::experiment, run);

} // namespace apod
