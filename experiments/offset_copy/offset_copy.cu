// offsetCopy, CUDA C++ Best Practices Guide 9.2.1.3 (shared/seeds/000_...): a copy whose
// accesses start `offset` words past an aligned address. The guide uses 4-byte words with
// offsets 0..32 (V100: ~790 GB/s aligned, ~9/10 of that misaligned); Stich's slides add 8-byte
// words (shared/seeds/001_...). Bytes counted: every word read once and written once (8.2.2).
//
// Two kernels, same offsets, same check. `guide` is the guide's: one word per thread. On Hopper
// it is latency-bound (54% of theoretical on the H200 at offset 0, against the guide's 88% on a
// V100), so its misalignment penalty is measured with DRAM half idle. `saturating` copies the
// same words with the same alignment, each warp's k-th access being the guide kernel's, but every
// thread has 16 bytes of loads in flight before its first store: the shape that reached the best
// copy bandwidth in peak_copy's sweep, so its offset penalty is the one DRAM itself shows.
#include "core/cuda_memory.cuh"
#include "core/device_check.cuh"
#include "core/experiment.hpp"
#include "core/in_flight.cuh"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/vocabulary.hpp"
#include "declaration.hpp"

#include <algorithm>
#include <string>

namespace apod {
namespace {

constexpr int block_size = 256;
constexpr uint64_t seed = 0x0FF5E7C0;
constexpr uint8_t poison = 0xA5;
// Bytes read plus written per launch: 1 GiB each way. docs/method.md asks for at least 1 GiB in
// all; twice that halves what the kernel's last dirty lines, written back after its stop event,
// can flatter it by (at most the L2's size over the bytes moved: 3% on an H200).
constexpr size_t working_set_bytes = size_t(2) << 30;
constexpr size_t quick_working_set_bytes = size_t(32) << 20;
// 100 points: a cap per point bounds the experiment at ~10 s should no point ever converge
// (each converges in about 10 samples of ~0.5-0.8 ms on an H200).
constexpr double point_time_cap_s = 0.1;

// As in the guide, no __restrict__: the kernel should issue the loads the guide discusses.
template <class Word>
__global__ void offset_copy_kernel(Word* odata, const Word* idata, int offset) {
  const size_t xid = blockIdx.x * size_t(blockDim.x) + threadIdx.x + offset;
  odata[xid] = idata[xid];
}

// A block copies a tile of block_size x Words words; its warps' k-th accesses are 32
// consecutive words `offset` past an aligned address, exactly the guide kernel's pattern, and all
// Words loads of a thread are issued before its first store.
template <class Word, int Words>
__global__ void __launch_bounds__(block_size)
    offset_copy_saturating(Word* __restrict__ odata, const Word* __restrict__ idata, int offset) {
  const size_t base = blockIdx.x * size_t(block_size * Words) + threadIdx.x + offset;
  copy_in_flight<Words>(odata, idata, [=](int k) { return base + k * block_size; });
}

// What the output holds after a copy at `offset`: the input's words [offset, offset + n),
// the poison before and after them.
template <class Word> struct OffsetExpected {
  uint64_t fill_seed;
  size_t offset, n;
  __host__ __device__ Word operator()(size_t i) const {
    return i >= offset && i < offset + n ? static_cast<Word>(fill_value(fill_seed, i))
                                         : repeated_byte<Word>(poison);
  }
};

enum class Kernel { guide, saturating };

const char* name_of(Kernel kernel) {
  return kernel == Kernel::guide ? offset_copy::guide : offset_copy::saturating;
}

template <class Word> void sweep(ExperimentContext& ctx, int max_offset) {
  constexpr int words_per_thread = offset_copy::saturating_bytes_per_thread / sizeof(Word);
  const size_t bytes = ctx.options.quick ? quick_working_set_bytes : working_set_bytes;
  const size_t tile = size_t(block_size) * words_per_thread;
  // Words copied: half the working set each way, a whole number of the saturating kernel's tiles.
  const size_t n = (bytes / 2 / sizeof(Word) + tile - 1) / tile * tile;
  const size_t total = n + max_offset;
  DeviceBuffer<Word> in(total), out(total);
  fill_device(in.get(), total, seed);
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);

  for (Kernel kernel : {Kernel::guide, Kernel::saturating}) {
    const bool guide = kernel == Kernel::guide;
    const unsigned grid = unsigned(n / (guide ? block_size : tile));
    const json launch =
        guide ? kernel_facts(offset_copy_kernel<Word>, block_size, grid)
              : kernel_facts(offset_copy_saturating<Word, words_per_thread>, block_size, grid);
    // The chart's series: one line per kernel and word size.
    const std::string variant = offset_copy::variant_of(name_of(kernel), int(sizeof(Word)));
    for (int offset = 0; offset <= max_offset; ++offset) {
      APOD_CUDA(cudaMemset(out.get(), poison, out.bytes()));
      const TimedSamples t = time_samples_ms(policy, nullptr, [&](cudaStream_t s) {
        if (guide)
          offset_copy_kernel<Word><<<grid, block_size, 0, s>>>(out.get(), in.get(), offset);
        else
          offset_copy_saturating<Word, words_per_thread>
              <<<grid, block_size, 0, s>>>(out.get(), in.get(), offset);
        APOD_CUDA_LAUNCH();
      });
      const OutputCheck check =
          check_output(out.get(), total, OffsetExpected<Word>{seed, size_t(offset), n});
      json extra = check.facts();
      extra.update({{"words", n},
                    {"words_per_thread", guide ? 1 : words_per_thread},
                    {keys::launch, launch},
                    {keys::seed, seed},
                    {keys::access_type, access::copy}});
      ctx.record(bandwidth_measurement({{offset_copy::kernel.key, name_of(kernel)},
                                        {offset_copy::word_bytes.key, int(sizeof(Word))},
                                        {offset_copy::offset.key, offset},
                                        {offset_copy::variant.key, variant}},
                                       2.0 * n * sizeof(Word), Series(t), check.ok(),
                                       std::move(extra)));
    }
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  sweep<uint32_t>(ctx, offset_copy::max_offset_4);
  sweep<uint64_t>(ctx, offset_copy::max_offset_8);
}

} // namespace

APOD_EXPERIMENT(offset_copy::experiment, run);

} // namespace apod
