#include "workloads.cuh"

#include "core/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace apod::scaling {
namespace {

constexpr uint64_t compute_seed = 0x5CA11AB1E;
constexpr float fma_addend = 0.5f;
constexpr size_t verified_chains_per_point = 1024; // compute elements recomputed on the host
constexpr int stream_vectors_per_thread = 4;
constexpr uint64_t stream_seed = 0x57EA3ull;
constexpr uint64_t stream_key = 0x5A5AA5A50F0FF0F0ull;
constexpr int chase_table_log2 = 26; // 2^26 four-byte indices: 256 MiB
constexpr int chase_block = 1;       // one lane per warp: a link waits for its own load only

// ---- Compute-bound.
__host__ __device__ inline float input_value(uint64_t i) {
  return 1.0f + float(fill_value(compute_seed, i) >> 40) * 0x1p-24f; // [1, 2): never zero
}

__global__ void init_input_kernel(float* in, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    in[i] = input_value(i);
}

// One dependent FMA chain per element: one load and one store per `iterations` FMAs.
__global__ void __launch_bounds__(block_size)
    fma_chain_kernel(float* out, const float* in, size_t n, float a, float b, int iterations) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
#pragma unroll 16 // keeps loop overhead out of the FMA pipe's issue slots
  for (int k = 0; k < iterations; ++k)
    x = fmaf(x, a, b);
  out[i] = x;
}

// ---- Memory-bound.
__global__ void __launch_bounds__(block_size)
    stream_kernel(uint4* __restrict__ out, const uint4* __restrict__ in) {
  const size_t base = blockIdx.x * size_t(block_size * stream_vectors_per_thread) + threadIdx.x;
  const uint32_t lo = uint32_t(stream_key), hi = uint32_t(stream_key >> 32);
  uint4 v[stream_vectors_per_thread];
#pragma unroll
  for (int k = 0; k < stream_vectors_per_thread; ++k)
    v[k] = in[base + k * block_size];
#pragma unroll
  for (int k = 0; k < stream_vectors_per_thread; ++k) // little-endian: x, z low words
    out[base + k * block_size] = make_uint4(v[k].x ^ lo, v[k].y ^ hi, v[k].z ^ lo, v[k].w ^ hi);
}

__global__ void count_stream_errors_kernel(const uint64_t* out, size_t words,
                                           unsigned long long* wrong) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words;
       i += size_t(gridDim.x) * blockDim.x)
    local += out[i] != (fill_value(stream_seed, i) ^ stream_key);
  if (local)
    atomicAdd(wrong, local);
}

// ---- Latency-bound.
__global__ void fill_chase_table_kernel(uint32_t* table, size_t n, ChaseChain chain) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    table[i] = chain.next(uint32_t(i));
}

// Each link's address is the value the previous link loaded: nothing overlaps within a chain,
// so the time is steps x the load latency, whatever the SM count.
__global__ void chase_kernel(const uint32_t* __restrict__ table,
                             const uint32_t* __restrict__ starts, uint32_t* out, uint32_t steps) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t x = starts[t];
  for (uint32_t k = 0; k < steps; ++k)
    x = table[x];
  out[t] = x;
}

} // namespace

ComputeWorkload::ComputeWorkload(size_t max_elements, int iterations)
    : in_(max_elements), out_(max_elements), iterations_(iterations) {
  init_input_kernel<<<1024, 256>>>(in_.get(), max_elements);
  APOD_CUDA_LAUNCH();
  APOD_CUDA(cudaDeviceSynchronize());
}

int ComputeWorkload::resident_blocks_per_sm() {
  int blocks = 0;
  APOD_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fma_chain_kernel, block_size, 0));
  return blocks;
}

void ComputeWorkload::launch(cudaStream_t stream, size_t elements) const {
  if (elements > in_.size())
    throw std::logic_error("ComputeWorkload: more elements than allocated");
  fma_chain_kernel<<<unsigned((elements + block_size - 1) / block_size), block_size, 0, stream>>>(
      out_.get(), in_.get(), elements, multiplier_, fma_addend, iterations_);
  APOD_CUDA_LAUNCH();
}

bool ComputeWorkload::verify(cudaStream_t stream, size_t elements) const {
  APOD_CUDA(cudaMemsetAsync(out_.get(), 0xFF, elements * sizeof(float), stream));
  launch(stream, elements);
  APOD_CUDA(cudaStreamSynchronize(stream));
  std::vector<float> got(elements);
  APOD_CUDA(cudaMemcpy(got.data(), out_.get(), elements * sizeof(float), cudaMemcpyDeviceToHost));
  const size_t unwritten = parallel_count(elements, [&](size_t b, size_t e) {
    size_t bad = 0;
    for (size_t i = b; i < e; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &got[i], 4);
      bad += bits == 0xFFFFFFFFu;
    }
    return bad;
  });
  const size_t checked = std::min(verified_chains_per_point, elements);
  const size_t wrong = parallel_count(checked, [&](size_t b, size_t e) {
    size_t bad = 0;
    for (size_t j = b; j < e; ++j) {
      const size_t i = j == checked - 1 ? elements - 1 : j * (elements / checked);
      float x = input_value(i);
      for (int k = 0; k < iterations_; ++k)
        x = std::fmaf(x, multiplier_, fma_addend);
      bad += std::memcmp(&x, &got[i], 4) != 0;
    }
    return bad;
  });
  return unwritten == 0 && wrong == 0;
}

StreamWorkload::StreamWorkload(size_t bytes_each) : in_(bytes_each / 8), out_(bytes_each / 8) {
  if (bytes_each % (16 * block_size * stream_vectors_per_thread) != 0)
    throw std::logic_error("StreamWorkload: the arrays must be whole tiles");
  fill_device(in_.get(), in_.size(), stream_seed);
  APOD_CUDA(cudaDeviceSynchronize());
}

void StreamWorkload::launch(cudaStream_t stream) const {
  const size_t tiles = in_.bytes() / (16 * block_size * stream_vectors_per_thread);
  stream_kernel<<<unsigned(tiles), block_size, 0, stream>>>(
      reinterpret_cast<uint4*>(out_.get()), reinterpret_cast<const uint4*>(in_.get()));
  APOD_CUDA_LAUNCH();
}

bool StreamWorkload::verify(cudaStream_t stream) const {
  APOD_CUDA(cudaMemsetAsync(out_.get(), 0xA5, out_.bytes(), stream));
  APOD_CUDA(cudaMemsetAsync(wrong_.get(), 0, sizeof(unsigned long long), stream));
  launch(stream);
  count_stream_errors_kernel<<<1024, 256, 0, stream>>>(out_.get(), out_.size(), wrong_.get());
  APOD_CUDA_LAUNCH();
  unsigned long long wrong = 1;
  APOD_CUDA(cudaStreamSynchronize(stream));
  APOD_CUDA(cudaMemcpy(&wrong, wrong_.get(), sizeof wrong, cudaMemcpyDeviceToHost));
  return wrong == 0;
}

ChaseWorkload::ChaseWorkload(int chains, uint32_t steps)
    : chain_{(1u << chase_table_log2) - 1}, chains_(chains), steps_(steps),
      table_(size_t(1) << chase_table_log2), out_(size_t(chains)) {
  if (chains <= 0 || chains % chase_block != 0 || steps == 0)
    throw std::logic_error("ChaseWorkload: chains and steps must be positive");
  groups_ = table_.size() / steps / size_t(chains);
  if (groups_ == 0)
    throw std::logic_error("ChaseWorkload: the chains do not fit one cycle");
  starts_ = chase_segment_starts(chain_, steps, groups_ * size_t(chains));
  starts_device_ = DeviceBuffer<uint32_t>(starts_.size());
  APOD_CUDA(cudaMemcpy(starts_device_.get(), starts_.data(), starts_device_.bytes(),
                       cudaMemcpyHostToDevice));
  fill_chase_table_kernel<<<1024, 256>>>(table_.get(), table_.size(), chain_);
  APOD_CUDA_LAUNCH();
  APOD_CUDA(cudaDeviceSynchronize());
}

size_t ChaseWorkload::first_segment(int launch_index) const {
  return (size_t(launch_index) % groups_) * size_t(chains_);
}

void ChaseWorkload::launch(cudaStream_t stream, int launch_index) const {
  chase_kernel<<<unsigned(chains_ / chase_block), chase_block, 0, stream>>>(
      table_.get(), starts_device_.get() + first_segment(launch_index), out_.get(), steps_);
  APOD_CUDA_LAUNCH();
}

bool ChaseWorkload::verify(cudaStream_t stream, int launch_index) const {
  APOD_CUDA(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), stream));
  launch(stream, launch_index);
  APOD_CUDA(cudaStreamSynchronize(stream));
  std::vector<uint32_t> got(out_.size());
  APOD_CUDA(cudaMemcpy(got.data(), out_.get(), out_.bytes(), cudaMemcpyDeviceToHost));
  const size_t first = first_segment(launch_index);
  for (size_t t = 0; t < got.size(); ++t)
    if (got[t] != starts_[first + t + 1])
      return false;
  return true;
}

} // namespace apod::scaling
