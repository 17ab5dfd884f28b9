// What the gpu suites share: a recorder that keeps what an experiment records, the reduced run
// options (--quick sizes, a short look at each point), and a main that skips without a GPU.
#pragma once

#include "core/device.hpp"
#include "core/experiment.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace apod::gpu_test {

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

/// Runs experiment `name` once on GPU 0 at reduced size, each record checked against its
/// declaration, and returns its points (an experiment's own gpu test starts here). A name not
/// linked into the test fails it and returns none.
inline std::vector<Measurement> run_reduced(const std::string& name) {
  const ExperimentInfo* info = find_experiment(name);
  if (!info) {
    ADD_FAILURE() << name << " is not linked into this test";
    return {};
  }
  const DeviceInfo device = query_device(0);
  const RunOptions options = reduced();
  Collect out;
  ExperimentContext ctx{device, options, out, info->name, nullptr, info};
  info->run(ctx);
  return std::move(out.measurements);
}

/// A point's median over its used samples.
inline double median_of(const Measurement& m) {
  return summarize(m.used_samples()).median;
}

/// The keys of a point's params.
inline std::set<std::string> keys_of(const json& params) {
  std::set<std::string> keys;
  for (const auto& [key, value] : params.items())
    keys.insert(key);
  return keys;
}

/// Runs the tests on GPU 0; without a GPU exits 77, which Meson reports as skipped.
inline int run_gpu_tests(int argc, char** argv) {
  if (device_count() == 0) {
    std::printf("no CUDA-capable device: gpu suite skipped\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

/// cuobjdump from PATH, else the toolkit's default place; "" when neither exists.
inline std::string find_cuobjdump() {
  if (std::system("command -v cuobjdump > /dev/null 2>&1") == 0)
    return "cuobjdump";
  if (std::FILE* f = std::fopen("/usr/local/cuda/bin/cuobjdump", "r")) {
    std::fclose(f);
    return "/usr/local/cuda/bin/cuobjdump";
  }
  return "";
}

/// The standard output of a shell command ("" when it cannot start).
inline std::string run_command(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string text;
  if (!pipe)
    return text;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe.get()))
    text.append(buffer, n);
  return text;
}

} // namespace apod::gpu_test
