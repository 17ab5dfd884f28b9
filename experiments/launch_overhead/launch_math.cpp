// Host arithmetic of launch_overhead: see launch_math.hpp.
#include "launch_math.hpp"

#include <algorithm>
#include <stdexcept>

namespace apod::launch {

const std::vector<Method>& methods() {
  static const std::vector<Method> all = {
      {"stream", 1, true, false},           {"stream_submit", 1, false, false},
      {"round_trip", 1, false, false},      {"launch_ex", 1, true, false},
      {"launch_ex_cluster", 1, true, true}, {"graph_10", 10, true, false},
      {"graph_100", 100, true, false},      {"graph_1000", 1000, true, false}};
  return all;
}

int kernels_per_sample(const Method& m, bool quick) {
  if (m.name == "round_trip")
    return quick ? 20 : 100; // ~10 us each: ~1 ms a sample
  if (m.name == "stream_submit")
    return quick ? 64 : 256;
  const int batch = quick ? 100 : 200;
  if (m.graph())
    return std::max(1, batch / m.kernels_per_call) * m.kernels_per_call;
  return batch;
}

int graph_launches_per_sample(const Method& m, bool quick) {
  return kernels_per_sample(m, quick) / std::max(1, m.kernels_per_call);
}

double per_kernel_us(double sample_ms, long long kernels) {
  if (kernels < 1)
    throw std::invalid_argument("per_kernel_us: a sample has at least one kernel");
  return sample_ms * 1000.0 / double(kernels);
}

unsigned long long expected_count(long long launches, int blocks_per_launch, int cluster_size) {
  return static_cast<unsigned long long>(launches) * unsigned(blocks_per_launch) *
         unsigned(cluster_size);
}

} // namespace apod::launch
