#include "model.hpp"

#include <algorithm>
#include <stdexcept>

namespace apod::atomics {

int64_t address_count(int64_t threads, int64_t threads_per_address) {
  if (threads < 1 || threads_per_address < 1)
    throw std::invalid_argument("threads and threads per address must be positive");
  return (threads + threads_per_address - 1) / threads_per_address;
}

int64_t threads_on_address(int64_t address, int64_t threads, int64_t threads_per_address) {
  const int64_t first = address * threads_per_address;
  return std::clamp<int64_t>(threads - first, 0, threads_per_address);
}

int max_ops_per_thread(int64_t threads_per_address, int cap) {
  if (threads_per_address < 1 || cap < 1)
    throw std::invalid_argument("threads per address and the cap must be positive");
  return int(std::clamp<int64_t>(max_updates_per_address / threads_per_address, 1, cap));
}

std::optional<int> next_calibration_ops(int ops, double launch_ms, double target_ms, int max_ops) {
  if (launch_ms >= target_ms / 2 || 2 * int64_t(ops) > max_ops)
    return std::nullopt;
  return 2 * ops;
}

void NetTally::launched(int ops) {
  net_ += next_sign() * int64_t(ops);
  ++launches_;
}

double atomic_rate_g(double threads, int ops_per_thread, double ms) {
  return threads * ops_per_thread / (ms * 1e6);
}

} // namespace apod::atomics
