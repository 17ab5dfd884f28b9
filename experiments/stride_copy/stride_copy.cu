// strideCopy, CUDA C++ Best Practices Guide 9.2.1.4 (shared/seeds/000_...): thread i copies word
// i x stride, so a warp's 32 accesses spread over more 32-byte sectors as the stride grows.
// Bandwidth counts the useful bytes only (each copied word read once and written once), as the
// guide's Figure 7 does; the wasted part of each sector is what the falling curve shows.
//
// Two kernels, same strides, same check: `guide` (one word per thread, latency-bound on Hopper)
// and `saturating` (4 words per thread, all loaded before the first store, each warp access the
// guide kernel's). Beside each measured point the 32-byte-sector model (sector_model.hpp) gives
// the bandwidth expected if DRAM kept moving bytes at the rate of the same kernel's stride 1:
// a `sector_model_bandwidth` point, derived sample by sample from that reference.
#include "core/cuda_memory.cuh"
#include "core/device_check.cuh"
#include "core/experiment.hpp"
#include "core/in_flight.cuh"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/vocabulary.hpp"
#include "declaration.hpp"
#include "sector_model.hpp"

#include <algorithm>

namespace apod {
namespace {

using Word = uint32_t; // the guide copies floats; bit patterns are copied and compared exactly
constexpr int block_size = 256;
constexpr uint64_t seed = 0x57121DE;
constexpr uint8_t poison = 0xA5;
constexpr int saturating_words = 4; // 16 bytes in flight per thread, as offset_copy's
constexpr int max_stride = 32;
// Threads: the stride-1 copy reads plus writes 1 GiB (docs/method.md); --quick 8 MiB.
constexpr size_t threads_full = (size_t(1) << 30) / (2 * sizeof(Word));
constexpr size_t threads_quick = size_t(1) << 20;
constexpr double point_time_cap_s = 0.25; // 28 points of 0.5-8 ms samples

__global__ void stride_copy_kernel(Word* odata, const Word* idata, int stride) {
  const size_t xid = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) * stride;
  odata[xid] = idata[xid];
}

// A block serves block_size x Words threads of the guide's kernel: its warps' k-th accesses are
// 32 words `stride` apart, exactly the guide kernel's pattern.
template <int Words>
__global__ void __launch_bounds__(block_size)
    stride_copy_saturating(Word* __restrict__ odata, const Word* __restrict__ idata, int stride) {
  const size_t first = blockIdx.x * size_t(block_size * Words) + threadIdx.x;
  copy_in_flight<Words>(odata, idata, [=](int k) { return (first + k * block_size) * stride; });
}

// The output after a copy of n words at `stride`: word j holds the input's when j is a multiple
// of the stride below n x stride, and the poison everywhere else.
struct StrideExpected {
  uint64_t fill_seed;
  size_t n;
  int stride;
  __host__ __device__ Word operator()(size_t j) const {
    return j % stride == 0 && j < n * stride ? static_cast<Word>(fill_value(fill_seed, j))
                                             : repeated_byte<Word>(poison);
  }
};

struct Sweep {
  ExperimentContext& ctx;
  size_t n;               // threads of the guide's kernel (words copied)
  DeviceBuffer<Word>& in; // spans n x max_stride words
  DeviceBuffer<Word>& out;
  SamplingPolicy policy;
};

// One kernel over every stride: a measured point and its model point per stride.
void sweep(Sweep& sw, bool guide) {
  const char* kernel = guide ? stride_copy::guide : stride_copy::saturating;
  const unsigned grid = unsigned(sw.n / (guide ? block_size : block_size * saturating_words));
  const json launch =
      guide ? kernel_facts(stride_copy_kernel, block_size, grid)
            : kernel_facts(stride_copy_saturating<saturating_words>, block_size, grid);
  const bool rmw = sw.ctx.device.ecc_enabled;
  const SectorTraffic reference = stride_copy_traffic(sw.n, sizeof(Word), 1, rmw);
  Series reference_gbs;
  bool reference_ok = false;
  for (int stride : stride_copy::strides) {
    const size_t span = sw.n * stride;
    APOD_CUDA(cudaMemset(sw.out.get(), poison, span * sizeof(Word)));
    const TimedSamples t = time_samples_ms(sw.policy, nullptr, [&](cudaStream_t s) {
      if (guide)
        stride_copy_kernel<<<grid, block_size, 0, s>>>(sw.out.get(), sw.in.get(), stride);
      else
        stride_copy_saturating<saturating_words>
            <<<grid, block_size, 0, s>>>(sw.out.get(), sw.in.get(), stride);
      APOD_CUDA_LAUNCH();
    });
    const OutputCheck check = check_output(sw.out.get(), span, StrideExpected{seed, sw.n, stride});
    const json params = {{stride_copy::kernel.key, kernel}, {stride_copy::stride.key, stride}};
    json extra = check.facts();
    extra.update({{"words", sw.n},
                  {"span_bytes", double(span * sizeof(Word))},
                  {keys::launch, launch},
                  {keys::seed, seed},
                  {keys::access_type, access::copy}});
    const Series times(t.ms, t.excluded, t.stop_reason, t.noisy);
    Measurement measured = bandwidth_measurement(params, 2.0 * sw.n * sizeof(Word), times,
                                                 check.ok(), std::move(extra));
    if (stride == 1) {
      reference_gbs = bandwidth_gbs(times, 2.0 * sw.n * sizeof(Word));
      reference_ok = measured.ok();
    }
    sw.ctx.record(std::move(measured));

    const SectorTraffic traffic = stride_copy_traffic(sw.n, sizeof(Word), stride, rmw);
    const Series model =
        reference_gbs.map([&](double gbs) { return sector_model_gbs(gbs, reference, traffic); });
    sw.ctx.record(make_measurement(
        params, stride_copy::sector_model_bandwidth, model, reference_ok,
        {{"reference", {{stride_copy::kernel.key, kernel}, {stride_copy::stride.key, 1}}},
         {"sector_bytes", sector_bytes},
         {"partial_write_rmw", rmw},
         {"useful_bytes", traffic.useful_bytes},
         {"read_bytes", traffic.read_bytes},
         {"write_bytes", traffic.write_bytes},
         {"rmw_read_bytes", traffic.rmw_read_bytes},
         {"efficiency", traffic.efficiency()}}));
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  // Both spans together within half of device memory on GPUs too small for the full size.
  const size_t memory_cap =
      size_t(ctx.device.total_memory_bytes) / 2 / (2 * max_stride * sizeof(Word));
  const size_t tile = size_t(block_size) * saturating_words;
  const size_t n =
      std::min(ctx.options.quick ? threads_quick : threads_full, memory_cap) / tile * tile;
  DeviceBuffer<Word> in(n * max_stride), out(n * max_stride);
  fill_device(in.get(), in.size(), seed);
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);
  Sweep sw{ctx, n, in, out, policy};
  sweep(sw, true);
  sweep(sw, false);
}

} // namespace

APOD_EXPERIMENT(stride_copy::experiment, run);

} // namespace apod
