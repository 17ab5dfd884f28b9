// offsetCopy, CUDA C++ Best Practices Guide 9.2.1.3 (shared/seeds/000_...): a copy whose
// accesses start `offset` words past an aligned address. The guide uses 4-byte words with
// offsets 0..32 (V100: ~790 GB/s aligned, ~9/10 of that misaligned); Stich's slides add 8-byte
// words (shared/seeds/001_...). Bytes counted: every word read once and written once.
#include "core/bandwidth.hpp"
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/timing.cuh"
#include "core/verify.hpp"

#include <cstring>
#include <vector>

namespace apod {
namespace {

constexpr int block_size = 256;
constexpr uint64_t seed = 0x0FF5E7C0;

// As in the guide, no __restrict__: the kernel should issue the loads the guide discusses.
template <class Word>
__global__ void offset_copy_kernel(Word* odata, const Word* idata, int offset) {
  const size_t xid = blockIdx.x * size_t(blockDim.x) + threadIdx.x + offset;
  odata[xid] = idata[xid];
}

/// Words copied per launch: enough that input and output are each at least 4x the L2 size.
size_t copy_words(const ExperimentContext& ctx, size_t word_bytes) {
  const size_t bytes = ctx.options.quick ? (size_t(16) << 20) : std::max<size_t>(4 * ctx.device.l2_bytes, 64 << 20);
  return (bytes / word_bytes + block_size - 1) / block_size * block_size;
}

template <class Word>
void sweep(ExperimentContext& ctx, int max_offset) {
  const size_t n = copy_words(ctx, sizeof(Word));
  const size_t total = n + max_offset;
  DeviceBuffer<Word> in(total), out(total);
  fill_device(in.get(), total, seed);
  std::vector<Word> expected(total), result(total);
  parallel_count(total, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) expected[i] = expected_fill<Word>(seed, i);
    return size_t(0);
  });
  Word poison;
  std::memset(&poison, 0xA5, sizeof poison);
  cudaStream_t stream = nullptr;  // the legacy default stream, as in the guide
  const unsigned grid = static_cast<unsigned>(n / block_size);

  for (int offset = 0; offset <= max_offset; ++offset) {
    APOD_CUDA(cudaMemset(out.get(), 0xA5, out.bytes()));
    const auto times_ms = time_samples_ms(ctx.options.sampling, stream, [&](cudaStream_t s) {
      offset_copy_kernel<Word><<<grid, block_size, 0, s>>>(out.get(), in.get(), offset);
      APOD_CUDA_LAUNCH();
    });
    APOD_CUDA(cudaMemcpy(result.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    // Words [offset, offset + n) must equal the input; the words before must be untouched.
    size_t wrong = std::memcmp(result.data() + offset, expected.data() + offset, n * sizeof(Word)) != 0;
    for (int i = 0; i < offset; ++i) wrong += std::memcmp(&result[i], &poison, sizeof(Word)) != 0;

    Measurement m = bandwidth_measurement({{"word_bytes", int(sizeof(Word))}, {"offset", offset}},
                                          2.0 * n * sizeof(Word), times_ms);
    m.verified = wrong == 0;
    m.extra["words"] = n;
    m.extra["kernel"] = kernel_facts(offset_copy_kernel<Word>, block_size, grid);
    m.extra["seed"] = seed;
    ctx.record(std::move(m));
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  sweep<uint32_t>(ctx, 32);
  sweep<uint64_t>(ctx, 16);
}

}  // namespace

APOD_EXPERIMENT(ExperimentInfo{
    .name = "offset_copy",
    .title = "Misaligned copy (offsetCopy)",
    .description = "Effective bandwidth of a copy kernel whose accesses start `offset` words past an "
                   "aligned address, for 4-byte words (offsets 0..32) and 8-byte words (0..16). "
                   "Each buffer is at least 4x the L2 cache; every point's output is checked on the host.",
    .citation = "CUDA C++ Best Practices Guide 9.2.1.3; T. Stich, Advanced CUDA Programming (alignment slides)",
    .version = 1,
    .order = 10,
    .chart = {.x = "offset", .x_title = "offset (words)", .color = "word_bytes"},
    .run = run,
});

}  // namespace apod
