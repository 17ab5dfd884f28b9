#include "serial_phase.hpp"

#include <algorithm>
#include <chrono>
#include <random>

namespace apod {

namespace {
constexpr unsigned serial_seed = 0xF00D;
volatile double sink = 0; // every pass's sum is stored, so no pass is elided
} // namespace

SerialPhase::SerialPhase(double target_ms) {
  resize(size_t(1) << 20);
  double best_ms = 1e30;
  for (int i = 0; i < 5; ++i)
    best_ms = std::min(best_ms, run().ms);
  const double scaled = double(data_.size()) * target_ms / std::max(best_ms, 1e-6);
  resize(std::clamp<size_t>(size_t(scaled), size_t(1) << 12, size_t(1) << 27));
}

void SerialPhase::resize(size_t n) {
  std::mt19937_64 rng(serial_seed); // the same values at every size: the mean is reproducible
  data_.resize(n);
  for (double& v : data_)
    v = double(rng() >> 11) * 0x1p-53;
}

SerialPhase::Pass SerialPhase::run() const {
  const auto t0 = std::chrono::steady_clock::now();
  double sum = 0;
  for (double v : data_)
    sum += v; // in order: a dependent chain the compiler may not reorder
  sink = sum;
  const auto t1 = std::chrono::steady_clock::now();
  return {std::chrono::duration<double, std::milli>(t1 - t0).count(), sum / double(data_.size())};
}

Series SerialPhase::sample(int count) const {
  run();
  Series ms;
  for (int i = 0; i < count; ++i)
    ms.add(run().ms);
  return ms;
}

} // namespace apod
