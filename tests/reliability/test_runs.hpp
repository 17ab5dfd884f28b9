// Small runs for the store's reliability tests: built in memory as an import would read them.
#pragma once

#include "core/errors.hpp"
#include "core/run_record.hpp"

#include <functional>
#include <string>

namespace reliability {

/// What `f` was refused with (an InputError's message), or "(accepted)".
inline std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const apod::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

/// A run of `experiments` experiments ("e0", "e1", ...) of one measurement of three samples,
/// on the device `uuid` named `device`, written by the process `writer` (a number standing for
/// environment.writer).
inline apod::RunRecord test_run(const std::string& id, const std::string& status = "complete",
                                int experiments = 1, const std::string& label = "test",
                                const std::string& uuid = "GPU-test",
                                const std::string& device = "Test GPU", int writer = 1) {
  apod::RunRecord r;
  r.id = id;
  r.label = label;
  r.started_at = "2026-01-01T00:00:00.000Z";
  r.status = status;
  if (status != "running" && status != "interrupted")
    r.finished_at = "2026-01-01T00:01:00.000Z";
  r.environment = apod::environment_from_json({{"writer", {{"host", "h"}, {"pid", writer}}}});
  r.device = apod::device_from_json({{"name", device}, {"uuid", uuid}});
  for (int k = 0; k < experiments; ++k) {
    apod::ExperimentRecord e;
    e.name = "e" + std::to_string(k);
    e.started_at = r.started_at;
    apod::Measurement m;
    m.experiment = e.name;
    m.params = {{"k", k}};
    m.metric = "effective_bandwidth";
    m.unit = "GB/s";
    m.samples = {100.0 + k, 101.0, 102.0};
    m.verified = true;
    e.measurements.push_back(m);
    r.experiments.push_back(e);
  }
  return r;
}

} // namespace reliability
