// Distributed shared memory (CUDA C++ Programming Guide, "Thread Block Clusters" and
// "Distributed Shared Memory", compute capability 9.0): the blocks of a cluster can read each
// other's shared memory through cluster.map_shared_rank. Clusters of two blocks fill the GPU
// (cudaOccupancyMaxActiveClusters); each block fills its tile, the cluster synchronises, and every
// thread reads its own block's tile or its neighbour's with stride-1 loads of 4 or 16 bytes (the
// strided points' loop), so the two figures differ by where the data lies alone. Latency: one
// thread per block chases a random cycle through its own tile or its neighbour's, clock64 around
// the chase. Every sum and every chase's end is checked on the host. The kernels' bodies exist
// only for sm_90 and later; the run records nothing where the device has no clusters.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/sampling.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "model.hpp"
#include "parts.hpp"
#include "read_loop.cuh"

#include <cooperative_groups.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace apod::smem {
namespace {

constexpr uint64_t cluster_seed = 0xC1057E20;
constexpr uint32_t tile_words = tile_bytes / 4;
constexpr uint32_t chase_slots = 4096; // 16 KiB
constexpr int chase_steps = 4096;

// Block r of a cluster fills its tile from words [r x tile_words, (r + 1) x tile_words) of `in`,
// so a read of the neighbour's tile sums other words than a read of its own.
template <class T, bool Remote>
__global__ void __launch_bounds__(block_size)
    cluster_read_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, int reads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  constexpr uint32_t elements = tile_bytes / sizeof(T);
  __shared__ T tile[elements + unroll];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  fill_tile<T, elements, unroll>(tile, in + rank * tile_words);
  cluster.sync(); // the neighbour's tile is filled
  const T* source =
      Remote ? cluster.map_shared_rank(tile, (rank + 1) % cluster.num_blocks()) : tile;
  const uint32_t base = thread_base(blockIdx.x, threadIdx.x, 1, block_size);
  const uint32_t sum = read_tile<T, elements, unroll>(source, base, reads);
  cluster.sync(); // no block leaves while its neighbour still reads its tile
  out[blockIdx.x * size_t(block_size) + threadIdx.x] = sum;
#endif
}

template <bool Remote>
__global__ void cluster_chase_kernel(const uint32_t* __restrict__ next, uint32_t* __restrict__ out,
                                     unsigned long long* __restrict__ clocks, int steps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  __shared__ uint32_t slots[chase_slots];
  cg::cluster_group cluster = cg::this_cluster();
  for (uint32_t i = threadIdx.x; i < chase_slots; i += blockDim.x)
    slots[i] = next[i];
  cluster.sync();
  const uint32_t* source =
      Remote ? cluster.map_shared_rank(slots, (cluster.block_rank() + 1) % cluster.num_blocks())
             : slots;
  if (threadIdx.x == 0) {
    uint32_t at = 0;
    const unsigned long long start = clock64();
    for (int s = 0; s < steps; ++s)
      at = source[at];
    const unsigned long long end = clock64();
    out[blockIdx.x] = at;
    clocks[blockIdx.x] = end - start;
  }
  cluster.sync();
#endif
}

cudaLaunchConfig_t cluster_config(unsigned grid, int threads, cudaStream_t s,
                                  cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(unsigned(threads));
  config.stream = s;
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = cluster_blocks;
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

bool has_clusters(const DeviceInfo& device) {
  if (device.cc_major < 9)
    return false;
  int supported = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&supported, cudaDevAttrClusterLaunch, device.ordinal));
  return supported != 0;
}

template <class T, bool Remote>
Measurement read_point(const ExperimentContext& ctx, const DeviceBuffer<uint32_t>& in,
                       const std::vector<uint32_t>& words, DeviceBuffer<uint32_t>& out) {
  const DeviceInfo& d = ctx.device;
  const auto kernel = cluster_read_kernel<T, Remote>;
  cudaLaunchAttribute attribute[1];
  // The grid of one cluster: the occupancy call reads the cluster shape and the block.
  cudaLaunchConfig_t config = cluster_config(cluster_blocks, block_size, nullptr, attribute);
  int clusters = 0;
  APOD_CUDA(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  const unsigned grid = unsigned(std::max(1, clusters) * cluster_blocks);
  if (size_t(grid) * block_size > out.size())
    throw std::runtime_error("shared_memory: more resident clusters than the output holds");
  const int reads = (ctx.options.quick ? 1024 : 8192) * 4 / int(sizeof(T));
  const auto launch = [&](cudaStream_t s) {
    cudaLaunchAttribute a[1];
    const cudaLaunchConfig_t c = cluster_config(grid, block_size, s, a);
    APOD_CUDA(cudaLaunchKernelEx(&c, kernel, (const uint32_t*)in.get(), out.get(), reads));
  };
  APOD_CUDA(cudaMemset(out.get(), 0xA5, out.bytes()));
  const TimedSamples t = time_samples_ms(point_policy(ctx), nullptr, launch);
  const double bytes = double(grid) * block_size * reads * sizeof(T);
  const Series per_sm = Series(t).map([&](double ms) { return gbs(bytes, ms) / d.sm_count; });

  std::vector<uint32_t> got(size_t(grid) * block_size);
  APOD_CUDA(
      cudaMemcpy(got.data(), out.get(), got.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  const int per = int(sizeof(T) / 4);
  const ElementSums rank0(std::vector<uint32_t>(words.begin(), words.begin() + tile_words), per);
  const ElementSums rank1(std::vector<uint32_t>(words.begin() + tile_words, words.end()), per);
  size_t wrong = 0;
  for (uint32_t b = 0; b < grid; ++b) {
    const uint32_t source_rank = Remote ? (b + 1) % cluster_blocks : b % cluster_blocks;
    const ElementSums& sums = source_rank == 0 ? rank0 : rank1;
    for (uint32_t th = 0; th < uint32_t(block_size); ++th)
      wrong += got[b * size_t(block_size) + th] !=
               sums.sum(thread_base(b, th, 1, block_size), uint64_t(reads));
  }
  json extra = {{"elements_wrong", wrong},
                {"reads_per_thread", reads},
                {"bytes_per_launch", bytes},
                {"cluster_blocks", cluster_blocks},
                {"active_clusters", clusters},
                {keys::limit_gbs, limit_gbs_per_sm(d.sm_clock_khz)},
                {keys::limit_label, "32 banks x 4 bytes per clock x SM clock"}};
  extra["kernel"] = kernel_facts(kernel, block_size, grid);
  return make_measurement({{test.key, distributed},
                           {target.key, Remote ? neighbour_block : local_block},
                           {access_bytes.key, int(sizeof(T))}},
                          bandwidth_per_sm, per_sm, wrong == 0, std::move(extra));
}

template <bool Remote> Measurement chase_point(const ExperimentContext& ctx) {
  const std::vector<uint32_t> next = chase_cycle(chase_slots, cluster_seed);
  DeviceBuffer<uint32_t> slots(chase_slots), ends(cluster_blocks);
  DeviceBuffer<unsigned long long> clocks(cluster_blocks);
  APOD_CUDA(cudaMemcpy(slots.get(), next.data(), slots.bytes(), cudaMemcpyHostToDevice));
  const int steps = ctx.options.quick ? chase_steps / 4 : chase_steps;
  const auto kernel = cluster_chase_kernel<Remote>;
  std::vector<unsigned long long> raw(cluster_blocks);
  const auto launch = [&]() {
    cudaLaunchAttribute a[1];
    const cudaLaunchConfig_t c = cluster_config(cluster_blocks, 32, nullptr, a);
    APOD_CUDA(cudaLaunchKernelEx(&c, kernel, (const uint32_t*)slots.get(), ends.get(), clocks.get(),
                                 steps));
    APOD_CUDA(cudaMemcpy(raw.data(), clocks.get(), clocks.bytes(), cudaMemcpyDeviceToHost));
    double total = 0;
    for (unsigned long long c : raw)
      total += double(c);
    return total / double(raw.size()) / steps; // clocks per dependent load, mean of the blocks
  };
  // The samples are the kernel's own cycle counts, not event times: the timing core's stopping
  // rule without events (as bank_conflicts does).
  const SamplingPolicy policy = point_policy(ctx);
  for (int i = 0; i < policy.warmup; ++i)
    launch();
  AdaptiveSampler sampler(policy);
  while (sampler.want_more()) {
    const double value = launch();
    sampler.add(value, policy.check_sample());
  }
  const Series s(sampler.finish());
  std::vector<uint32_t> got(cluster_blocks);
  APOD_CUDA(cudaMemcpy(got.data(), ends.get(), ends.bytes(), cudaMemcpyDeviceToHost));
  const uint32_t expected = chase_end(next, 0, uint64_t(steps));
  size_t wrong = 0;
  for (uint32_t e : got)
    wrong += e != expected;
  json extra = {{"elements_wrong", wrong},
                {"chase_steps", steps},
                {"chase_slots", chase_slots},
                {"cluster_blocks", cluster_blocks}};
  extra["kernel"] = kernel_facts(kernel, 32, cluster_blocks);
  return make_measurement({{test.key, distributed},
                           {target.key, Remote ? neighbour_block : local_block},
                           {access_bytes.key, 4}},
                          latency, s, wrong == 0, std::move(extra));
}

} // namespace

void measure_cluster(ExperimentContext& ctx) {
  if (!has_clusters(ctx.device))
    return;
  // Two tiles of words: rank 0's and rank 1's.
  DeviceBuffer<uint32_t> in(size_t(cluster_blocks) * tile_words);
  fill_device(in.get(), in.size(), cluster_seed);
  std::vector<uint32_t> words(in.size());
  for (size_t i = 0; i < words.size(); ++i)
    words[i] = expected_fill<uint32_t>(cluster_seed, i);
  int per_sm = 0;
  APOD_CUDA(
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, ctx.device.ordinal));
  DeviceBuffer<uint32_t> out(size_t(ctx.device.sm_count) * size_t(per_sm) * block_size);
  for (const int bytes : cluster_access_bytes()) {
    if (bytes == 4) {
      ctx.record(read_point<uint32_t, false>(ctx, in, words, out));
      ctx.record(read_point<uint32_t, true>(ctx, in, words, out));
    } else {
      ctx.record(read_point<uint4, false>(ctx, in, words, out));
      ctx.record(read_point<uint4, true>(ctx, in, words, out));
    }
  }
  ctx.record(chase_point<false>(ctx));
  ctx.record(chase_point<true>(ctx));
}

} // namespace apod::smem
