// Shared-memory bandwidth and bank conflicts by access width (Stich, Advanced CUDA Programming,
// shared/seeds/001_...: "Memory Hierarchy Review", 38-44 GB/s per multiprocessor, 1.1-1.4 TB/s
// per GPU on GT200; "Shared Memory": banks, serialisation, broadcast; "Bank Addressing
// Examples"). Every SM is filled with blocks that read an 8 KiB tile, lane l at element l x
// stride, with 4-, 8- and 16-byte loads: the figure is the bytes the lanes asked for per second
// (CUDA events), per SM and for the GPU, against 32 banks x 4 bytes per clock x the SM clock. The
// bank model (bank_conflicts/model.hpp, strided_wavefronts) gives each request's wavefronts; the
// measured clocks per request and the conflict-free figure scaled by the wavefronts are stored
// beside it. The padding trick: a 32 x 32 tile read by columns, float[32][32] against
// float[32][33]. Then the slides' stencil (stencil.cu) and, on Hopper, a cluster's distributed
// shared memory (cluster.cu). Every thread's sum is checked on the host.
#include "../bank_conflicts/model.hpp"
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "model.hpp"
#include "parts.hpp"
#include "read_loop.cuh"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace apod::smem {
namespace {

constexpr uint64_t seed = 0x5AED0001;
constexpr uint32_t tile_words = tile_bytes / 4;

template <class T>
__global__ void __launch_bounds__(block_size)
    strided_read_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, int stride,
                        int reads) {
  constexpr uint32_t elements = tile_bytes / sizeof(T);
  __shared__ T tile[elements + unroll];
  fill_tile<T, elements, unroll>(tile, in);
  __syncthreads();
  const uint32_t base = thread_base(blockIdx.x, threadIdx.x, stride, block_size);
  out[blockIdx.x * size_t(block_size) + threadIdx.x] =
      read_tile<T, elements, unroll>(tile, base, reads);
}

// The padding trick: a warp reads a column of a 32 x 32 tile, lane l row l, so its words lie
// 32 + Pad apart: all in one bank without padding, in 32 banks with one word of it. A trip reads
// the 32 columns in turn at immediate offsets from the lane's row, so no index arithmetic sits
// between the loads (a first version wrapped the column per read and reached 69% of the
// conflict-free figure padded, on an H200: issue-bound, not bank-bound). `column0` is 0; being a
// run-time value, it keeps the compiler from proving a row 16-byte aligned and merging a lane's
// reads into wider loads, which would no longer be column reads.
constexpr int columns = 32;

template <int Pad>
__global__ void __launch_bounds__(block_size)
    column_read_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, int reads,
                       int column0) {
  __shared__ uint32_t tile[32][32 + Pad];
  for (uint32_t i = threadIdx.x; i < 32 * 32; i += block_size)
    tile[i / 32][i % 32] = in[i];
  __syncthreads();
  // Each trip moves every lane one row on (lane l reads row (l + trip) mod 32): the lanes still
  // sit on 32 different rows, and the loads cannot be hoisted out of the loop. With one row per
  // lane for every trip, nothing stored to the tile between trips let the compiler keep the 32
  // words in registers: 472 GB/s per SM padded on an H100, above the 253 GB/s the banks allow.
  const uint32_t lane = threadIdx.x % 32;
  uint32_t acc[unroll] = {};
#pragma unroll 1
  for (int it = 0, trip = 0; it < reads; it += columns, ++trip) {
    const uint32_t* row = &tile[(lane + trip) % 32][column0];
#pragma unroll
    for (int u = 0; u < columns; ++u)
      acc[u % unroll] += row[u];
  }
  uint32_t sum = 0;
#pragma unroll
  for (int u = 0; u < unroll; ++u)
    sum += acc[u];
  out[blockIdx.x * size_t(block_size) + threadIdx.x] = sum;
}

template <class Kernel> unsigned full_grid(Kernel kernel, const DeviceInfo& device) {
  int per_sm = 0;
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_size, 0));
  return unsigned(std::max(1, per_sm) * device.sm_count); // one wave, every SM full
}

struct Timed {
  Series per_gpu_gbs;
  Series per_sm_gbs;
  Series wavefronts;
};

// GB/s of the GPU and per SM, and the clocks per request, from each sample's time and SM clock
// (the device's peak clock where the sample's was not measured).
Timed rates(const TimedSamples& t, const DeviceInfo& d, double bytes, int access_bytes) {
  const Series times(t);
  Timed r{times.map([&](double ms) { return gbs(bytes, ms); }),
          times.map([&](double ms) { return gbs(bytes, ms) / d.sm_count; }), times};
  std::vector<double> fronts;
  for (size_t i = 0; i < t.ms.size(); ++i) {
    const double mhz = std::isnan(times.clock(i)) ? d.sm_clock_khz / 1e3 : times.clock(i);
    fronts.push_back(measured_wavefronts(access_bytes, gbs(bytes, t.ms[i]) / d.sm_count, mhz));
  }
  r.wavefronts = Series(fronts, times.flags(), times.stop_reason(), times.noisy());
  return r;
}

json limits(const DeviceInfo& d, bool per_gpu) {
  return {{keys::limit_gbs, per_gpu ? limit_gbs_per_gpu(d.sm_count, d.sm_clock_khz)
                                    : limit_gbs_per_sm(d.sm_clock_khz)},
          {keys::limit_label, per_gpu ? "32 banks x 4 bytes per clock x SM clock x SMs"
                                      : "32 banks x 4 bytes per clock x SM clock"}};
}

size_t count_wrong(const std::vector<uint32_t>& got, unsigned grid, const ElementSums& sums,
                   int stride, int reads) {
  size_t wrong = 0;
  for (uint32_t b = 0; b < grid; ++b)
    for (uint32_t t = 0; t < uint32_t(block_size); ++t)
      wrong += got[b * size_t(block_size) + t] !=
               sums.sum(thread_base(b, t, stride, block_size), uint64_t(reads));
  return wrong;
}

template <class T>
void launch_strided(unsigned grid, const uint32_t* in, uint32_t* out, int stride, int reads,
                    cudaStream_t s) {
  strided_read_kernel<T><<<grid, block_size, 0, s>>>(in, out, stride, reads);
  APOD_CUDA_LAUNCH();
}

struct Inputs {
  DeviceBuffer<uint32_t> in{tile_words};
  std::vector<uint32_t> words = std::vector<uint32_t>(tile_words);
  DeviceBuffer<uint32_t> out; // a thread's sum, for the largest grid of any kernel
};

void measure_strided(ExperimentContext& ctx, Inputs& io, std::map<int, double>& conflict_free) {
  const DeviceInfo& d = ctx.device;
  const int base_reads = ctx.options.quick ? 1024 : 8192;
  const unsigned grids[3] = {full_grid(strided_read_kernel<uint32_t>, d),
                             full_grid(strided_read_kernel<uint2>, d),
                             full_grid(strided_read_kernel<uint4>, d)};
  for (const Stride& p : strides()) {
    const unsigned grid = grids[p.access_bytes == 4 ? 0 : p.access_bytes == 8 ? 1 : 2];
    const int fronts = strided_wavefronts(p.access_bytes, p.stride);
    const int fewest = min_wavefronts(p.access_bytes);
    const int reads = reads_per_thread(base_reads, p.access_bytes, fronts, fewest, unroll);
    const auto launch = [&](cudaStream_t s) {
      if (p.access_bytes == 4)
        launch_strided<uint32_t>(grid, io.in.get(), io.out.get(), p.stride, reads, s);
      else if (p.access_bytes == 8)
        launch_strided<uint2>(grid, io.in.get(), io.out.get(), p.stride, reads, s);
      else
        launch_strided<uint4>(grid, io.in.get(), io.out.get(), p.stride, reads, s);
    };
    APOD_CUDA(cudaMemset(io.out.get(), 0xA5, io.out.bytes()));
    const TimedSamples t = time_samples_ms(point_policy(ctx), nullptr, launch);
    const double bytes = double(grid) * block_size * reads * p.access_bytes;
    const Timed r = rates(t, d, bytes, p.access_bytes);

    std::vector<uint32_t> got(io.out.size());
    APOD_CUDA(cudaMemcpy(got.data(), io.out.get(), io.out.bytes(), cudaMemcpyDeviceToHost));
    const size_t wrong =
        count_wrong(got, grid, ElementSums(io.words, p.access_bytes / 4), p.stride, reads);
    const double per_sm = r.per_sm_gbs.summary().median;
    if (p.stride == 1 && wrong == 0)
      conflict_free[p.access_bytes] = per_sm;

    json common = {{"elements_wrong", wrong},
                   {"reads_per_thread", reads},
                   {"bytes_per_launch", bytes},
                   {"model_wavefronts", fronts}};
    common["kernel"] =
        p.access_bytes == 4   ? kernel_facts(strided_read_kernel<uint32_t>, block_size, grid)
        : p.access_bytes == 8 ? kernel_facts(strided_read_kernel<uint2>, block_size, grid)
                              : kernel_facts(strided_read_kernel<uint4>, block_size, grid);
    const json params = {
        {test.key, strided}, {access_bytes.key, p.access_bytes}, {stride.key, p.stride}};
    json sm_extra = common;
    sm_extra.update(limits(d, false));
    if (const auto it = conflict_free.find(p.access_bytes); it != conflict_free.end()) {
      sm_extra[keys::model] = wavefront_model_gbs(it->second, fewest, fronts);
      if (per_sm > 0)
        sm_extra["slowdown_vs_conflict_free"] = it->second / per_sm;
    }
    ctx.record(make_measurement(params, bandwidth_per_sm, r.per_sm_gbs, wrong == 0, sm_extra));
    json front_extra = common;
    front_extra[keys::model] = fronts;
    ctx.record(make_measurement(params, wavefronts, r.wavefronts, wrong == 0, front_extra));
    if (p.stride == 1) {
      json gpu_extra = common;
      gpu_extra.update(limits(d, true));
      ctx.record(make_measurement(params, bandwidth_per_gpu, r.per_gpu_gbs, wrong == 0,
                                  std::move(gpu_extra)));
    }
  }
}

template <int Pad> void launch_columns(unsigned grid, const Inputs& io, int reads, cudaStream_t s) {
  column_read_kernel<Pad><<<grid, block_size, 0, s>>>(io.in.get(), io.out.get(), reads, 0);
  APOD_CUDA_LAUNCH();
}

// Lane l of every warp sums row (l + trip) mod 32 on each of its reads / 32 trips.
size_t count_columns_wrong(const Inputs& io, unsigned grid, int reads) {
  std::vector<uint32_t> got(io.out.size());
  APOD_CUDA(cudaMemcpy(got.data(), io.out.get(), io.out.bytes(), cudaMemcpyDeviceToHost));
  uint32_t row_sum[32] = {};
  for (uint32_t i = 0; i < 32 * 32; ++i)
    row_sum[i / 32] += io.words[i];
  size_t wrong = 0;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    uint32_t expected = 0;
    for (int trip = 0; trip * columns < reads; ++trip)
      expected += row_sum[(lane + trip) % 32];
    for (uint32_t b = 0; b < grid; ++b)
      for (uint32_t warp = 0; warp < block_size / 32; ++warp)
        wrong += got[b * size_t(block_size) + warp * 32 + lane] != expected;
  }
  return wrong;
}

void measure_padding(ExperimentContext& ctx, Inputs& io, const std::map<int, double>& free) {
  const DeviceInfo& d = ctx.device;
  const int base_reads = ctx.options.quick ? 1024 : 8192;
  for (const int p : {0, 1}) {
    const unsigned grid =
        p == 0 ? full_grid(column_read_kernel<0>, d) : full_grid(column_read_kernel<1>, d);
    const int fronts = strided_wavefronts(4, 32 + p);
    const int reads = reads_per_thread(base_reads, 4, fronts, 1, columns);
    const auto launch = [&](cudaStream_t s) {
      p == 0 ? launch_columns<0>(grid, io, reads, s) : launch_columns<1>(grid, io, reads, s);
    };
    APOD_CUDA(cudaMemset(io.out.get(), 0xA5, io.out.bytes()));
    const TimedSamples t = time_samples_ms(point_policy(ctx), nullptr, launch);
    const double bytes = double(grid) * block_size * reads * 4;
    const Timed r = rates(t, d, bytes, 4);
    const size_t wrong = count_columns_wrong(io, grid, reads);
    json extra = {{"elements_wrong", wrong},
                  {"reads_per_thread", reads},
                  {"bytes_per_launch", bytes},
                  {"model_wavefronts", fronts}};
    extra["kernel"] = p == 0 ? kernel_facts(column_read_kernel<0>, block_size, grid)
                             : kernel_facts(column_read_kernel<1>, block_size, grid);
    extra.update(limits(d, false));
    if (const auto it = free.find(4); it != free.end())
      extra[keys::model] = wavefront_model_gbs(it->second, 1, fronts);
    ctx.record(make_measurement({{test.key, padding}, {pad.key, p}}, bandwidth_per_sm, r.per_sm_gbs,
                                wrong == 0, std::move(extra)));
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  Inputs io;
  fill_device(io.in.get(), tile_words, seed);
  for (uint32_t i = 0; i < tile_words; ++i)
    io.words[i] = expected_fill<uint32_t>(seed, i);
  const unsigned most = std::max({full_grid(strided_read_kernel<uint32_t>, ctx.device),
                                  full_grid(strided_read_kernel<uint2>, ctx.device),
                                  full_grid(strided_read_kernel<uint4>, ctx.device),
                                  full_grid(column_read_kernel<0>, ctx.device),
                                  full_grid(column_read_kernel<1>, ctx.device)});
  io.out = DeviceBuffer<uint32_t>(size_t(most) * block_size);

  std::map<int, double> conflict_free; // GB/s per SM of stride 1, by access width
  measure_strided(ctx, io, conflict_free);
  measure_padding(ctx, io, conflict_free);
  measure_stencil(ctx);
  measure_cluster(ctx);
}

} // namespace
} // namespace apod::smem

namespace apod {
APOD_EXPERIMENT(smem::experiment, smem::run);
} // namespace apod
