// Checking a large output where it lies: every word compared on the device with the value a rule
// expects, and the first and last words brought back and compared again on the host, so the
// host checks the device's check. The memory experiments write 0.5 to 16 GiB per point, tens of
// points each: bringing every word back and comparing it on the host would take longer than
// measuring them. The rule is a __host__ __device__ functor, `Word operator()(size_t i) const`,
// giving the word expected at index i; the same rule serves both sides.
#pragma once

#include "core/cuda_memory.cuh"
#include "core/measurement.hpp"
#include "core/vocabulary.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace apod {

template <class Word, class Expected>
__global__ void count_wrong_kernel(const Word* data, size_t count, Expected expected,
                                   unsigned long long* wrong) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    local += data[i] != expected(i);
  if (local)
    atomicAdd(wrong, local);
}

/// What check_output found.
struct OutputCheck {
  uint64_t device_wrong = 0; ///< words of the whole output that differ from the rule
  uint64_t host_wrong = 0;   ///< of the words compared on the host, those that differ
  uint64_t host_checked = 0; ///< how many words the host compared
  bool ok() const { return device_wrong == 0 && host_wrong == 0 && host_checked > 0; }
  /// The counts, for Measurement::extra.
  json facts() const {
    return {{keys::words_wrong, device_wrong},
            {keys::host_words_wrong, host_wrong},
            {keys::host_words_checked, host_checked}};
  }
};

/// Compares data[0, count) with expected(i): every word on the device, and the first and last
/// `host_window` words (all of them when fewer) on the host. Synchronises the device.
template <class Word, class Expected>
OutputCheck check_output(const Word* data, size_t count, const Expected& expected,
                         size_t host_window = size_t(1) << 16) {
  OutputCheck check;
  DeviceBuffer<unsigned long long> wrong(1);
  APOD_CUDA(cudaMemset(wrong.get(), 0, sizeof(unsigned long long)));
  // Enough threads to keep DRAM busy (a few waves on any current GPU), each striding the rest.
  const size_t grid = std::clamp<size_t>((count + 255) / 256, 1, 32768);
  count_wrong_kernel<<<unsigned(grid), 256>>>(data, count, expected, wrong.get());
  APOD_CUDA_LAUNCH();
  unsigned long long device_wrong = 0;
  APOD_CUDA(cudaMemcpy(&device_wrong, wrong.get(), sizeof device_wrong, cudaMemcpyDeviceToHost));
  check.device_wrong = device_wrong;

  const size_t head = std::min(count, host_window);
  const size_t tail_begin = std::max(head, count - std::min(count, host_window));
  std::vector<Word> got(std::max(head, count - tail_begin));
  auto compare = [&](size_t begin, size_t end) {
    APOD_CUDA(
        cudaMemcpy(got.data(), data + begin, (end - begin) * sizeof(Word), cudaMemcpyDeviceToHost));
    for (size_t i = begin; i < end; ++i)
      check.host_wrong += got[i - begin] != expected(i);
    check.host_checked += end - begin;
  };
  compare(0, head);
  compare(tail_begin, count);
  return check;
}

/// The word a buffer cleared with cudaMemset(ptr, byte, size) holds, e.g. 0xA5A5A5A5.
template <class Word> constexpr Word repeated_byte(uint8_t byte) {
  return static_cast<Word>(0x0101010101010101ull * byte);
}

} // namespace apod
