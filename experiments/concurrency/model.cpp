#include "model.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace apod::concurrency {

uint32_t chain_stepwise(uint32_t x, int steps) {
  for (int s = 0; s < steps; ++s)
    x = x * chain_multiplier + chain_addend;
  return x;
}

uint32_t chain(uint32_t x, int steps) {
  if (steps < 0)
    throw std::invalid_argument("chain: negative steps");
  // f(x) = m x + a; f applied twice is m^2 x + (m a + a). Square the map per bit of steps.
  uint32_t mul = chain_multiplier, add = chain_addend;
  for (unsigned n = unsigned(steps); n != 0; n >>= 1) {
    if (n & 1u)
      x = x * mul + add;
    add = add * mul + add;
    mul = mul * mul;
  }
  return x;
}

int peak_overlap(const std::vector<Window>& windows) {
  // Events at one time: ends (-1) before starts (+1), so touching windows do not overlap.
  std::vector<std::pair<uint64_t, int>> events;
  events.reserve(2 * windows.size());
  for (const Window& w : windows) {
    events.emplace_back(w.start_ns, +1);
    events.emplace_back(w.end_ns, -1);
  }
  std::sort(events.begin(), events.end());
  int open = 0, peak = 0;
  for (const auto& [t, delta] : events)
    peak = std::max(peak, open += delta);
  return peak;
}

uint64_t span_ns(const std::vector<Window>& windows) {
  if (windows.empty())
    return 0;
  uint64_t first = UINT64_MAX, last = 0;
  for (const Window& w : windows)
    first = std::min(first, w.start_ns), last = std::max(last, w.end_ns);
  return last > first ? last - first : 0;
}

double mean_concurrency(const std::vector<Window>& windows) {
  const uint64_t span = span_ns(windows);
  if (span == 0)
    throw std::invalid_argument("mean_concurrency: no windows or no positive span");
  double busy = 0;
  for (const Window& w : windows)
    busy += double(w.end_ns > w.start_ns ? w.end_ns - w.start_ns : 0);
  return busy / double(span);
}

double cross_overlap(const std::vector<Window>& windows) {
  if (windows.empty())
    throw std::invalid_argument("cross_overlap: no windows");
  // A sweep over the events with a count of open windows per group (0 and 1; others ignored).
  struct Event {
    uint64_t t;
    int delta, group;
  };
  std::vector<Event> events;
  for (const Window& w : windows)
    if (w.group == 0 || w.group == 1) {
      events.push_back({w.start_ns, +1, w.group});
      events.push_back({w.end_ns, -1, w.group});
    }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.t != b.t ? a.t < b.t : a.delta < b.delta;
  });
  int open[2] = {0, 0};
  double any = 0, both = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    open[events[i].group] += events[i].delta;
    if (i + 1 < events.size()) {
      const double dt = double(events[i + 1].t - events[i].t);
      any += (open[0] > 0 || open[1] > 0) ? dt : 0;
      both += (open[0] > 0 && open[1] > 0) ? dt : 0;
    }
  }
  return any > 0 ? both / any : 0.0;
}

int connections_in_effect(const char* value) {
  if (!value || !*value)
    return default_connections;
  errno = 0;
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  if (errno != 0 || *end != '\0' || n < 1 || n > max_connections)
    return default_connections;
  return int(n);
}

int connections_to_request(int in_effect) {
  return in_effect == max_connections ? default_connections : max_connections;
}

std::optional<int> resident_grid_limit(int cc_major, int cc_minor) {
  // Only the compute capabilities whose entry is 128 (the embedded 7.2 has a smaller one).
  const int cc = 10 * cc_major + cc_minor;
  for (const int with_128 : {70, 75, 80, 86, 89, 90})
    if (cc == with_128)
      return 128;
  return std::nullopt;
}

int concurrency_model(int streams, int connections, int kernels, std::optional<int> resident_grids,
                      int resident_blocks, bool depth_first) {
  if (streams < 1 || connections < 1 || kernels < 1 || resident_blocks < 1)
    throw std::invalid_argument("concurrency_model needs positive counts");
  int m = std::min({streams, kernels, resident_blocks});
  if (depth_first)
    m = std::min(m, connections);
  if (resident_grids)
    m = std::min(m, *resident_grids);
  return m;
}

double sharing_model(bool time_sliced) {
  return time_sliced ? 2.0 : 1.0;
}

ScopedEnvironmentVariable::ScopedEnvironmentVariable(std::string name, const std::string& value)
    : name_(std::move(name)) {
  if (const char* old = std::getenv(name_.c_str()))
    saved_ = old;
  if (::setenv(name_.c_str(), value.c_str(), 1) != 0)
    throw std::runtime_error("setenv " + name_ + " failed");
}

ScopedEnvironmentVariable::~ScopedEnvironmentVariable() {
  if (saved_)
    ::setenv(name_.c_str(), saved_->c_str(), 1);
  else
    ::unsetenv(name_.c_str());
}

double side_by_side_overlap(double busy_a, double busy_b) {
  if (busy_a < 0 || busy_a > 1 || busy_b < 0 || busy_b > 1)
    throw std::invalid_argument("side_by_side_overlap: busy fractions lie in [0, 1]");
  const double either = busy_a + busy_b - busy_a * busy_b;
  return either > 0 ? busy_a * busy_b / either : 0.0;
}

} // namespace apod::concurrency
