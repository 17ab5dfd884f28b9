// What NVML saw during a run (docs/results-format.md, `telemetry`): a reading every 250 ms
// (run/nvml.cpp) and, among the readings, the clock monitor's events (run/clock_monitor.cpp).
// One to_json and one telemetry_from_json; a reading read from a document is written back as it
// was read (core/stored_object.hpp).
#pragma once

#include "core/stored_object.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace apod {

/// The clock monitor stopped or started answering (an event among the readings).
struct MonitorEvent {
  std::string name;                 ///< "monitor_failed" or "monitor_recovered" (key "event")
  std::string query;                ///< the NVML query, e.g. "clocks event reasons"
  std::optional<int64_t> nvml_code; ///< why it failed (an NVML return code); none on recovery
};

/// One entry of a run's telemetry: a reading of the GPU, or an event. A reading's quantities are
/// nothing where NVML did not answer.
struct TelemetryReading {
  std::optional<double> t_s;         ///< on the run clock (core/in_flight.hpp)
  std::optional<MonitorEvent> event; ///< set: an event, with no quantities
  std::optional<int64_t> sm_clock_mhz, memory_clock_mhz, temperature_c;
  std::optional<double> power_w;
  std::optional<double> energy_j;           ///< the GPU's energy counter (since the driver loaded)
  std::optional<uint64_t> throttle_reasons; ///< clocks-event reason bits, less the harmless ones
  /// Whether the entry says what was in flight: readings of runs recorded before apod tagged them
  /// do not (then `experiment` and `point` are not written).
  bool tagged = false;
  std::optional<std::string> experiment; ///< in flight; nothing between experiments
  std::optional<int64_t> point;          ///< the sampling loop in flight (a reading's only)
  StoredObject stored;

  bool is_event() const { return event.has_value(); }
  /// A reading (not an event) taken while `name` was in flight.
  bool during(const std::string& name) const { return !event && experiment == name; }
};

json to_json(const TelemetryReading& r);
/// Reads an entry of a run's telemetry; an entry that is not an object is refused (InputError
/// naming `where`). Quantities absent or of another type read as nothing.
TelemetryReading telemetry_from_json(const json& j, const std::string& where);

/// The telemetry's wire form: an array of its entries.
json to_json(const std::vector<TelemetryReading>& telemetry);

} // namespace apod
