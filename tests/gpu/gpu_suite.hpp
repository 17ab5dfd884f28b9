// What the gpu suite's programs share: a recorder that keeps what it is given, the reduced run
// options every gpu test uses, and a main that skips the whole program (exit 77, which Meson
// reports as skipped, never as passed) where there is no GPU.
#pragma once

#include "core/device.hpp"
#include "core/experiment.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <utility>
#include <vector>

namespace apod::gpu_suite {

class Collect : public Recorder {
public:
  void record(Measurement m) override { measurements.push_back(std::move(m)); }
  std::vector<Measurement> measurements;
};

/// --quick sizes and a short look at each point.
inline RunOptions reduced() {
  RunOptions options;
  options.quick = true;
  options.sampling.min_samples = 3;
  options.sampling.max_samples = 6;
  options.sampling.max_point_s = 0.05;
  options.sampling.warmup = 1;
  return options;
}

/// The tests' main: 77 without a GPU, else every test.
inline int run_tests(int argc, char** argv) {
  if (device_count() == 0) {
    std::printf("no CUDA-capable device: gpu suite skipped\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

} // namespace apod::gpu_suite
