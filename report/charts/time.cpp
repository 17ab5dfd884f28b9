// Where the time went: each run's wall time stacked by experiment (charts/time.hpp).
#include "charts/time.hpp"

#include "charts/chart.hpp"
#include "provenance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace apod::report {

namespace {

// Past max_series experiments a legend cannot name each colour: the experiments that took the
// least wall time over the runs shown become one "other (N experiments)" segment per run.
json fold_into_other(json rows) {
  std::map<std::string, double> total;
  for (const auto& row : rows)
    total[row["experiment"].get<std::string>()] += row["wall_s"].get<double>();
  if (total.size() <= max_series)
    return rows;
  std::vector<std::pair<double, std::string>> by_time;
  for (const auto& [name, seconds] : total)
    by_time.emplace_back(-seconds, name);
  std::sort(by_time.begin(), by_time.end());
  std::map<std::string, bool> kept;
  for (std::size_t i = 0; i < max_series - 1; ++i)
    kept[by_time[i].second] = true;
  const std::string other = fmt::format("other ({} experiments)", total.size() - (max_series - 1));
  json folded = json::array();
  std::map<std::string, std::size_t> other_row; // run -> its "other" row in `folded`
  for (auto& row : rows) {
    if (kept.count(row["experiment"].get<std::string>())) {
      folded.push_back(std::move(row));
      continue;
    }
    const std::string run = row["run"].get<std::string>();
    const std::string part = fmt::format("{} {:.2f} s", row["experiment"].get<std::string>(),
                                         row["wall_s"].get<double>());
    auto [it, added] = other_row.try_emplace(run, folded.size());
    if (added) {
      row["experiment"] = other;
      row["points_text"] = "of " + part;
      folded.push_back(std::move(row));
      continue;
    }
    json& sum = folded[it->second];
    sum["wall_s"] = sum["wall_s"].get<double>() + row["wall_s"].get<double>();
    sum["points_text"] = sum["points_text"].get<std::string>() + ", " + part;
  }
  for (auto& row : folded)
    if (row["experiment"] == other)
      row["wall_text"] = fmt::format("{:.2f} s", row["wall_s"].get<double>());
  return folded;
}

} // namespace

mustache::data time_chart(const PageModel& page, std::size_t max_runs, ChartIds& chart_ids) {
  json rows = json::array();
  const auto shown = newest_runs(page, max_runs);
  bool shortened = false;
  for (const RunView* newest : shown) {
    const RunView& run = *newest;
    shortened = shortened || run.chart_name() != run.name;
    const auto tallies = tally(run);
    for (const auto& attempted : run.run->experiments) {
      if (!attempted.wall_s)
        continue;
      const std::string& name = attempted.name;
      const auto it = tallies.find(name);
      const ExperimentTally t = it == tallies.end() ? ExperimentTally{} : it->second;
      const double wall_s = *attempted.wall_s;
      rows.push_back({{"run", run.name},
                      {"tick", run.chart_name()},
                      {"experiment", name},
                      {"wall_s", wall_s},
                      {"wall_text", fmt::format("{:.2f} s", wall_s)},
                      {"points_text", fmt::format("{} ok, {} failed, {} noisy; {} samples dropped",
                                                  t.ok, t.failed, t.noisy, t.dropped)}});
    }
  }
  if (rows.empty())
    return false;
  rows = fold_into_other(std::move(rows));
  const bool many = shown.size() > 24;
  json x = {{"field", "tick"}, {"type", "ordinal"}, {"sort", nullptr}, {"title", "run"}};
  x["axis"] = many ? json{{"labels", false}, {"ticks", false}}
                   : json{{"labelAngle", -30}, {"labelLimit", 0}}; // chart_name: never cut
  const json spec = {{"width", "container"},
                     {"height", 220},
                     {"data", {{"values", std::move(rows)}}},
                     {"mark", {{"type", "bar"}, {"tooltip", true}}},
                     {"encoding",
                      {{"x", x},
                       {"y",
                        {{"field", "wall_s"},
                         {"type", "quantitative"},
                         {"stack", "zero"},
                         {"title", "wall time (s)"}}},
                       {"color",
                        {{"field", "experiment"},
                         {"type", "nominal"},
                         {"sort", nullptr},
                         {"title", "experiment"}}},
                       {"order", {{"field", "experiment"}}},
                       {"tooltip",
                        {{{"field", "run"}, {"title", "run"}},
                         {{"field", "experiment"}, {"title", "experiment"}},
                         {{"field", "wall_text"}, {"title", "wall time"}},
                         {{"field", "points_text"}, {"title", "points"}}}}}},
                     {"config", chart_config()}};
  return chart_block(
      spec,
      "Where the time went: each run's wall time, stacked by experiment" +
          (shown.size() < page.runs.size()
               ? fmt::format(", for the newest {} of {} runs", shown.size(), page.runs.size())
               : std::string()) +
          std::string(many ? " (oldest first; hover for names)"
                      : shortened
                          ? "; a run with a long name is shown by its id (hover for its name)"
                          : ""),
      chart_ids);
}

} // namespace apod::report
