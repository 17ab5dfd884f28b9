// Host-side arithmetic of the atomics experiment (atomics.cu): which threads share an address at
// a contention level, the counts each address must end with (checked exactly on the host), how
// many operations a thread may do before a float counter stops being exact, and the calibration
// of the work per launch.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace apod::atomics {

/// A float counter of +-1 steps is exact while every value it passes through stays within
/// 2^24 (the float significand); a counter may swing by one launch's total either way from its
/// running net, so one launch's updates to one address are kept to 2^23.
inline constexpr int64_t max_updates_per_address = int64_t(1) << 23;

/// Addresses a grid of `threads` uses when `threads_per_address` consecutive threads share one
/// (address = thread / threads_per_address): ceil(threads / threads_per_address).
int64_t address_count(int64_t threads, int64_t threads_per_address);

/// Threads that update address `address`: threads_per_address, fewer for a last, partial group.
int64_t threads_on_address(int64_t address, int64_t threads, int64_t threads_per_address);

/// The most operations per thread a launch may do at a contention level (>= 1): so that no
/// address takes more than max_updates_per_address updates in one launch.
int max_ops_per_thread(int64_t threads_per_address, int cap);

/// The calibration's next step: twice `ops` while the last launch took under half `target_ms`
/// and twice stays within `max_ops`; nothing when the launch is long enough or the cap is met.
std::optional<int> next_calibration_ops(int ops, double launch_ms, double target_ms, int max_ops);

/// The running net of the launches on a counter that accumulates over launches: launch i adds
/// sign_i (+1 or -1, alternating, so float counters stay small and exact) ops_i times per
/// thread. Each address must then hold net() x threads_on_address.
class NetTally {
public:
  /// The sign the next launch adds: +1, -1, +1, ...
  int next_sign() const { return launches_ % 2 == 0 ? 1 : -1; }
  /// Records a launch of `ops` per thread with next_sign().
  void launched(int ops);
  int64_t net() const { return net_; }
  int64_t launches() const { return launches_; }

private:
  int64_t net_ = 0;
  int64_t launches_ = 0;
};

/// Addresses whose value differs from `net` x threads_on_address (exact comparison; an integer
/// type compares modulo its width, as two's complement wraps).
template <class T>
int64_t count_wrong(const std::vector<T>& values, int64_t threads, int64_t threads_per_address,
                    int64_t net) {
  int64_t wrong = 0;
  for (int64_t a = 0; a < int64_t(values.size()); ++a) {
    const int64_t expected = net * threads_on_address(a, threads, threads_per_address);
    wrong += !(values[size_t(a)] == static_cast<T>(expected));
  }
  return wrong;
}

/// Atomic operations per second in G/s: threads x ops per thread over the time in ms.
double atomic_rate_g(double threads, int ops_per_thread, double ms);

} // namespace apod::atomics
