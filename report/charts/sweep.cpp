// The sweep: a metric against one parameter, as lines, points or bars, with its whiskers or
// band, the model beside it (dashed, in the series' colour), limits named in words (red,
// dashed), the published figures (black diamonds) and the rules of its design.
#include "charts/sweep.hpp"

#include "charts/chart.hpp"
#include "charts/series.hpp"
#include "charts/sweep_rows.hpp"
#include "charts/tooltips.hpp"
#include "format.hpp"
#include "palette.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace apod::report::charts {

namespace {

// Past this many categories an ordinal axis runs down the side (horizontal bars): its labels
// would overlap along the bottom.
constexpr std::size_t max_categories_across = 16;

// Byte-sized axes read better as "64 MiB" than as "67,108,864", and a tick between powers of two
// as "9.54 MiB", not "9.53674 MiB" (three significant digits).
constexpr const char* bytes_label_expr =
    "datum.value >= 1073741824 ? format(datum.value / 1073741824, '.3~g') + ' GiB'"
    " : datum.value >= 1048576 ? format(datum.value / 1048576, '.3~g') + ' MiB'"
    " : datum.value >= 1024 ? format(datum.value / 1024, '.3~g') + ' KiB'"
    " : format(datum.value, '.3~g') + ' B'";

// Whether some row of `kind` has `key` set to `value` (or, with `set` false, lacks it): a layer
// that no row feeds is left out (an empty layer makes Vega warn of an infinite extent).
bool any_row(const SweepData& data, const char* kind, const char* key, const json& value,
             bool set) {
  return std::any_of(data.rows.begin(), data.rows.end(), [&](const json& row) {
    return row["kind"] == kind && (row.contains(key) && row[key] == value) == set;
  });
}

json filter(const char* kind) {
  return json::array({{{"filter", std::string("datum.kind === '") + kind + "'"}}});
}

/// Which channel holds the categories and which the values (horizontal bars swap them).
struct Channels {
  std::string cat = "x", val = "y", val2 = "y2", offset = "xOffset";
};

json category_encoding(const Sweep& sweep, const SweepData& data, bool across) {
  json x = {{"field", "x"}, {"title", sweep.x_title}};
  if (!data.numeric_x || sweep.mark == "bar") {
    std::size_t longest = 0;
    for (const auto& v : data.x_order)
      longest = std::max(longest, v.is_string() ? v.get<std::string>().size() : v.dump().size());
    x["type"] = "ordinal";
    x["scale"] = {{"domain", data.x_order}};
    // Labels stand upright while they fit their band; else they turn, whole, never cut.
    const bool turn = across && data.x_order.size() * (longest * 7 + 8) > 760;
    x["axis"] = {{"labelAngle", turn ? -35 : 0}, {"labelLimit", 400}};
    return x;
  }
  x["type"] = "quantitative";
  x["scale"] = {{"nice", false}}; // end the axis at the last measured point, not past it
  bool all_positive = true, integers = true;
  for (const auto& v : data.x_order) {
    all_positive = all_positive && v.get<double>() > 0;
    integers = integers && v.is_number_integer();
  }
  if (sweep.log_x) // a log scale cannot place 0; symlog keeps the shape and still draws it
    x["scale"].update(all_positive ? json{{"type", "log"},
                                          {"base", sweep.log_base     ? sweep.log_base
                                                   : sweep.x_in_bytes ? 2
                                                                      : 10}}
                                   : json{{"type", "symlog"}});
  double widest = 0;
  for (const auto& v : data.x_order)
    widest = std::max(widest, std::abs(v.get<double>()));
  if (sweep.x_in_bytes)
    x["axis"] = {{"labelExpr", bytes_label_expr}};
  else if (widest >= 100000) // "13M", not "13,000,000" (SI, three significant digits)
    x["axis"] = {{"format", ".3~s"}};
  else if (integers && !sweep.log_x)
    x["axis"] = {{"tickMinStep", 1}}; // no "2.5 words" between whole-number parameters
  return x;
}

json value_encoding(const Sweep& sweep, const SweepData& data, const char* field) {
  json y = {{"field", field},
            {"type", "quantitative"},
            {"title", sweep.y_title.empty() ? metric_title(sweep.metric->metric, sweep.metric->unit)
                                            : sweep.y_title}};
  if (sweep.log_y && data.positive_y)
    y["scale"] = {{"type", "log"}};
  // GFLOP/s past ten thousand: the axis counts TFLOP/s ("60", not "60,000"); every other value
  // axis rounds its ticks to three significant digits.
  double highest = 0;
  for (const auto& row : data.rows)
    if (row.contains("y") && row["y"].is_number())
      highest = std::max(highest, row["y"].get<double>());
  std::string title = y["title"];
  const auto giga = title.find("GFLOP/s");
  if (sweep.metric->unit == "GFLOP/s" && highest >= 10000 && giga != std::string::npos) {
    y["title"] = title.replace(giga, 1, "T");
    y["axis"] = {{"labelExpr", "format(datum.value / 1000, ',.3~r')"}};
  } else {
    y["axis"] = {{"format", ",.3~r"}};
  }
  return y;
}

json colour_or(const SweepData& data, const Sweep& sweep, const char* fixed) {
  if (data.series.empty()) {
    // One series of one device model: that model's colour on the page.
    SeriesColours* page = current_series_colours();
    if (page && !data.plotted.empty())
      return {{"value", page->colours_of({data.plotted.front().device_model}).front()}};
    return {{"value", fixed}};
  }
  return colour_encoding(data.series, data.plan.legend_title.empty() ? sweep.colour_title
                                                                     : data.plan.legend_title);
}

// One shape scale for the measured points' marker (host_transfer: batched or single) and the
// published figures' devices, so both legends read from one domain without conflict.
json shape_encoding(const SweepData& data, const Sweep& sweep, const char* field) {
  static const char* measured_shapes[] = {"circle", "square", "triangle-down"};
  static const char* published_shapes[] = {"diamond",        "triangle-up",   "cross",
                                           "triangle-right", "triangle-left", "wedge"};
  json domain = json::array(), range = json::array();
  std::size_t m = 0, p = 0;
  for (const auto& row : data.rows) {
    const bool measured = row["kind"] == kind::measured && row.contains("shape");
    const bool published = row["kind"] == kind::published;
    if (!measured && !published)
      continue;
    const json& value = measured ? row["shape"] : row["published"];
    if (std::find(domain.begin(), domain.end(), value) != domain.end())
      continue;
    domain.push_back(value);
    range.push_back(measured ? measured_shapes[m++ % 3] : published_shapes[p++ % 6]);
  }
  const bool both = sweep.shape_of && data.kinds.count(kind::published);
  json legend = {{"labelLimit", 1000}};
  if (!data.facets.empty())
    legend["orient"] = "bottom";
  return {{"field", field},
          {"type", "nominal"},
          {"title", both                            ? sweep.shape_title + " / published"
                    : field == std::string("shape") ? sweep.shape_title
                                                    : "published"},
          {"scale", {{"domain", domain}, {"range", range}}},
          {"legend", legend}};
}

json layer(const char* kind, json mark, json encoding) {
  return {
      {"transform", filter(kind)}, {"mark", std::move(mark)}, {"encoding", std::move(encoding)}};
}

// Horizontal rules (limits, a design's, published ones) with their words at the right end.
void add_value_rules(json& layers, const SweepData& data, const Sweep& sweep, const Channels& c,
                     const char* kind, const json& colour, json dash) {
  if (!data.kinds.count(kind))
    return;
  const json value = value_encoding(sweep, data, "y");
  const json tip = json::array({{{"field", "tip"}, {"title", "line"}}});
  json rule_enc = {{c.val, value}, {"color", colour}, {"tooltip", tip}};
  layers.push_back(
      layer(kind, {{"type", "rule"}, {"strokeDash", dash}, {"strokeWidth", 1.5}}, rule_enc));
  // The words at the right end, or at the left where a note's words sit at the right
  // (sweep_rows.cpp's place_labels).
  for (const bool left : {false, true}) {
    if (!any_row(data, kind, "anchor", "left", left))
      continue;
    json text_enc = {{c.val, value}, {"text", {{"field", "label"}}}, {"color", colour}};
    if (left)
      text_enc[c.cat] = {{"value", 0}};
    else
      text_enc[c.cat] = {{"value", c.cat == "x" ? "width" : "height"}};
    json text = layer(kind,
                      {{"type", "text"},
                       {"align", left ? "left" : "right"},
                       {"baseline", "bottom"},
                       {"dx", left ? 3 : 0},
                       {"dy", -3},
                       {"fontSize", 10.5}},
                      text_enc);
    text["transform"].push_back(
        {{"filter", left ? "datum.anchor === 'left'" : "datum.anchor !== 'left'"}});
    layers.push_back(std::move(text));
  }
}

void add_vertical_rules(json& layers, const SweepData& data, const Sweep& sweep, const char* kind,
                        const json& colour) {
  if (!data.kinds.count(kind) || !data.numeric_x)
    return;
  const json x = category_encoding(sweep, data, true);
  layers.push_back(layer(kind, {{"type", "rule"}, {"strokeDash", {2, 3}}, {"strokeWidth", 1.5}},
                         {{"x", x},
                          {"color", colour},
                          {"tooltip", json::array({{{"field", "tip"}, {"title", "line"}}})}}));
  // The words stand from the bottom of the panel up (slot_px), right of the rule, or left of it
  // near the right edge (sweep_rows.cpp's place_labels).
  for (const bool right : {false, true}) {
    if (!any_row(data, kind, "anchor", "right", right))
      continue;
    json text = layer(kind,
                      {{"type", "text"},
                       {"align", right ? "right" : "left"},
                       {"baseline", "bottom"},
                       {"dx", right ? -3 : 3},
                       {"fontSize", 10.5}},
                      {{"x", x},
                       {"y", {{"field", "slot_px"}, {"type", "quantitative"}, {"scale", nullptr}}},
                       {"text", {{"field", "label"}}},
                       {"color", colour}});
    text["transform"].push_back(
        {{"filter", right ? "datum.anchor === 'right'" : "datum.anchor !== 'right'"}});
    layers.push_back(std::move(text));
  }
}

} // namespace

SeriesPlan sweep_plan(const PageModel& page, const Sweep& sweep) {
  return plan_series(page, kept_points(*sweep.metric, sweep_keep(sweep)), sweep.colour,
                     sweep.colour_title);
}

namespace {

// The layers of one sweep, each fed by the rows of its kind; one colour encoding for all, so the
// legend is one and a series keeps its colour in every layer.
class SweepLayers {
public:
  SweepLayers(const SweepData& data, const Sweep& sweep) : data_(data), sweep_(sweep) {
    if (bars() && data.x_order.size() > max_categories_across)
      c_ = {"y", "x", "x2", "yOffset"};
    cat_ = category_encoding(sweep, data, c_.cat == "x");
    colour_ = colour_or(data, sweep, "#4c78a8");
    if (!data.facets.empty() && colour_.contains("legend")) // panels fill the width
      colour_["legend"].update({{"orient", "bottom"}, {"columns", 2}});
  }

  bool horizontal() const { return c_.cat == "y"; }

  json all(const ExperimentView& experiment) const {
    json layers = json::array();
    spread(layers);
    lines(layers);
    measured(layers, experiment);
    add_value_rules(layers, data_, sweep_, c_, kind::limit_rule, {{"value", limit_colour}}, {6, 4});
    add_value_rules(layers, data_, sweep_, c_, kind::rule, {{"value", "#555555"}}, {3, 3});
    add_value_rules(layers, data_, sweep_, c_, kind::rule_series, colour_, {3, 3});
    add_value_rules(layers, data_, sweep_, c_, kind::published_rule, {{"value", published_colour}},
                    {1, 3});
    if (!horizontal()) {
      add_vertical_rules(layers, data_, sweep_, kind::vertical, {{"value", "#555555"}});
      add_vertical_rules(layers, data_, sweep_, kind::vertical_series, colour_);
    }
    notes(layers);
    published(layers);
    return layers;
  }

  // The residual panel: measured / model - 1 per point, in the series' colours, against zero and
  // the model's stated bound.
  json residual() const {
    json layers = json::array();
    const json rows_with =
        json::array({{{"filter", "datum.kind === 'measured' && isValid(datum.residual_pct)"}}});
    json zero = {{c_.val, {{"datum", 0}, {"type", "quantitative"}}}};
    layers.push_back({{"transform", rows_with},
                      {"mark", {{"type", "rule"}, {"color", "#555555"}}},
                      {"encoding", zero}});
    if (sweep_.model_bound > 0)
      for (const double side : {-1.0, 1.0}) {
        json at = {
            {c_.val, {{"datum", side * sweep_.model_bound * 100}, {"type", "quantitative"}}}};
        layers.push_back(
            {{"transform", rows_with},
             {"mark", {{"type", "rule"}, {"color", "#888888"}, {"strokeDash", {4, 3}}}},
             {"encoding", at}});
      }
    json e = {{c_.cat, cat_},
              {c_.val,
               {{"field", "residual_pct"},
                {"type", "quantitative"},
                {"title", "measured / model − 1 (%)"}}},
              {"color", colour_}};
    if (sweep_.mark == "line" && !bars()) {
      json line = e;
      line["detail"] = {{"field", "line"}};
      layers.push_back({{"transform", rows_with},
                        {"mark", {{"type", "line"}, {"opacity", 0.5}}},
                        {"encoding", line}});
    }
    e["tooltip"] = json::array({{{"field", "residual_text"}, {"title", "residual"}}});
    layers.push_back({{"transform", rows_with},
                      {"mark", {{"type", "point"}, {"filled", true}, {"size", 40}}},
                      {"encoding", e}});
    return layers;
  }

private:
  bool bars() const { return sweep_.mark == "bar"; }

  json base(const char* field) const {
    json e = {{c_.cat, cat_}, {c_.val, value_encoding(sweep_, data_, field)}};
    if (bars() && data_.series.size() > 1) // bars of one category stand side by side
      e[c_.offset] = {{"field", "series"}, {"scale", {{"domain", data_.series}}}};
    return e;
  }

  // The spread: a band along a line of run medians, whiskers everywhere else.
  void spread(json& layers) const {
    json e = base("low");
    e[c_.val2] = {{"field", "high"}};
    e["color"] = colour_;
    if (sweep_.mark == "line" && data_.plan.aggregated) {
      e["detail"] = {{"field", "line"}};
      layers.push_back(layer(kind::measured, {{"type", "area"}, {"opacity", 0.18}}, e));
    } else
      layers.push_back(layer(kind::measured, {{"type", "rule"}, {"opacity", 0.6}}, e));
  }

  // A limit that varies along x (red, dashed) and the model beside each series (its colour).
  void lines(json& layers) const {
    if (data_.kinds.count(kind::limit_line)) {
      json e = base("y");
      e["detail"] = {{"field", "series"}};
      e["tooltip"] = json::array({{{"field", "label"}, {"title", "line"}}});
      layers.push_back(layer(kind::limit_line,
                             {{"type", "line"}, {"color", limit_colour}, {"strokeDash", {6, 4}}},
                             e));
    }
    if (!data_.kinds.count(kind::model))
      return;
    json e = base("y");
    e["color"] = colour_;
    e["tooltip"] = json::array({{{"field", "model_text"}, {"title", "model"}}});
    if (bars()) {
      layers.push_back(layer(kind::model, {{"type", "tick"}, {"thickness", 2}}, e));
      return;
    }
    e["detail"] = {{"field", "line"}};
    layers.push_back(
        layer(kind::model, {{"type", "line"}, {"strokeDash", {5, 3}}, {"strokeWidth", 1.5}}, e));
  }

  void measured(json& layers, const ExperimentView& experiment) const {
    json main = base("y");
    main["color"] = colour_;
    main["tooltip"] =
        measured_tooltip(experiment, *sweep_.metric, data_.plan, data_.plotted, data_.with_model);
    if (bars()) {
      layers.push_back(layer(kind::measured, {{"type", "bar"}, {"tooltip", true}}, main));
      return;
    }
    if (sweep_.mark == "line") {
      json line = main;
      line.erase("tooltip");
      line["detail"] = {{"field", "line"}};
      layers.push_back(layer(kind::measured, {{"type", "line"}}, line));
    }
    if (sweep_.shape_of)
      main["shape"] = shape_encoding(data_, sweep_, "shape");
    layers.push_back(layer(kind::measured,
                           {{"type", "point"}, {"filled", true}, {"size", 45}, {"opacity", 0.9}},
                           main));
  }

  void notes(json& layers) const {
    if (!data_.kinds.count(kind::note))
      return;
    json square = base("y");
    square["tooltip"] = json::array({{{"field", "tip"}, {"title", "point"}}});
    layers.push_back(layer(kind::note,
                           {{"type", "point"},
                            {"shape", "square"},
                            {"size", 90},
                            {"filled", false},
                            {"color", "#222"}},
                           square));
    json e = base("y");
    e["text"] = {{"field", "label"}};
    // Above the point, or below it where another note's words took that place.
    for (const bool below : {false, true}) {
      if (!any_row(data_, kind::note, "below", true, below))
        continue;
      json text = layer(
          kind::note,
          {{"type", "text"}, {"align", "center"}, {"dy", below ? 15 : -13}, {"fontWeight", "bold"}},
          e);
      text["transform"].push_back(
          {{"filter", below ? "datum.below === true" : "datum.below !== true"}});
      layers.push_back(std::move(text));
    }
  }

  void published(json& layers) const {
    if (!data_.kinds.count(kind::published))
      return;
    json e = {{c_.cat, cat_}, {c_.val, value_encoding(sweep_, data_, "y")}};
    e["shape"] = shape_encoding(data_, sweep_, "published");
    e["tooltip"] = json::array({{{"field", "label"}, {"title", "published"}}});
    layers.push_back(layer(kind::published,
                           {{"type", "point"},
                            {"filled", true},
                            {"size", 80},
                            {"color", published_colour},
                            {"opacity", 0.85}},
                           e));
  }

  const SweepData& data_;
  const Sweep& sweep_;
  Channels c_;
  json cat_, colour_;
};

} // namespace

namespace {

// One view of the rows, or one panel per facet, of `layers`.
json view_spec(const SweepData& data, json layers, int height) {
  json spec = {{"data", {{"values", data.rows}}}};
  if (data.facets.empty()) {
    spec.update({{"width", "container"}, {"height", height}, {"layer", std::move(layers)}});
  } else {
    // Panels side by side within the page's ~1130 px, their legends below them.
    const int columns = data.facets.size() > 2 ? 3 : int(data.facets.size());
    spec.update(
        {{"facet",
          {{"field", "facet"}, {"type", "nominal"}, {"title", nullptr}, {"sort", data.facets}}},
         {"columns", columns},
         {"spec",
          {{"width", columns == 3 ? 300 : 470},
           {"height", height},
           {"layer", std::move(layers)}}}});
  }
  spec["config"] = chart_config();
  return spec;
}

} // namespace

json sweep_spec(const PageModel& page, const ExperimentView& experiment, const Sweep& sweep) {
  const SweepData data = sweep_data(page, experiment, sweep);
  const SweepLayers layers(data, sweep);
  const int height = layers.horizontal() ? int(18 * data.x_order.size()) + 40 : sweep.height;
  return view_spec(data, layers.all(experiment), height);
}

std::optional<json> residual_spec(const PageModel& page, const ExperimentView& experiment,
                                  const Sweep& sweep, ModelMiss* miss) {
  const SweepData data = sweep_data(page, experiment, sweep);
  if (!data.with_residual)
    return std::nullopt;
  if (miss) {
    std::vector<double> residuals, ratios;
    for (const auto& row : data.rows)
      if (row["kind"] == kind::measured && row.contains("residual_pct")) {
        residuals.push_back(std::abs(row["residual_pct"].get<double>()));
        ratios.push_back(1 + row["residual_pct"].get<double>() / 100);
      }
    *miss = {residuals.size(), apod::summarize(residuals).median, apod::summarize(ratios).median};
  }
  const SweepLayers layers(data, sweep);
  const int height = layers.horizontal() ? int(18 * data.x_order.size()) + 40 : 140;
  return view_spec(data, layers.residual(), height);
}

std::string model_miss_sentence(const ModelMiss& miss, double bound, const std::string& label) {
  if (miss.points == 0 || (bound > 0 && miss.median_abs_pct <= bound * 100))
    return "";
  // Past a factor of two a percentage hides the size of the miss: "by a factor of 3.8".
  const std::string size =
      miss.median_ratio >= 2
          ? fmt::format("by a factor of {:.2g}, measured over model", miss.median_ratio)
      : miss.median_ratio <= 0.5
          ? fmt::format("by a factor of {:.2g}, model over measured", 1 / miss.median_ratio)
          : fmt::format("by {:.3g}%", miss.median_abs_pct);
  // Past its bound a model misses; one that states none is off by what it is off by.
  const std::string verb = bound > 0 ? "misses" : "is off";
  const std::string of = bound > 0 ? fmt::format("its bound is {:g}%", bound * 100)
                                   : std::string("it declares no bound");
  const std::string which = label.empty() || label == "model" ? "" : " (" + label + ")";
  return fmt::format("The model{} {} {} (median over {} point{}; {}).", which, verb, size,
                     miss.points, miss.points == 1 ? "" : "s", of);
}

} // namespace apod::report::charts
