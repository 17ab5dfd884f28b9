#include "charts/littles_bound.hpp"

#include "charts/series.hpp"
#include "charts/sweep_rows.hpp"
#include "format.hpp"

#include "core/theory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace apod::report::charts {

namespace {

// Bytes the effective bandwidth counts per byte a thread loads (theory.hpp): a copy writes each.
std::optional<double> moved_per_loaded_byte(const json& extra) {
  const std::string type = string_at(extra, keys::access_type);
  if (type == access::copy)
    return 2.0;
  if (type == access::read)
    return 1.0;
  return std::nullopt;
}

double number_at(const json& object, const char* key) {
  return has_number(object, key) ? object.at(key).get<double>() : 0.0;
}

double median(std::vector<double> values) {
  return apod::summarize(values).median;
}

} // namespace

RunFigures run_figures(const PageModel& page, const FigureRef& ref) {
  RunFigures figures;
  for (const auto& experiment : page.experiments) {
    if (experiment.name != ref.experiment)
      continue;
    for (const auto& metric : experiment.metrics) {
      if (metric.metric != ref.metric)
        continue;
      for (const auto& point : metric.points) {
        const json& params = point.measurement->params;
        const bool named =
            std::all_of(ref.params.items().begin(), ref.params.items().end(), [&](const auto& kv) {
              return member(params, kv.key().c_str()) == kv.value();
            });
        if (point.ok && named)
          figures.try_emplace(point.run, point.median); // a run's first, as before
      }
    }
  }
  return figures;
}

std::optional<LaunchBound> littles_law_bound(const PointView& point, const RunFigures& latencies) {
  const json& extra = point.measurement->extra;
  const json& launch = member(extra, keys::launch);
  const auto moved = moved_per_loaded_byte(extra);
  const double block = number_at(launch, launch_keys::block_size);
  const double grid = number_at(launch, launch_keys::grid_size);
  const double resident_blocks = number_at(launch, launch_keys::max_active_blocks_per_sm);
  const double bytes_moved = number_at(extra, keys::bytes_moved);
  const int sm_count = point.run->run->device.sm_count;
  const auto found = latencies.find(point.run);
  const std::optional<double> latency =
      found == latencies.end() ? std::nullopt : std::optional<double>(found->second);
  if (!moved || !(block > 0) || !(grid > 0) || !(resident_blocks > 0) || !(bytes_moved > 0) ||
      sm_count <= 0 || !latency || !point.run->peak_gbs)
    return std::nullopt;
  // Each thread loads all its words before it stores one (the guide's kernel: one word), so
  // every resident thread keeps its whole load in flight; a grid smaller than the device keeps
  // fewer threads on each SM than it could hold.
  const double loaded_per_thread = bytes_moved / *moved / (grid * block);
  const double threads_per_sm = std::min(resident_blocks * block, grid * block / sm_count);
  LaunchBound bound;
  bound.in_flight_bytes_per_sm = loaded_per_thread * threads_per_sm;
  bound.latency_ns = *latency;
  bound.peak_gbs = *point.run->peak_gbs;
  bound.sm_count = sm_count;
  bound.gbs = littles_law_bandwidth_gbs(sm_count, bound.in_flight_bytes_per_sm, *latency,
                                        bound.peak_gbs, *moved);
  bound.capped = bound.gbs >= bound.peak_gbs;
  return bound;
}

namespace {

// The bounds of one set of points: a series of the chart, or a device model's launch.
struct Bounds {
  std::vector<double> gbs, in_flight, latency, peak;
  std::string facet, value, device;
  void add(const LaunchBound& b) {
    gbs.push_back(b.gbs);
    in_flight.push_back(b.in_flight_bytes_per_sm);
    latency.push_back(b.latency_ns);
    peak.push_back(b.peak_gbs);
  }
};

// Keys in first-seen order with their bounds.
struct Grouped {
  std::vector<std::string> order;
  std::map<std::string, Bounds> at;
  Bounds& operator[](const std::string& key) {
    auto [it, added] = at.try_emplace(key);
    if (added)
      order.push_back(key);
    return it->second;
  }
};

// Per device model, the launches the bound holds below the peak (median over the runs).
std::string sentence_of(Grouped& per_launch) {
  std::string text, device;
  bool any_below = false, any_capped = false;
  for (const auto& key : per_launch.order) {
    const Bounds& b = per_launch.at.at(key);
    const double gbs = median(b.gbs), peak = median(b.peak);
    if (gbs >= peak) {
      any_capped = true;
      continue;
    }
    any_below = true;
    if (b.device != device) {
      device = b.device;
      text += fmt::format("{}{} (DRAM latency {}, achievable peak {}): ", text.empty() ? "" : ". ",
                          device, format_with_unit(median(b.latency), "ns"),
                          format_with_unit(peak, "GB/s"));
    } else {
      text += "; ";
    }
    text +=
        fmt::format("{}, {} in flight per SM, at most {}", b.value.empty() ? "the launch" : b.value,
                    format_bytes(median(b.in_flight)), format_with_unit(gbs, "GB/s"));
  }
  if (any_below)
    text += ".";
  if (any_capped)
    text += std::string(any_below ? " The other launches" : "Every launch") +
            " keep enough bytes in flight for the bound to exceed the achievable peak.";
  return text;
}

} // namespace

BoundsDrawn littles_law_rules(const PageModel& page, const Sweep& sweep, const SeriesPlan& plan,
                              const FigureRef& latency) {
  Grouped per_series, per_launch;
  const RunFigures latencies = run_figures(page, latency);
  for (const PointView* point : kept_points(*sweep.metric, sweep_keep(sweep))) {
    const auto bound = littles_law_bound(*point, latencies);
    if (!bound)
      continue;
    const json& params = point->measurement->params;
    const std::string value =
        plan.colour.empty() ? ""
                            : format_param_value(plan.colour, member(params, plan.colour.c_str()));
    const std::string series = series_of(plan, *point->run, params);
    Bounds& s = per_series[series + "\x1f" + facet_of(plan, *point->run)];
    s.facet = facet_of(plan, *point->run);
    s.value = series;
    s.add(*bound);
    Bounds& l = per_launch[point->run->device_model + "\x1f" + value];
    l.device = point->run->device_model;
    l.value = value;
    l.add(*bound);
  }
  BoundsDrawn drawn;
  if (per_series.order.empty()) {
    drawn.sentence = "No Little's-law bound is drawn: it needs the same run's " +
                     latency.experiment + " " + latency.metric + " figure and achievable peak.";
    return drawn;
  }
  for (const auto& key : per_series.order) {
    const Bounds& b = per_series.at.at(key);
    const double gbs = median(b.gbs);
    if (gbs < median(b.peak))
      drawn.rules.push_back({gbs, "Little's law: " + format_with_unit(gbs, "GB/s"), false, b.value,
                             b.facet, "bound"});
  }
  drawn.sentence = "Dotted, in the series' colour: the Little's-law bound of each launch shape, "
                   "min(achievable peak, 2 x SMs x bytes in flight per SM / DRAM latency) (Notes "
                   "on CUDA, Little's-law table), from the same run's " +
                   latency.experiment + " figure and achievable peak. " + sentence_of(per_launch);
  return drawn;
}

} // namespace apod::report::charts
