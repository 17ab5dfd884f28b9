// The measurement core: warm up, then time each sample with a pair of CUDA events on the
// experiment's stream, synchronising after each so samples are independent (METHOD.md). Before
// each sample the L2 cache is overwritten so no sample is served from what the previous one left
// there; around each, outside the event pair, the SM clock is measured on the device; after
// each, the monitor checks clocks and throttling. sampling.cpp decides when to stop. Each point's
// sampling loop is a point in flight (in_flight.hpp): its window and energy go with its samples.
#pragma once

#include "core/cuda_check.cuh"
#include "core/experiment.hpp"
#include "core/sampling.hpp"

#include <vector>

namespace apod {

class EventPair {
public:
  EventPair() {
    APOD_CUDA(cudaEventCreate(&start_));
    APOD_CUDA(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t s) { APOD_CUDA(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { APOD_CUDA(cudaEventRecord(stop_, s)); }
  /// Waits for the stop event and returns the time between the two, in milliseconds.
  double elapsed_ms() {
    APOD_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    APOD_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

private:
  cudaEvent_t start_{}, stop_{};
};

/// Leaves the current device's L2 cache holding only clean lines of a buffer no experiment uses
/// (a read of four times its size) on `stream`, so the next timed kernel starts from DRAM and
/// writes nothing back for earlier work (l2_flush.cu).
void flush_l2(cudaStream_t stream);
/// Frees the flush buffer; call before a device reset.
void release_l2_flush_buffer();

/// Measures the SM clock over one timed region (sm_clock.cu): start() before the start event,
/// stop() after the stop event, both on the region's stream, then read_mhz(). The two tiny
/// kernels run outside the event pair; read_mhz() waits for the second (a few microseconds).
class SmClockProbe {
public:
  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  /// The mean SM clock in MHz between start() and stop(), or NaN when it could not be measured
  /// (an interval under min_clock_interval_ns, or no block of stop() ran on start()'s SM).
  double read_mhz(cudaStream_t stream);

private:
  unsigned long long seq_ = 0;
};
/// Frees the probe's buffers; call before a device reset.
void release_sm_clock_probe();

/// Times `launch(stream)`: policy.warmup untimed calls, then timed samples until the policy's
/// stopping rule says enough. Returns each sample's elapsed time in ms, in the order taken, with
/// its flags, the SM clock measured over it, and the point's sampling window.
template <class Launch>
TimedSamples time_samples_ms(const SamplingPolicy& policy, cudaStream_t stream, Launch&& launch) {
  for (int i = 0; i < policy.warmup; ++i)
    launch(stream);
  APOD_CUDA(cudaStreamSynchronize(stream));
  APOD_CUDA(cudaGetLastError());
  in_flight::PointScope point;
  EventPair events;
  SmClockProbe clock;
  AdaptiveSampler sampler(policy);
  while (sampler.want_more()) {
    if (policy.flush_l2)
      flush_l2(stream);
    clock.start(stream);
    events.start(stream);
    launch(stream);
    events.stop(stream);
    clock.stop(stream);
    const double ms = events.elapsed_ms();
    const double mhz = clock.read_mhz(stream);
    sampler.add(ms, policy.check_sample(mhz), mhz);
  }
  APOD_CUDA(cudaGetLastError());
  TimedSamples out = sampler.finish();
  out.window = point.finish();
  return out;
}

/// Fixed-count sampling, for experiments that pair the i-th sample of one series with the i-th of
/// another (a model from tT and tE, a speed-up from two partitions): policy.warmup untimed calls,
/// then exactly policy.min_samples timed ones, each checked by the monitor and clock-measured like
/// the adaptive ones, and marked noisy by the same rule (finish_fixed). No L2 flush: the callers'
/// timed regions start with copies or passes over arrays several times the L2. Derived series
/// take their inputs' flags through Series::zip (series.hpp).
template <class Work>
TimedSamples time_fixed_ms(const SamplingPolicy& policy, cudaStream_t stream, Work&& work) {
  for (int i = 0; i < policy.warmup; ++i)
    work(stream);
  APOD_CUDA(cudaStreamSynchronize(stream));
  in_flight::PointScope point;
  EventPair events;
  SmClockProbe clock;
  TimedSamples out;
  for (int i = 0; i < policy.min_samples; ++i) {
    clock.start(stream);
    events.start(stream);
    work(stream);
    events.stop(stream);
    clock.stop(stream);
    out.ms.push_back(events.elapsed_ms());
    const double mhz = clock.read_mhz(stream);
    out.sm_clock_mhz.push_back(mhz);
    out.excluded.push_back(policy.check_sample(mhz));
  }
  APOD_CUDA(cudaGetLastError());
  finish_fixed(out, policy);
  out.window = point.finish();
  return out;
}

} // namespace apod
