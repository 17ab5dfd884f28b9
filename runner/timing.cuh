// The measurement core: warm up, then time each sample with a pair of CUDA events on the
// experiment's stream, synchronising after each so samples are independent (METHOD.md).
#pragma once

#include "cuda_check.cuh"
#include "experiment.hpp"

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

/// Times `launch(stream)`: policy.warmup untimed calls, then policy.min_samples timed ones.
/// Returns each sample's elapsed time in milliseconds, in the order taken.
template <class Launch>
std::vector<double> time_samples_ms(const SamplingPolicy& policy, cudaStream_t stream, Launch&& launch) {
  for (int i = 0; i < policy.warmup; ++i) launch(stream);
  APOD_CUDA(cudaStreamSynchronize(stream));
  APOD_CUDA(cudaGetLastError());
  EventPair events;
  std::vector<double> samples_ms;
  samples_ms.reserve(policy.min_samples);
  for (int i = 0; i < policy.min_samples; ++i) {
    events.start(stream);
    launch(stream);
    events.stop(stream);
    samples_ms.push_back(events.elapsed_ms());
  }
  APOD_CUDA(cudaGetLastError());
  return samples_ms;
}

}  // namespace apod
