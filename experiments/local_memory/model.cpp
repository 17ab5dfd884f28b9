// The local_memory experiment's host arithmetic (model.hpp).
#include "model.hpp"

#include <stdexcept>
#include <vector>

namespace apod::local_memory {

uint32_t array_answer(uint32_t c, uint32_t words, uint32_t steps) {
  if (words == 0)
    throw std::invalid_argument("array_answer: no words");
  std::vector<uint32_t> a(words);
  for (uint32_t i = 0; i < words; ++i)
    a[i] = start_word(c, i);
  uint32_t acc = c;
  for (uint32_t s = 0; s < steps; ++s)
    array_step(a[s % words], acc);
  return acc;
}

uint32_t pressure_answer(uint32_t c, uint32_t live, uint32_t trips) {
  if (live == 0)
    throw std::invalid_argument("pressure_answer: no values");
  std::vector<uint32_t> v(live);
  for (uint32_t i = 0; i < live; ++i)
    v[i] = start_word(c, i);
  for (uint32_t t = 0; t < trips; ++t)
    for (uint32_t i = 0; i < live; ++i)
      v[i] = pressure_update(v[i], v[(i + 1) % live]);
  uint32_t sum = 0;
  for (const uint32_t x : v)
    sum += x;
  return sum;
}

double update_rate_g(double threads, double updates_per_thread, double ms) {
  return ms > 0 ? threads * updates_per_thread / (ms * 1e-3) / 1e9 : 0.0;
}

double cost_vs_registers(double register_rate, double local_rate) {
  if (!(register_rate > 0) || !(local_rate > 0))
    throw std::invalid_argument("cost_vs_registers: rates must be positive");
  return register_rate / local_rate;
}

} // namespace apod::local_memory
