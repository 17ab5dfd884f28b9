// The L2 flush used between samples. A write over the cache (nvbench's memset, apod's until
// issue 12) evicts what the previous sample left but fills the L2 with its own dirty lines, and
// the next timed kernel pays for writing them back: ~60 MiB on the H200, 3724 against 3812 GB/s
// for the same copy. So the flush reads: one pass over a buffer that nothing else touches evicts
// the previous sample's lines (its dirty ones are written back now, outside the timed region) and
// leaves only clean lines, which the timed kernel replaces without writing anything back. The
// buffer is 4x the L2: 2x evicts everything under LRU replacement, which NVIDIA does not
// document; 4x would leave under e^-4 (2%) of the old lines even if replacement were random.
#include "core/in_flight.cuh"
#include "core/timing.cuh"

#include <cstdint>

namespace apod {

namespace {

constexpr int flush_size_factor = 4;
constexpr int block_size = 256;
constexpr int loads_per_thread = 4; // independent 16-byte loads in flight, so the pass is short

void* flush_buffer = nullptr;
size_t flush_vectors = 0; // 16-byte vectors in the buffer
unsigned flush_grid = 0;
int flush_device = -1;

// Reads every vector of `data`. The XOR of a zeroed buffer is 0, never the non-zero `never`,
// so nothing is stored; the compiler cannot know that, so every load stays.
__global__ void read_pass_kernel(const uint4* __restrict__ data, size_t vectors, uint32_t never,
                                 uint32_t* sink) {
  const size_t threads = size_t(gridDim.x) * blockDim.x;
  uint32_t acc = 0;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (; i + (loads_per_thread - 1) * threads < vectors; i += loads_per_thread * threads) {
    uint4 v[loads_per_thread];
    load_all(v, data, [=](int k) { return i + k * threads; });
#pragma unroll
    for (int k = 0; k < loads_per_thread; ++k)
      acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < vectors; i += threads) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == never)
    *sink = acc;
}

} // namespace

void release_l2_flush_buffer() {
  if (flush_buffer)
    cudaFree(flush_buffer);
  flush_buffer = nullptr;
  flush_vectors = 0;
  flush_device = -1;
}

void flush_l2(cudaStream_t stream) {
  int device = 0;
  APOD_CUDA(cudaGetDevice(&device));
  if (device != flush_device) {
    release_l2_flush_buffer();
    int l2_bytes = 0, sm_count = 0;
    APOD_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    APOD_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    if (l2_bytes <= 0)
      return;
    const size_t bytes = size_t(flush_size_factor) * size_t(l2_bytes);
    // The buffer, then one word for the store that never happens.
    APOD_CUDA(cudaMalloc(&flush_buffer, bytes + sizeof(uint4)));
    APOD_CUDA(cudaMemset(flush_buffer, 0, bytes + sizeof(uint4)));
    APOD_CUDA(cudaDeviceSynchronize());
    flush_vectors = bytes / sizeof(uint4);
    flush_grid = unsigned(4 * sm_count);
    flush_device = device;
  }
  const auto* data = static_cast<const uint4*>(flush_buffer);
  auto* sink = reinterpret_cast<uint32_t*>(static_cast<uint4*>(flush_buffer) + flush_vectors);
  read_pass_kernel<<<flush_grid, block_size, 0, stream>>>(data, flush_vectors, 0x9E3779B9u, sink);
  APOD_CUDA_LAUNCH();
}

} // namespace apod
