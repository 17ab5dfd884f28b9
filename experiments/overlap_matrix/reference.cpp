#include "reference.hpp"

#include "core/verify.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numbers>

namespace apod {

namespace {

constexpr float gist_factor = -2.3f; // the gist's kernelEasy constant, a float
constexpr double u = std::numeric_limits<float>::epsilon(); // 2^-23

// fn(begin, end) over [0, n): on the host's cores for large n, on this thread for small n, where
// starting threads would cost more than the work (a 16 Ki check runs after every trial).
template <class Fn> size_t count_in_chunks(size_t n, Fn&& fn) {
  return n < (size_t(1) << 18) ? fn(size_t(0), n) : parallel_count(n, fn);
}

} // namespace

const char* kernel_name(Kernel k) {
  return k == Kernel::fast ? "fast" : k == Kernel::medium ? "medium" : "slow";
}

float gist_input(size_t i) {
  return std::sin(static_cast<float>(i) + 3.93123f);
}

void write_gist_input(float* out, size_t n) {
  for (size_t i = 0; i < n; ++i)
    out[i] = std::sin(static_cast<float>(i) + 3.93123f);
}

double reference_value(Kernel k, float x) {
  if (k == Kernel::fast)
    return double(gist_factor) * double(x); // 24 x 24 significant bits: exact in double
  if (k == Kernel::medium)
    return std::asin(double(x));
  return std::asin(double(x)) / std::numbers::ln10; // log10(exp(a)) = a / ln 10
}

double tolerance(Kernel k, double reference) {
  const double y = std::abs(reference);
  double first_order = 0;
  if (k == Kernel::fast)
    first_order = 0.5 * u * y;
  else if (k == Kernel::medium)
    first_order = 4.5 * u * y;
  else
    first_order = u * (7.0 * y + 2.5 / std::numbers::ln10);
  return tolerance_margin * first_order;
}

Expected expected_outputs(Kernel k, const float* input, size_t n) {
  Expected out;
  out.value.resize(n);
  out.tolerance.resize(n);
  count_in_chunks(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      out.value[i] = reference_value(k, input[i]);
      const double t = tolerance(k, out.value[i]);
      const float rounded = static_cast<float>(t);
      // Round up, so that storing the tolerance as a float never tightens it.
      out.tolerance[i] = double(rounded) >= t ? rounded : std::nextafter(rounded, INFINITY);
    }
    return size_t(0);
  });
  return out;
}

void CheckResult::merge(const CheckResult& other) {
  wrong += other.wrong;
  worst_error_over_tolerance =
      std::max(worst_error_over_tolerance, other.worst_error_over_tolerance);
}

CheckResult check_outputs(const float* got, const Expected& expected) {
  std::atomic<double> worst{0};
  CheckResult out;
  out.wrong = count_in_chunks(expected.size(), [&](size_t b, size_t e) {
    size_t bad = 0;
    double chunk_worst = 0;
    for (size_t i = b; i < e; ++i) {
      const double error = std::abs(double(got[i]) - expected.value[i]);
      const double share = error == 0 ? 0 : error / expected.tolerance[i];
      bad += !(share <= 1); // NaN fails too
      if (share > chunk_worst || std::isnan(share))
        chunk_worst = std::isnan(share) ? INFINITY : share;
    }
    double seen = worst.load();
    while (chunk_worst > seen && !worst.compare_exchange_weak(seen, chunk_worst)) {
    }
    return bad;
  });
  out.worst_error_over_tolerance = worst.load();
  return out;
}

} // namespace apod
