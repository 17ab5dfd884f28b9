#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace apod {

double flops_per_element(int fma_per_element) {
  if (fma_per_element < 0)
    throw std::invalid_argument("FMAs per element must not be negative");
  return 2.0 * fma_per_element;
}

double bytes_per_element(int element_bytes) {
  if (element_bytes <= 0)
    throw std::invalid_argument("element size must be positive");
  return 2.0 * element_bytes;
}

double flops_per_byte(int fma_per_element, int element_bytes) {
  return flops_per_element(fma_per_element) / bytes_per_element(element_bytes);
}

std::vector<int> fma_counts(std::optional<double> balance, int element_bytes, bool quick) {
  int last = 1024;
  if (balance && *balance > 0) {
    last = min_fma_per_element;
    while (last < max_fma_per_element && flops_per_byte(last, element_bytes) < 8 * *balance)
      last *= 2;
    last = std::clamp(last, 64, max_fma_per_element);
  }
  if (quick)
    return {1, 16, last};
  std::vector<int> counts;
  for (int k = min_fma_per_element; k <= last; k *= 2)
    counts.push_back(k);
  return counts;
}

bool curve_flat(double previous, double last) {
  return previous > 0 && std::abs(last / previous - 1) <= flat_tolerance;
}

std::optional<int> next_fma_count(const std::vector<int>& counts,
                                  const std::vector<double>& medians) {
  if (counts.size() != medians.size())
    throw std::invalid_argument("one median per FMA count");
  if (counts.size() < 2 || curve_flat(medians[medians.size() - 2], medians.back()))
    return std::nullopt;
  const int next = 2 * counts.back();
  if (next > max_fma_per_element)
    return std::nullopt;
  return next;
}

double waiting_share(double bandwidth_gbs, double latency_ns, int sms, int warps_per_sm,
                     double bytes_per_warp) {
  if (!(bandwidth_gbs > 0) || !(latency_ns > 0) || sms <= 0 || warps_per_sm <= 0 ||
      !(bytes_per_warp > 0))
    throw std::invalid_argument("waiting_share needs positive bandwidth, latency and residency");
  const double needed = bandwidth_gbs * latency_ns; // GB/s x ns = bytes
  const double held = double(sms) * warps_per_sm * bytes_per_warp;
  return std::min(1.0, needed / held);
}

double soft_roofline_gflops(double intensity, double peak_gflops, double bandwidth_gbs,
                            double share) {
  if (!(intensity > 0) || !(peak_gflops > 0) || !(bandwidth_gbs > 0) || share < 0 || share > 1)
    throw std::invalid_argument("soft_roofline_gflops needs positive rates and a share in [0, 1]");
  const double memory = 1 / (intensity * bandwidth_gbs), compute = 1 / peak_gflops;
  return 1 / (std::max(memory, compute) + share * std::min(memory, compute));
}

template <class T> std::vector<T> chain_inputs() {
  std::vector<T> inputs(chain_table_size);
  // Weyl sequence t x 2^32 / golden ratio (mod 2^32): spread over [0, 1) with no repeats.
  for (size_t t = 0; t < chain_table_size; ++t)
    inputs[t] = T(1.0 + 0.25 * double(uint32_t(t * 2654435769u)) / 4294967296.0);
  return inputs;
}

template <class T> std::vector<T> chain_outputs(const std::vector<T>& inputs, int steps) {
  std::vector<T> out(inputs.size());
  std::transform(inputs.begin(), inputs.end(), out.begin(),
                 [steps](T x) { return fma_chain(x, steps); });
  return out;
}

template std::vector<float> chain_inputs<float>();
template std::vector<double> chain_inputs<double>();
template std::vector<float> chain_outputs<float>(const std::vector<float>&, int);
template std::vector<double> chain_outputs<double>(const std::vector<double>&, int);

} // namespace apod
