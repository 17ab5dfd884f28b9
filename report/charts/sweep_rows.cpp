#include "charts/sweep_rows.hpp"

#include "charts/series.hpp"
#include "charts/tooltips.hpp"
#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace apod::report::charts {

namespace {

// Which line each plotted point joins: its series and panel, split further by every parameter
// that takes several values at one x within them (issue 25: an older version's points, stored
// without the colour parameter, formed one series "—" whose line zigzagged between the word
// sizes it mixed). Only where that happens: elsewhere a line is its series.
std::vector<int> line_of_points(const std::vector<Plotted>& plotted, const Sweep& sweep) {
  using Group = std::tuple<std::string, std::string, std::string>; // series, facet, x
  std::map<Group, std::vector<const Plotted*>> at_x;
  for (const Plotted& p : plotted)
    at_x[{p.series, p.facet, x_of(sweep, p).dump()}].push_back(&p);
  std::set<std::string> splitting;
  for (const auto& [group, points] : at_x)
    for (const Plotted* p : points)
      for (const auto& [key, value] : p->params->items())
        if (key != sweep.x && member(*points.front()->params, key.c_str()) != value)
          splitting.insert(key);
  std::map<std::string, int> index;
  std::vector<int> lines;
  for (const Plotted& p : plotted) {
    std::string key = p.series + '\x1f' + p.facet;
    for (const auto& name : splitting)
      key += '\x1f' + member(*p.params, name.c_str()).dump();
    lines.push_back(index.try_emplace(key, int(index.size())).first->second);
  }
  return lines;
}

// Measured rows and the model beside each: the point's extra[model_key], or the point of the
// same run (or device model) and parameters in the model metric.
void add_measured(SweepData& data, const ExperimentView& experiment, const Sweep& sweep,
                  const std::vector<Plotted>& models) {
  const MetricView& metric = *sweep.metric;
  const std::vector<int> lines = line_of_points(data.plotted, sweep);
  for (std::size_t i = 0; i < data.plotted.size(); ++i) {
    const Plotted& p = data.plotted[i];
    json row = {{"kind", kind::measured}, {"x", x_of(sweep, p)}, {"y", p.y},
                {"low", p.low},           {"high", p.high},      {"series", p.series},
                {"facet", p.facet},       {"line", lines[i]}};
    add_tooltip_fields(row, p, experiment, metric);
    if (sweep.as_pct_of_limit) {
      row["median_text"] = format_percent(p.y) + " of its device's limit";
      row["range_text"] = format_range(p.low, p.high, "%");
    }
    if (!data.plan.runs_apart && !data.plan.aggregated) // one run: its tooltip names no run
      row.erase("who");
    if (sweep.shape_of)
      row["shape"] = sweep.shape_of(*p.points.front());
    std::optional<double> model;
    if (!sweep.model_key.empty())
      model = extra_median(p, sweep.model_key);
    for (const Plotted& m : models)
      if (!model && m.run == p.run && m.device_model == p.device_model && *m.params == *p.params)
        model = m.y;
    if (model) {
      const std::string text = sweep.model_label + ": " + format_with_unit(*model, metric.unit);
      row["model_text"] = text;
      data.rows.push_back({{"kind", kind::model},
                           {"x", row["x"]},
                           {"y", *model},
                           {"series", p.series},
                           {"facet", p.facet},
                           {"line", lines[i]},
                           {"model_text", text}});
      data.with_model = true;
      if (*model != 0 && std::isfinite(*model) && std::isfinite(p.y)) {
        const double residual = (p.y / *model - 1) * 100;
        row["residual_pct"] = residual;
        row["residual_text"] = fmt::format("{} against {}: {:+.1f}%",
                                           format_with_unit(p.y, metric.unit), text, residual);
        data.with_residual = true;
      }
    }
    data.rows.push_back(std::move(row));
  }
}

// The devices' limits (one rule per distinct limit and panel, named in words), and a limit in
// the figure's own unit: a rule where it is the same for every point of a panel, else a line.
void add_limits(SweepData& data, const ExperimentView& experiment, const Sweep& sweep,
                bool several_devices) {
  if (!sweep.device_limits)
    return;
  std::map<std::tuple<std::string, double, std::string>, std::vector<std::string>> rules;
  std::map<std::string, std::set<double>> unit_limits; // per panel
  for (const Plotted& p : data.plotted)
    for (const PointView* point : p.points) {
      const auto limit = point->limit_gbs ? point->limit_gbs : point->unit_limit;
      if (!limit)
        continue;
      auto& devices = rules[{p.facet, *limit, limit_words_of(experiment, *point)}];
      const std::string device = point->run->device_model;
      if (std::find(devices.begin(), devices.end(), device) == devices.end())
        devices.push_back(device);
      if (point->unit_limit)
        unit_limits[p.facet].insert(*limit);
    }
  const bool varies = std::any_of(unit_limits.begin(), unit_limits.end(),
                                  [](const auto& u) { return u.second.size() > 1; });
  if (varies) { // the roofline: a limit per intensity, drawn as a line per series
    for (const Plotted& p : data.plotted)
      if (const auto limit = extra_median(p, keys::limit))
        data.rows.push_back({{"kind", kind::limit_line},
                             {"x", x_of(sweep, p)},
                             {"y", *limit},
                             {"series", p.series},
                             {"facet", p.facet},
                             {"label", limit_words_of(experiment, *p.points.front())}});
    return;
  }
  for (const auto& [key, devices] : rules) {
    const auto& [facet, limit, words] = key;
    std::string label = words + ": " + format_with_unit(limit, sweep.metric->unit);
    if (several_devices && facet.empty())
      for (std::size_t i = 0; i < devices.size(); ++i)
        label += (i ? ", " : " · ") + devices[i];
    data.rows.push_back({{"kind", kind::limit_rule},
                         {"y", limit},
                         {"series", ""},
                         {"facet", facet},
                         {"label", label}});
  }
}

// A published figure sits at its own x (in the series and panel of a drawn point whose
// parameters include all of the figure's, if one does); a figure without an x the axis can place
// is a rule; a figure of the x parameter itself (Stich's 512 threads per SM) a vertical rule.
void add_published(SweepData& data, const Sweep& sweep) {
  for (const json* figure : sweep.published) {
    const json& params = member(*figure, "params");
    double value = figure->at("value").get<double>();
    std::string unit = string_at(*figure, "unit");
    if (sweep.as_pct_of_limit) { // of the limit its own source states for its device
      const auto pct = published_pct_of_limit(*figure, sweep.limit_kind);
      if (!pct)
        continue;
      value = *pct;
      unit = "%";
    }
    const std::string device = string_at(*figure, "device", "published");
    const std::string tip = device + ": " + format_with_unit(value, unit) + " (" +
                            string_at(*figure, "source") + "; " + string_at(*figure, "citation") +
                            ")";
    if (string_at(*figure, "metric") == sweep.x) {
      data.rows.push_back({{"kind", kind::vertical},
                           {"x", value},
                           {"series", ""},
                           {"facet", ""},
                           {"label", device + " (published): " + number_with_unit(value, unit)},
                           {"tip", tip}});
      continue;
    }
    const json x = axis_value(params, sweep.x);
    const bool placeable = data.numeric_x ? x.is_number() : x.is_string();
    if (!placeable) { // one rule per value, naming every device that published it
      auto same = std::find_if(data.rows.begin(), data.rows.end(), [&](const json& row) {
        return row["kind"] == kind::published_rule && row["y"] == value;
      });
      if (same != data.rows.end()) {
        (*same)["devices"].push_back(device);
        (*same)["tip"] = (*same)["tip"].get<std::string>() + "; " + tip;
      } else {
        data.rows.push_back({{"kind", kind::published_rule},
                             {"y", value},
                             {"series", ""},
                             {"facet", ""},
                             {"devices", {device}},
                             {"unit", unit},
                             {"tip", tip}});
      }
      continue;
    }
    const auto match =
        std::find_if(data.plotted.begin(), data.plotted.end(), [&](const Plotted& p) {
          return std::all_of(params.items().begin(), params.items().end(), [&](const auto& kv) {
            return member(*p.params, kv.key().c_str()) == kv.value();
          });
        });
    data.rows.push_back({{"kind", kind::published},
                         {"x", x},
                         {"y", value},
                         {"series", match != data.plotted.end() ? match->series : ""},
                         {"facet", ""},
                         {"published", device},
                         {"label", tip}});
  }
}

void add_ideal(SweepData& data, const Sweep& sweep) {
  if (!sweep.ideal)
    return;
  for (const Plotted& p : data.plotted)
    if (const auto y = sweep.ideal(p))
      data.rows.push_back({{"kind", kind::limit_line},
                           {"x", x_of(sweep, p)},
                           {"y", *y},
                           {"series", p.series},
                           {"facet", p.facet},
                           {"label", sweep.ideal_label}});
}

// The words of each published rule, once its devices are gathered.
void label_published_rules(SweepData& data) {
  for (auto& row : data.rows) {
    if (row["kind"] != kind::published_rule)
      continue;
    std::string devices;
    for (const auto& device : row["devices"])
      devices += (devices.empty() ? "" : ", ") + device.get<std::string>();
    row["label"] =
        devices + " (published): " + number_with_unit(row["y"].get<double>(), row["unit"]);
  }
}

void add_rules(SweepData& data, const Sweep& sweep) {
  for (const Rule& rule : sweep.rules) {
    const char* k = rule.vertical ? (rule.series.empty() ? kind::vertical : kind::vertical_series)
                                  : (rule.series.empty() ? kind::rule : kind::rule_series);
    json row = {{"kind", k},
                {"series", rule.series},
                {"facet", rule.facet},
                {"label", rule.label},
                {"tip", rule.label}};
    row[rule.vertical ? "x" : "y"] = rule.value;
    data.rows.push_back(std::move(row));
  }
  for (const Note& note : sweep.notes)
    data.rows.push_back({{"kind", kind::note},
                         {"x", note.x},
                         {"y", note.y},
                         {"series", note.series},
                         {"facet", note.facet},
                         {"label", note.label},
                         {"tip", note.tip.empty() ? note.label : note.tip}});
}

// In panels, a row that belongs to no panel is drawn in each.
void spread_over_facets(SweepData& data) {
  for (const Plotted& p : data.plotted)
    if (!p.facet.empty() &&
        std::find(data.facets.begin(), data.facets.end(), p.facet) == data.facets.end())
      data.facets.push_back(p.facet);
  if (data.facets.empty())
    return;
  json rows = json::array();
  for (auto& row : data.rows) {
    if (row["facet"] != "") {
      // A rule or note of a device model this chart draws no point of would open a panel of
      // its own with nothing measured in it (issue 25: an empty panel and Vega's warnings).
      if (std::find(data.facets.begin(), data.facets.end(), row["facet"].get<std::string>()) !=
          data.facets.end())
        rows.push_back(std::move(row));
      continue;
    }
    for (const auto& facet : data.facets) {
      json copy = row;
      copy["facet"] = facet;
      rows.push_back(std::move(copy));
    }
  }
  data.rows = std::move(rows);
}

bool is_value_rule(const json& row) {
  const std::string k = row["kind"];
  return k == kind::limit_rule || k == kind::rule || k == kind::rule_series ||
         k == kind::published_rule;
}

// Where a row sits across its panel, 0 (left or bottom) to 1, on the axis' own scale; the
// labels are placed from these (the pixels are Vega's, but a fraction of the panel is enough to
// tell which words would land on each other).
class Placement {
public:
  Placement(const SweepData& data, const Sweep& sweep) : data_(data) {
    log_x_ = sweep.log_x;
    for (const auto& v : data.x_order)
      if (v.is_number() && (!log_x_ || v.get<double>() > 0)) {
        const double x = v.get<double>();
        x_low_ = std::min(x_low_, x);
        x_high_ = std::max(x_high_, x);
      }
    for (const auto& row : data.rows)
      if (row.contains("y") && row["y"].is_number() && row["y"].get<double>() > 0) {
        const double y = row["y"].get<double>();
        y_low_ = y_low_ > 0 ? std::min(y_low_, y) : y;
        y_high_ = std::max(y_high_, y);
      }
    log_y_ = sweep.log_y && data.positive_y && y_low_ > 0;
    bars_ = sweep.mark == "bar";
  }

  double x(const json& row) const {
    const json& value = row.contains("x") ? row["x"] : json();
    if (!data_.numeric_x || bars_) {
      const auto at = std::find(data_.x_order.begin(), data_.x_order.end(), value);
      const double n = std::max<double>(1, double(data_.x_order.size()));
      double position = (double(at - data_.x_order.begin()) + 0.5) / n;
      // Bars of one category stand side by side: a series' note sits over its own bar.
      const auto s = std::find(data_.series.begin(), data_.series.end(), row.value("series", ""));
      if (data_.series.size() > 1 && s != data_.series.end())
        position +=
            ((double(s - data_.series.begin()) + 0.5) / double(data_.series.size()) - 0.5) / n;
      return position;
    }
    if (!value.is_number() || !(x_high_ > x_low_))
      return 0.5;
    const double v = value.get<double>();
    if (log_x_ && v > 0 && x_low_ > 0)
      return std::log(v / x_low_) / std::log(x_high_ / x_low_);
    return (v - x_low_) / (x_high_ - x_low_);
  }

  double y(double value) const {
    if (log_y_)
      return value > 0 ? std::log(value / y_low_) / std::log(y_high_ / y_low_) : 0;
    return y_high_ > 0 ? value / y_high_ : 0;
  }

private:
  const SweepData& data_;
  bool log_x_ = false, log_y_ = false, bars_ = false;
  double x_low_ = 1e300, x_high_ = -1e300, y_low_ = 0, y_high_ = 0;
};

// Words a reader can read (issue 25: labels drawn on top of each other). A horizontal rule's
// words stand at the right end, or at the left end where a note's words sit by the right end at
// its height; they are left out (the tooltip keeps them) where an earlier rule of the same panel
// sits within 4% of the value axis. Vertical rules' words stand a line above each other from the
// bottom of the panel (the curves of a roofline fill its top), on the side of the rule with room.
// A note's words that would land on an earlier note's go below its point, and are left unsaid
// where that place is taken too or where they repeat the earlier note's words.
void place_labels(SweepData& data, const Sweep& sweep) {
  const Placement at(data, sweep);
  struct Spot {
    double x, y;
    std::string label;
  };
  std::map<std::string, std::vector<double>> taken;
  std::map<std::string, int> slots;
  std::map<std::string, std::vector<Spot>> notes; // words placed, per panel
  for (auto& row : data.rows) {
    if (!row.contains("tip"))
      row["tip"] = row.value("label", "");
    if (row["kind"] != kind::note || row.value("label", "").empty())
      continue;
    const std::string facet = row["facet"];
    const double x = at.x(row), y = at.y(row["y"].get<double>());
    const std::string label = row["label"];
    auto& seen = notes[facet];
    const auto near = [&](double dy) {
      return std::any_of(seen.begin(), seen.end(), [&](const Spot& other) {
        return std::abs(other.x - x) < 0.09 && std::abs(other.y - (y + dy)) < 0.07;
      });
    };
    const bool repeats = std::any_of(seen.begin(), seen.end(), [&](const Spot& other) {
      return other.label == label && std::abs(other.x - x) < 0.05 && std::abs(other.y - y) < 0.1;
    });
    if (repeats) {
      row["label"] = "";
    } else if (!near(0)) {
      seen.push_back({x, y, label});
    } else if (!near(-0.12)) {
      row["below"] = true;
      seen.push_back({x, y - 0.12, label});
    } else {
      row["label"] = "";
    }
  }
  for (auto& row : data.rows) {
    const std::string facet = row["facet"];
    if (is_value_rule(row)) {
      auto& seen = taken[facet];
      const double y = at.y(row["y"].get<double>());
      if (std::any_of(seen.begin(), seen.end(),
                      [&](double other) { return std::abs(y - other) < 0.04; })) {
        row["label"] = "";
        continue;
      }
      seen.push_back(y);
      const auto& spots = notes[facet];
      const auto taken_on = [&](bool right) {
        return std::any_of(spots.begin(), spots.end(), [&](const Spot& s) {
          return (right ? s.x > 0.45 : s.x < 0.55) && std::abs(s.y - y) < 0.1;
        });
      };
      if (taken_on(true) && taken_on(false))
        row["label"] = ""; // no room on either side: its tooltip says it
      else if (taken_on(true))
        row["anchor"] = "left";
    } else if (row["kind"] == kind::vertical || row["kind"] == kind::vertical_series) {
      row["slot_px"] = sweep.height - 6 - 14 * slots[facet]++;
      if (at.x(row) > 0.55) // words to the left of a rule near the right edge
        row["anchor"] = "right";
    }
  }
}

} // namespace

Keep sweep_keep(const Sweep& sweep) {
  return [&sweep](const PointView& p) {
    return (sweep.x.empty() || !member(p.measurement->params, sweep.x.c_str()).is_null()) &&
           (!sweep.keep || sweep.keep(p));
  };
}

json x_of(const Sweep& sweep, const Plotted& plotted) {
  if (sweep.x.empty())
    return plotted.run ? plotted.run->name : plotted.device_model;
  return axis_value(*plotted.params, sweep.x);
}

SweepData sweep_data(const PageModel& page, const ExperimentView& experiment, const Sweep& sweep) {
  SweepData data;
  const auto points = kept_points(*sweep.metric, sweep_keep(sweep));
  data.plan = plan_series(page, points, sweep.colour, sweep.colour_title);
  data.plotted = plot_points(points, data.plan);
  if (sweep.as_pct_of_limit) { // each point over its own device's limit
    std::vector<Plotted> shares;
    for (Plotted p : data.plotted) {
      const auto limit = p.points.front()->limit_gbs;
      if (!limit || !(*limit > 0))
        continue;
      for (double* v : {&p.y, &p.low, &p.high})
        *v = *v / *limit * 100;
      shares.push_back(std::move(p));
    }
    data.plotted = std::move(shares);
  }
  data.series = series_order(data.plotted);
  for (const Plotted& p : data.plotted) {
    const json x = x_of(sweep, p);
    data.numeric_x = data.numeric_x && x.is_number();
    if (std::find(data.x_order.begin(), data.x_order.end(), x) == data.x_order.end())
      data.x_order.push_back(x);
  }
  std::vector<Plotted> models;
  if (sweep.model_metric)
    models = plot_points(kept_points(*sweep.model_metric, sweep.keep), data.plan);
  std::set<std::string> devices;
  for (const Plotted& p : data.plotted)
    devices.insert(p.device_model);

  add_measured(data, experiment, sweep, models);
  add_limits(data, experiment, sweep, devices.size() > 1);
  add_ideal(data, sweep);
  add_published(data, sweep);
  label_published_rules(data);
  add_rules(data, sweep);
  spread_over_facets(data);
  for (const auto& row : data.rows) {
    data.kinds.insert(row["kind"].get<std::string>());
    if (row.contains("y") && row["y"].is_number() && !(row["y"].get<double>() > 0))
      data.positive_y = false;
    if (row["kind"] == kind::measured && !(row["low"].get<double>() > 0))
      data.positive_y = false;
  }
  place_labels(data, sweep);
  // Empty keys say nothing, and a page of many charts carries every byte of them.
  for (auto& row : data.rows)
    for (const char* key : {"series", "facet"})
      if (row.contains(key) && row[key] == "")
        row.erase(key);
  return data;
}

} // namespace apod::report::charts
