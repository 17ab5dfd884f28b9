#include "kernels.cuh"

#include "core/cuda_check.cuh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

namespace apod::concurrency {
namespace {

// A kernel that never sees the gate open leaves after 2 s rather than hang the GPU (its record
// says so, and the point fails).
constexpr unsigned long long gate_timeout_ns = 2000000000ull;

__device__ __forceinline__ unsigned long long globaltimer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The chain's constants come in as arguments, so the compiler cannot fold the loop.
__global__ void __launch_bounds__(kernel_threads)
    chain_kernel(uint32_t* __restrict__ out, KernelRecord* __restrict__ records,
                 const volatile int* gate, uint32_t index, int steps, uint32_t multiplier,
                 uint32_t addend) {
  __shared__ unsigned long long start;
  __shared__ uint32_t timed_out;
  if (threadIdx.x == 0) {
    const unsigned long long arrived = globaltimer_ns();
    uint32_t late = 0;
    while (*gate == 0)
      if (globaltimer_ns() - arrived > gate_timeout_ns) {
        late = 1;
        break;
      }
    timed_out = late;
    start = globaltimer_ns();
  }
  __syncthreads();
  uint32_t x = chain_seed(index, threadIdx.x);
#pragma unroll 4
  for (int s = 0; s < steps; ++s)
    x = x * multiplier + addend;
  out[size_t(index) * kernel_threads + threadIdx.x] = x;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t sm = 0;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    KernelRecord r;
    r.start_ns = start, r.end_ns = globaltimer_ns(), r.sm = sm, r.gate_timed_out = timed_out;
    records[index] = r;
  }
}

constexpr unsigned mapped = cudaHostAllocMapped | cudaHostAllocPortable;

} // namespace

Batch::Batch(size_t max_kernels)
    : max_kernels_(max_kernels), gate_(1, mapped), out_(max_kernels * kernel_threads, mapped),
      records_(max_kernels, mapped) {
  *gate_.get() = 1;
}

Batch::~Batch() {
  open();
  cudaDeviceSynchronize(); // the current context's kernels are done with the memory
}

void Batch::reset(size_t kernels) {
  *static_cast<volatile int*>(gate_.get()) = 0;
  std::memset(out_.get(), 0, kernels * kernel_threads * sizeof(uint32_t));
  std::fill(records_.get(), records_.get() + kernels, KernelRecord{});
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void Batch::launch(cudaStream_t stream, uint32_t index, int steps) const {
  if (index >= max_kernels_)
    throw std::logic_error("Batch::launch: kernel index past the batch");
  chain_kernel<<<1, kernel_threads, 0, stream>>>(out_.get(), records_.get(), gate_.get(), index,
                                                 steps, chain_multiplier, chain_addend);
  APOD_CUDA_LAUNCH();
}

void Batch::open() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *static_cast<volatile int*>(gate_.get()) = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

std::vector<Window> Batch::windows(size_t kernels,
                                   const std::function<int(size_t)>& group_of) const {
  std::vector<Window> w(kernels);
  for (size_t i = 0; i < kernels; ++i)
    w[i] = {records_[i].start_ns, records_[i].end_ns, group_of(i)};
  return w;
}

size_t Batch::count_wrong(size_t kernels, int steps) const {
  size_t wrong = 0;
  for (size_t k = 0; k < kernels; ++k) {
    wrong += records_[k].end_ns <= records_[k].start_ns; // no window: the kernel did not run
    for (uint32_t lane = 0; lane < kernel_threads; ++lane)
      wrong += out_[k * kernel_threads + lane] != chain(chain_seed(uint32_t(k), lane), steps);
  }
  return wrong;
}

size_t Batch::gate_timeouts(size_t kernels) const {
  size_t n = 0;
  for (size_t k = 0; k < kernels; ++k)
    n += records_[k].gate_timed_out != 0;
  return n;
}

double Batch::median_window_ns(size_t kernels) const {
  std::vector<double> d;
  for (size_t k = 0; k < kernels; ++k)
    d.push_back(double(records_[k].end_ns) - double(records_[k].start_ns));
  if (d.empty())
    return 0;
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

int kernel_blocks_per_sm() {
  int blocks = 0;
  APOD_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, chain_kernel, kernel_threads, 0));
  return blocks;
}

int calibrate_steps(Batch& batch, cudaStream_t stream, double target_ns) {
  constexpr int probe_steps = 8192;
  double window = 0;
  for (int i = 0; i < 2; ++i) {
    batch.reset(1);
    batch.open();
    batch.launch(stream, 0, probe_steps);
    APOD_CUDA(cudaStreamSynchronize(stream));
    window = batch.median_window_ns(1);
  }
  if (!(window > 0))
    throw std::runtime_error("calibrate_steps: the probe kernel's window is not positive");
  return std::clamp(int(std::lround(probe_steps * target_ns / window)), 1024, 1 << 22);
}

} // namespace apod::concurrency
