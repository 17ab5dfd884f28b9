#include "telemetry.hpp"

#include "aggregate.hpp"
#include "charts/chart.hpp"
#include "context.hpp"
#include "core/measurement.hpp"
#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

namespace {

// Past this many runs the telemetry table starts folded.
constexpr std::size_t open_rows = 20;

using Telemetry = std::vector<TelemetryReading>;

const Telemetry& telemetry_of(const RunView& run) {
  return run.run->telemetry;
}

// Each entry's value of one quantity, where it has one.
template <class T>
std::vector<double> readings_of(const Telemetry& telemetry,
                                std::optional<T> TelemetryReading::*quantity) {
  std::vector<double> values;
  for (const auto& reading : telemetry)
    if (reading.*quantity)
      values.push_back(static_cast<double>(*(reading.*quantity)));
  return values;
}

std::string or_dash(const std::optional<double>& value, const char* format_text) {
  return value ? fmt::format(fmt::runtime(format_text), *value) : "—";
}

struct Quantity {
  /// The reading's value (an integer stays one in the chart's data), null where it has none.
  json (*value)(const TelemetryReading&);
  const char* title;
};
const Quantity quantities[] = {
    {[](const TelemetryReading& r) { return or_null(r.sm_clock_mhz); }, "SM clock (MHz)"},
    {[](const TelemetryReading& r) { return or_null(r.power_w); }, "power (W)"},
    {[](const TelemetryReading& r) { return or_null(r.temperature_c); }, "temperature (°C)"}};

std::vector<const RunView*> runs_with_telemetry(const PageModel& page) {
  std::vector<const RunView*> runs;
  for (const auto& model : page.device_models)
    for (const RunView* run : page.runs_of_model(model))
      if (!telemetry_of(*run).empty())
        runs.push_back(run);
  std::stable_sort(runs.begin(), runs.end(), [](const RunView* a, const RunView* b) {
    return std::tie(a->started_at, a->index) < std::tie(b->started_at, b->index);
  });
  return runs;
}

} // namespace

TelemetrySummary summarise_telemetry(const RunView& run) {
  TelemetrySummary summary;
  const Telemetry& telemetry = telemetry_of(run);
  if (telemetry.empty())
    return summary;
  summary.readings = telemetry.size();
  const std::vector<double> times = readings_of(telemetry, &TelemetryReading::t_s);
  if (!times.empty())
    summary.span_s = *std::max_element(times.begin(), times.end()) -
                     *std::min_element(times.begin(), times.end());
  if (const auto clocks = readings_of(telemetry, &TelemetryReading::sm_clock_mhz);
      !clocks.empty()) {
    const Summary stats = apod::summarize(clocks);
    summary.sm_clock_median_mhz = stats.median;
    summary.sm_clock_min_mhz = stats.min;
  }
  if (const auto power = readings_of(telemetry, &TelemetryReading::power_w); !power.empty()) {
    const Summary stats = apod::summarize(power);
    summary.power_median_w = stats.median;
    summary.power_max_w = stats.max;
  }
  if (const auto temperature = readings_of(telemetry, &TelemetryReading::temperature_c);
      !temperature.empty())
    summary.temperature_max_c = apod::summarize(temperature).max;
  for (const auto& reading : telemetry)
    if (reading.throttle_reasons.value_or(0) != 0)
      ++summary.throttled;
  return summary;
}

json telemetry_chart_spec(const PageModel& page, std::size_t max_runs, std::size_t max_points) {
  std::vector<const RunView*> runs = runs_with_telemetry(page);
  if (runs.empty())
    return nullptr;
  if (runs.size() > max_runs)
    runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(max_runs));
  json rows = json::array();
  for (const RunView* run : runs) {
    const Telemetry& telemetry = telemetry_of(*run);
    const std::size_t every = (telemetry.size() + max_points - 1) / max_points;
    for (std::size_t i = 0; i < telemetry.size(); i += every) {
      const TelemetryReading& reading = telemetry[i];
      if (!reading.t_s)
        continue;
      for (const auto& quantity : quantities)
        if (json value = quantity.value(reading); !value.is_null())
          rows.push_back({{"run", run->chart_name()},
                          {"t_s", *reading.t_s},
                          {"quantity", quantity.title},
                          {"value", std::move(value)}});
    }
  }
  json sort = json::array();
  for (const auto& quantity : quantities)
    sort.push_back(quantity.title);
  return {
      {"data", {{"values", std::move(rows)}}},
      {"facet",
       {{"row",
         {{"field", "quantity"},
          {"type", "nominal"},
          {"sort", sort},
          {"title", nullptr},
          {"header", {{"labelAngle", 0}, {"labelAlign", "left"}, {"labelFontSize", 12}}}}}}},
      {"spec",
       {{"width", 880},
        {"height", 90},
        {"mark", {{"type", "line"}, {"tooltip", true}, {"strokeWidth", 1.2}}},
        {"encoding",
         {{"x", {{"field", "t_s"}, {"type", "quantitative"}, {"title", "time into the run (s)"}}},
          {"y",
           {{"field", "value"},
            {"type", "quantitative"},
            {"title", nullptr},
            {"scale", {{"zero", false}}}}},
          {"color",
           {{"field", "run"},
            {"type", "nominal"},
            {"title", "run"},
            {"sort", nullptr},
            {"legend", {{"orient", "bottom"}, {"labelLimit", 0}}}}}}}}},
      {"resolve", {{"scale", {{"y", "independent"}}}}},
      {"config", chart_config()}};
}

mustache::data telemetry_block(const PageModel& page, ChartIds& chart_ids) {
  const std::vector<const RunView*> runs = runs_with_telemetry(page);
  if (runs.empty())
    return false;
  TableData table({{"run", ""},
                   {"readings", numeric},
                   {"over", numeric},
                   {"SM clock median (min)", numeric},
                   {"power median (max)", numeric},
                   {"temperature max", numeric},
                   {"throttled readings", numeric}},
                  "telemetry");
  for (const RunView* run : runs) {
    const TelemetrySummary s = summarise_telemetry(*run);
    std::string clock = or_dash(s.sm_clock_median_mhz, "{:.0f} MHz");
    if (s.sm_clock_min_mhz)
      clock += fmt::format(" ({:.0f})", *s.sm_clock_min_mhz);
    std::string power = or_dash(s.power_median_w, "{:.1f} W");
    if (s.power_max_w)
      power += fmt::format(" ({:.1f})", *s.power_max_w);
    table.add_row({{run->name},
                   {std::to_string(s.readings), numeric},
                   {fmt::format("{:.1f} s", s.span_s), numeric},
                   {clock, numeric},
                   {power, numeric},
                   {or_dash(s.temperature_max_c, "{:.0f} °C"), numeric},
                   {std::to_string(s.throttled), numeric}},
                  s.throttled ? "noisy" : "");
  }
  mustache::data block;
  mustache::data values = table.data();
  values.set("open", table.row_count() <= open_rows);
  values.set("summary", fmt::format("Telemetry of {} run{}", table.row_count(),
                                    table.row_count() == 1 ? "" : "s"));
  block.set("runs_table", values);
  const std::size_t shown = std::min<std::size_t>(runs.size(), 3);
  const std::string which =
      shown == runs.size() ? (shown == 1 ? "the run" : "each run")
                           : fmt::format("each of the newest {} of {} runs", shown, runs.size());
  block.set("chart", chart_block(telemetry_chart_spec(page, shown),
                                 "SM clock, power and temperature over " + which +
                                     ", as NVML reported them while it ran",
                                 chart_ids));
  return block;
}

} // namespace apod::report
