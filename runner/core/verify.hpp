// Host-side checking of experiment outputs, spread over the host's cores so that verifying every
// point of a sweep costs less than measuring it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace apod {

/// Calls fn(begin, end) on disjoint chunks of [0, n) in parallel and returns the sum of the
/// results (fn returns how many elements in its chunk were wrong).
template <class Fn> size_t parallel_count(size_t n, Fn&& fn) {
  const size_t workers =
      std::max<size_t>(1, std::min<size_t>(std::thread::hardware_concurrency(), 16));
  const size_t chunk = (n + workers - 1) / workers;
  std::vector<size_t> counts(workers, 0);
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w) {
    const size_t begin = std::min(n, w * chunk), end = std::min(n, begin + chunk);
    threads.emplace_back([&, w, begin, end] { counts[w] = fn(begin, end); });
  }
  for (auto& t : threads)
    t.join();
  size_t total = 0;
  for (size_t c : counts)
    total += c;
  return total;
}

} // namespace apod
