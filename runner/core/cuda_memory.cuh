// RAII owners for device and pinned host memory and for streams, and the non-zero fill every
// experiment uses.
#pragma once

#include "core/cuda_check.cuh"

#include <cstddef>
#include <cstdint>
#include <utility>

namespace apod {

/// A created CUDA stream, or the default stream (nullptr) when `create` is false.
class OwnedStream {
public:
  explicit OwnedStream(bool create = true) {
    if (create)
      APOD_CUDA(cudaStreamCreate(&stream_));
  }
  ~OwnedStream() {
    if (stream_)
      cudaStreamDestroy(stream_);
  }
  OwnedStream(OwnedStream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return stream_; }

private:
  cudaStream_t stream_ = nullptr;
};

template <class T> class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    APOD_CUDA(cudaMalloc(&ptr_, count * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr_)
      cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(o.count_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

/// Page-locked host memory; `flags` as for cudaHostAlloc (cudaHostAllocMapped for zero copy).
template <class T> class PinnedBuffer {
public:
  explicit PinnedBuffer(size_t count, unsigned flags = cudaHostAllocDefault) : count_(count) {
    APOD_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T), flags));
  }
  ~PinnedBuffer() {
    if (ptr_)
      cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* get() const { return ptr_; }
  T& operator[](size_t i) const { return ptr_[i]; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

/// SplitMix64: the value every fill writes at index i for a seed. Never returns zero, so an
/// unwritten (zeroed) output can't pass verification by accident.
__host__ __device__ inline uint64_t fill_value(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z ? z : 1;
}

template <class Word> __global__ void fill_kernel(Word* out, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = static_cast<Word>(fill_value(seed, i));
}

/// Fills `n` words of device memory with fill_value(seed, i) (truncated to Word).
template <class Word>
void fill_device(Word* out, size_t n, uint64_t seed, cudaStream_t stream = nullptr) {
  fill_kernel<<<1024, 256, 0, stream>>>(out, n, seed);
  APOD_CUDA_LAUNCH();
}

/// The value a word filled by fill_device holds at index i.
template <class Word> Word expected_fill(uint64_t seed, size_t i) {
  return static_cast<Word>(fill_value(seed, i));
}

} // namespace apod
