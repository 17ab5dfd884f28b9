// The SM clock over a timed region, measured on the device as nvbench's gpu_frequency does
// (nvbench/detail/timestamps_kernel.cu): read an SM's cycle counter (clock64) and the GPU's
// nanosecond timer (%globaltimer) before and after the region; cycles / nanoseconds is the clock.
// clock64 counts on one SM only, so both readings must come from the same SM: the start kernel
// is one thread and records which SM it ran on; the stop kernel has one block per SM and only
// the block on that SM (the first to claim it) answers. Both run outside the event pair.
#include "core/timing.cuh"

#include <cmath>

namespace apod {

namespace {

struct StartStamp { // device memory: written by the start kernel, read by the stop kernel
  unsigned long long seq, ns, cycles;
  unsigned int sm, claimed;
};

struct Stamps { // mapped pinned host memory: the stop kernel's answer
  unsigned long long start_ns, start_cycles, stop_ns, stop_cycles, seq;
};

__device__ __forceinline__ unsigned int sm_id() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__global__ void stamp_start(StartStamp* start, unsigned long long seq) {
  start->ns = global_ns();
  start->cycles = static_cast<unsigned long long>(clock64());
  start->sm = sm_id();
  start->claimed = 0;
  start->seq = seq;
}

__global__ void stamp_stop(StartStamp* start, Stamps* out, unsigned long long seq) {
  if (start->seq != seq || start->sm != sm_id())
    return;
  if (atomicCAS(&start->claimed, 0u, 1u) != 0u)
    return; // one answer when blocks share the SM
  const unsigned long long cycles = static_cast<unsigned long long>(clock64());
  const unsigned long long ns = global_ns();
  out->start_ns = start->ns;
  out->start_cycles = start->cycles;
  out->stop_ns = ns;
  out->stop_cycles = cycles;
  __threadfence_system(); // the stamps land before the sequence number that vouches for them
  out->seq = seq;
}

// One set per process and device, like the L2 flush buffer; released before a device reset.
StartStamp* start_stamp = nullptr;
Stamps* host_stamps = nullptr; // cudaHostAllocMapped
Stamps* device_view = nullptr;
int probe_device = -1;
int probe_blocks = 0;
unsigned long long next_seq = 0;

void ensure_buffers() {
  int device = 0;
  APOD_CUDA(cudaGetDevice(&device));
  if (device == probe_device)
    return;
  release_sm_clock_probe();
  APOD_CUDA(cudaDeviceGetAttribute(&probe_blocks, cudaDevAttrMultiProcessorCount, device));
  APOD_CUDA(cudaMalloc(&start_stamp, sizeof(StartStamp)));
  APOD_CUDA(cudaMemset(start_stamp, 0, sizeof(StartStamp)));
  APOD_CUDA(cudaHostAlloc(&host_stamps, sizeof(Stamps), cudaHostAllocMapped));
  *host_stamps = Stamps{};
  APOD_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_view), host_stamps, 0));
  probe_device = device;
}

} // namespace

void release_sm_clock_probe() {
  if (start_stamp)
    cudaFree(start_stamp);
  if (host_stamps)
    cudaFreeHost(host_stamps);
  start_stamp = nullptr;
  host_stamps = device_view = nullptr;
  probe_device = -1;
}

void SmClockProbe::start(cudaStream_t stream) {
  ensure_buffers();
  seq_ = ++next_seq;
  stamp_start<<<1, 1, 0, stream>>>(start_stamp, seq_);
  APOD_CUDA_LAUNCH();
}

void SmClockProbe::stop(cudaStream_t stream) {
  if (seq_ == 0 || probe_device < 0)
    return;
  stamp_stop<<<probe_blocks, 1, 0, stream>>>(start_stamp, device_view, seq_);
  APOD_CUDA_LAUNCH();
}

double SmClockProbe::read_mhz(cudaStream_t stream) {
  if (seq_ == 0 || !host_stamps)
    return std::nan("");
  APOD_CUDA(cudaStreamSynchronize(stream));
  const volatile Stamps* s = host_stamps;
  if (s->seq != seq_)
    return std::nan(""); // no block ran on the start kernel's SM
  const ClockStamps stamps{s->start_ns, s->start_cycles, s->stop_ns, s->stop_cycles};
  const auto mhz = sm_clock_mhz_between(stamps);
  return mhz ? *mhz : std::nan("");
}

} // namespace apod
