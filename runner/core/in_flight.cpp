#include "core/in_flight.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>

namespace apod {

SamplingWindow SamplingWindow::merge(const SamplingWindow& a, const SamplingWindow& b) {
  if (a.empty())
    return b;
  if (b.empty())
    return a;
  SamplingWindow w;
  w.start_s = std::min(a.start_s, b.start_s);
  w.end_s = std::max(a.end_s, b.end_s);
  w.busy_s = a.busy_s + b.busy_s;
  // Energy is known for the whole only when it is known for every part.
  if (a.energy_j && b.energy_j)
    w.energy_j = *a.energy_j + *b.energy_j;
  return w;
}

namespace in_flight {
namespace {

using Clock = std::chrono::steady_clock;

struct Registry {
  std::mutex mutex;
  Clock::time_point epoch = Clock::now();
  std::string experiment;
  int64_t point = -1;
  int64_t next_point = 0;
  std::function<std::optional<double>()> energy_reader;
};

Registry& registry() {
  static Registry r;
  return r;
}

double seconds_since(Clock::time_point epoch) {
  return std::chrono::duration<double>(Clock::now() - epoch).count();
}

} // namespace

void start_run() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.epoch = Clock::now();
  r.experiment.clear();
  r.point = -1;
  r.next_point = 0;
}

double run_clock_s() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return seconds_since(r.epoch);
}

void set_experiment(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.experiment = name;
}

void set_energy_reader(std::function<std::optional<double>()> reader) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.energy_reader = std::move(reader);
}

std::optional<double> energy_j() {
  std::function<std::optional<double>()> reader;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    reader = r.energy_reader;
  }
  // Read outside the lock: NVML may take a while, and the telemetry thread must not wait on it.
  return reader ? reader() : std::nullopt;
}

Tag tag() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return {r.experiment, r.point};
}

PointScope::PointScope() {
  start_energy_j_ = energy_j();
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  id_ = r.next_point++;
  r.point = id_;
  start_s_ = seconds_since(r.epoch);
}

PointScope::~PointScope() {
  finish();
}

SamplingWindow PointScope::finish() {
  if (!open_)
    return window_;
  open_ = false;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    window_.start_s = start_s_;
    window_.end_s = seconds_since(r.epoch);
    if (r.point == id_)
      r.point = -1;
  }
  window_.busy_s = window_.end_s - window_.start_s;
  const auto end_energy_j = energy_j();
  if (start_energy_j_ && end_energy_j && *end_energy_j >= *start_energy_j_)
    window_.energy_j = *end_energy_j - *start_energy_j_;
  return window_;
}

} // namespace in_flight
} // namespace apod
