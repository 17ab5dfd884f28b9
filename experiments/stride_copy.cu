// strideCopy, CUDA C++ Best Practices Guide 9.2.1.4 (shared/seeds/000_...): thread i copies word
// i x stride, so a warp's 32 accesses spread over more 32-byte sectors as the stride grows.
// Bandwidth counts the useful bytes only (each copied word read once and written once), as the
// guide's Figure 7 does; the wasted part of each sector is what the falling curve shows.
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
constexpr int max_stride = 32;
constexpr uint64_t seed = 0x57121DE;

template <class Word>
__global__ void stride_copy_kernel(Word* odata, const Word* idata, int stride) {
  const size_t xid = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) * stride;
  odata[xid] = idata[xid];
}

// Verification helper: brings back each copied word and its right-hand neighbour, which the
// copy must not have touched, so the host checks both without reading the whole span.
template <class Word>
__global__ void gather_kernel(Word* copied, Word* neighbour, const Word* odata, size_t n, int stride) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    copied[i] = odata[i * stride];
    neighbour[i] = odata[i * stride + 1];
  }
}

void run(ExperimentContext& ctx) {
  using Word = float;  // the guide's kernel copies floats; bit patterns are compared exactly
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  // Threads: the copied words fill at least 4x the L2; at stride 32 the touched span is 32x that,
  // capped at a quarter of device memory for both buffers on small GPUs.
  size_t n = ctx.options.quick ? (size_t(1) << 20) : std::max<size_t>(4 * ctx.device.l2_bytes, 64 << 20) / sizeof(Word);
  const size_t memory_cap = size_t(ctx.device.total_memory_bytes) / 4 / (2 * max_stride * sizeof(Word) + 2);
  n = std::min(n, memory_cap) / block_size * block_size;
  const size_t span = n * max_stride + 1;
  DeviceBuffer<Word> in(span), out(span), copied(n), neighbour(n);
  fill_device(reinterpret_cast<uint32_t*>(in.get()), span, seed);
  std::vector<uint32_t> got(n), next(n);
  const unsigned grid = static_cast<unsigned>(n / block_size);

  for (int stride = 1; stride <= max_stride; ++stride) {
    APOD_CUDA(cudaMemset(out.get(), 0xA5, out.bytes()));
    const auto times_ms = time_samples_ms(ctx.options.sampling, nullptr, [&](cudaStream_t s) {
      stride_copy_kernel<Word><<<grid, block_size, 0, s>>>(out.get(), in.get(), stride);
      APOD_CUDA_LAUNCH();
    });
    gather_kernel<<<1024, 256>>>(copied.get(), neighbour.get(), out.get(), n, stride);
    APOD_CUDA_LAUNCH();
    APOD_CUDA(cudaMemcpy(got.data(), copied.get(), copied.bytes(), cudaMemcpyDeviceToHost));
    APOD_CUDA(cudaMemcpy(next.data(), neighbour.get(), neighbour.bytes(), cudaMemcpyDeviceToHost));
    const size_t wrong = parallel_count(n, [&](size_t b, size_t e) {
      size_t bad = 0;
      for (size_t i = b; i < e; ++i) {
        bad += got[i] != expected_fill<uint32_t>(seed, i * stride);
        // With stride 1 the neighbour is the next copied word; otherwise it must be untouched.
        const uint32_t want_next = stride == 1 ? expected_fill<uint32_t>(seed, i + 1) : 0xA5A5A5A5u;
        bad += (stride > 1 || i + 1 < n) && next[i] != want_next;
      }
      return bad;
    });
    Measurement m = bandwidth_measurement({{"stride", stride}}, 2.0 * n * sizeof(Word), times_ms);
    m.verified = wrong == 0;
    m.extra["words"] = n;
    m.extra["span_bytes"] = double(span * sizeof(Word));
    m.extra["kernel"] = kernel_facts(stride_copy_kernel<Word>, block_size, grid);
    m.extra["seed"] = seed;
    ctx.record(std::move(m));
  }
}

}  // namespace

APOD_EXPERIMENT(ExperimentInfo{
    .name = "stride_copy",
    .title = "Strided copy (strideCopy)",
    .description = "Effective bandwidth of a copy in which thread i copies word i x stride, strides 1..32; "
                   "bandwidth counts the useful bytes only. The copied words fill at least 4x the L2 "
                   "cache; every copied word and its untouched neighbour are checked on the host.",
    .citation = "CUDA C++ Best Practices Guide 9.2.1.4 (Figure 7)",
    .version = 1,
    .order = 20,
    .chart = {.x = "stride", .x_title = "stride (words)"},
    .run = run,
});

}  // namespace apod
