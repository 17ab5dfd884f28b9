// The catalog's wire form (`apod list --json`; docs/results-format.md, "The catalog"): written
// and read here only. Reading is strict about types and names (a catalog is an input of the
// report's tests and of anyone's tooling) and lenient about keys it does not know.
#include "core/catalog.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace apod {

namespace {

json pair_json(const std::pair<std::string, json>& p) {
  if (p.first.empty())
    return nullptr;
  return {{"param", p.first}, {"value", p.second}};
}

json to_json(const ClassCase& c) {
  json j = {{"key", c.key}, {"class", class_name(c.then)}, {"why", c.why}};
  if (!c.equals.is_null())
    j["equals"] = c.equals;
  if (c.below)
    j["below"] = *c.below;
  return j;
}

json to_json(const Metric& m) {
  json cases = json::array();
  for (const ClassCase& c : m.cases)
    cases.push_back(to_json(c));
  return {{"name", m.name},
          {"unit", m.unit},
          {"direction", to_string(m.direction)},
          {"class", class_name(m.metric_class)},
          {"limit", limit_name(m.limit)},
          {"title", m.title},
          {"class_cases", cases},
          {"zero_is_a_value", m.zero_is_a_value}};
}

json to_json(const Param& p) {
  json labels = json::object();
  for (const auto& [value, words] : p.labels)
    labels[value] = words;
  return {{"key", p.key}, {"title", p.title}, {"unit", p.unit}, {"labels", labels}};
}

const char* rule_from_name(RuleSpec::From f) {
  switch (f) {
  case RuleSpec::From::fixed:
    return "fixed";
  case RuleSpec::From::metric:
    return "metric";
  case RuleSpec::From::extra:
    return "extra";
  case RuleSpec::From::published:
    break;
  }
  return "published";
}

json to_json(const RuleSpec& r) {
  return {{"from", rule_from_name(r.from)},
          {"vertical", r.vertical},
          {"metric", r.metric},
          {"extra", r.extra},
          {"only", pair_json(r.only)},
          {"value", r.value},
          {"scale", r.scale},
          {"label", r.label},
          {"unit", r.unit},
          {"per_series", r.per_series},
          {"per_model", r.per_model},
          {"kind", r.kind}};
}

json to_json(const NoteSpec& n) {
  return {{"metric", n.metric},   {"only", pair_json(n.only)},    {"except", pair_json(n.except)},
          {"x_param", n.x_param}, {"x_extra", n.x_extra},         {"x_value", n.x_value},
          {"label", n.label},     {"label_param", n.label_param}, {"tip", n.tip}};
}

json to_json(const FigureRef& f) {
  return {{"experiment", f.experiment}, {"metric", f.metric}, {"params", f.params}};
}

json to_json(const Chart& c) {
  json rules = json::array(), notes = json::array(), figures = json::array();
  for (const RuleSpec& r : c.rules)
    rules.push_back(to_json(r));
  for (const NoteSpec& n : c.notes)
    notes.push_back(to_json(n));
  for (const auto& [metric, words] : c.caption_figures)
    figures.push_back({{"metric", metric}, {"words", words}});
  return {{"shape", shape_name(c.shape)},
          {"metric", c.metric},
          {"caption", c.caption},
          {"sentences", c.sentences},
          {"x", c.x},
          {"log_x", c.log_x},
          {"log_base", c.log_base},
          {"log_y", c.log_y},
          {"y_title", c.y_title},
          {"color", c.color},
          {"mark", c.mark},
          {"only", pair_json(c.only)},
          {"limits", c.limits},
          {"model_extra", c.model_extra},
          {"model_metric", c.model_metric},
          {"model_label", c.model_label},
          {"model_bound", c.model_bound},
          {"ideal_extra", c.ideal_extra},
          {"ideal_label", c.ideal_label},
          {"littles_law_latency",
           c.littles_law_latency ? to_json(*c.littles_law_latency) : json(nullptr)},
          {"published_metrics", c.published_metrics},
          {"rules", rules},
          {"notes", notes},
          {"marker_extra", c.marker_extra},
          {"marker_above", c.marker_above},
          {"marker_title", c.marker_title},
          {"marker_above_label", c.marker_above_label},
          {"marker_else_label", c.marker_else_label},
          {"caption_figures", figures},
          {"figures_lead", c.figures_lead},
          {"y", c.y},
          {"y_extra", c.y_extra},
          {"y_extra_unit", c.y_extra_unit},
          {"panels", c.panels}};
}

// ---- reading ------------------------------------------------------------------------------

// One object's fields, read with their types checked; a missing or null field keeps the default.
class Fields {
public:
  Fields(const json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j.is_object())
      throw InputError(where_ + " is not an object");
  }
  const std::string& where() const { return where_; }
  std::string at(const char* key) const { return where_ + "." + key; }

  const json* find(const char* key) const {
    const auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  void read(const char* key, std::string& out) const {
    if (const json* v = find(key)) {
      if (!v->is_string())
        throw InputError(at(key) + " is not a string");
      out = v->get<std::string>();
    }
  }
  void read(const char* key, bool& out) const {
    if (const json* v = find(key)) {
      if (!v->is_boolean())
        throw InputError(at(key) + " is not true or false");
      out = v->get<bool>();
    }
  }
  void read(const char* key, double& out) const {
    if (const json* v = find(key)) {
      if (!v->is_number())
        throw InputError(at(key) + " is not a number");
      out = v->get<double>();
    }
  }
  void read(const char* key, int& out) const {
    if (const json* v = find(key)) {
      if (!v->is_number_integer())
        throw InputError(at(key) + " is not an integer");
      out = v->get<int>();
    }
  }
  void read(const char* key, std::vector<std::string>& out) const {
    if (const json* v = find(key)) {
      if (!v->is_array())
        throw InputError(at(key) + " is not an array");
      out.clear();
      for (const json& item : *v) {
        if (!item.is_string())
          throw InputError(at(key) + " holds something other than a string");
        out.push_back(item.get<std::string>());
      }
    }
  }
  std::string text(const char* key) const {
    std::string out;
    read(key, out);
    return out;
  }
  std::string required(const char* key) const {
    const std::string out = text(key);
    if (out.empty())
      throw InputError(at(key) + " is missing or empty");
    return out;
  }
  std::pair<std::string, json> pair(const char* key) const {
    const json* v = find(key);
    if (!v)
      return {};
    const Fields f(*v, at(key));
    const json* value = f.find("value");
    return {f.required("param"), value ? *value : json(nullptr)};
  }
  template <class T, class Read> std::vector<T> list(const char* key, Read read_one) const {
    std::vector<T> out;
    const json* v = find(key);
    if (!v)
      return out;
    if (!v->is_array())
      throw InputError(at(key) + " is not an array");
    for (std::size_t i = 0; i < v->size(); ++i)
      out.push_back(read_one((*v)[i], fmt::format("{}[{}]", at(key), i)));
    return out;
  }

private:
  const json& j_;
  std::string where_;
};

MetricClass class_from(const Fields& f, const char* key) {
  const std::string name = f.required(key);
  if (const auto c = find_class(name))
    return *c;
  throw InputError(fmt::format("{} is '{}', not a metric class", f.at(key), name));
}

ClassCase class_case_from(const json& j, const std::string& where) {
  const Fields f(j, where);
  ClassCase c;
  c.key = f.required("key");
  c.then = class_from(f, "class");
  f.read("why", c.why);
  if (const json* v = f.find("equals"))
    c.equals = *v;
  if (f.find("below")) {
    double below = 0;
    f.read("below", below);
    c.below = below;
  }
  return c;
}

Metric metric_from(const json& j, const std::string& where) {
  const Fields f(j, where);
  Metric m;
  m.name = f.required("name");
  m.unit = f.required("unit");
  try {
    m.direction =
        direction_from_string(f.text("direction").empty() ? "higher" : f.text("direction"));
  } catch (const std::exception&) {
    throw InputError(f.at("direction") + " is neither 'higher' nor 'lower'");
  }
  m.metric_class = class_from(f, "class");
  const std::string limit = f.text("limit");
  if (!limit.empty()) {
    const auto kind = find_limit(limit);
    if (!kind)
      throw InputError(fmt::format("{} is '{}', not a limit kind", f.at("limit"), limit));
    m.limit = *kind;
  }
  f.read("title", m.title);
  m.cases = f.list<ClassCase>("class_cases", class_case_from);
  f.read("zero_is_a_value", m.zero_is_a_value);
  return m;
}

Param param_from(const json& j, const std::string& where) {
  const Fields f(j, where);
  Param p;
  p.key = f.required("key");
  f.read("title", p.title);
  f.read("unit", p.unit);
  if (const json* labels = f.find("labels")) {
    if (!labels->is_object())
      throw InputError(f.at("labels") + " is not an object");
    for (const auto& [value, words] : labels->items()) {
      if (!words.is_string())
        throw InputError(f.at("labels") + "." + value + " is not a string");
      p.labels.emplace_back(value, words.get<std::string>());
    }
  }
  return p;
}

Extra extra_from(const json& j, const std::string& where) {
  const Fields f(j, where);
  return {f.required("key"), f.text("meaning")};
}

RuleSpec rule_from(const json& j, const std::string& where) {
  const Fields f(j, where);
  RuleSpec r;
  const std::string from = f.text("from");
  if (from == "metric")
    r.from = RuleSpec::From::metric;
  else if (from == "extra")
    r.from = RuleSpec::From::extra;
  else if (from == "published")
    r.from = RuleSpec::From::published;
  else if (from.empty() || from == "fixed")
    r.from = RuleSpec::From::fixed;
  else
    throw InputError(fmt::format("{} is '{}', not a rule's source", f.at("from"), from));
  f.read("vertical", r.vertical);
  f.read("metric", r.metric);
  f.read("extra", r.extra);
  r.only = f.pair("only");
  f.read("value", r.value);
  f.read("scale", r.scale);
  f.read("label", r.label);
  f.read("unit", r.unit);
  f.read("per_series", r.per_series);
  f.read("per_model", r.per_model);
  f.read("kind", r.kind);
  return r;
}

NoteSpec note_from(const json& j, const std::string& where) {
  const Fields f(j, where);
  NoteSpec n;
  n.metric = f.required("metric");
  n.only = f.pair("only");
  n.except = f.pair("except");
  f.read("x_param", n.x_param);
  f.read("x_extra", n.x_extra);
  if (const json* v = f.find("x_value"))
    n.x_value = *v;
  f.read("label", n.label);
  f.read("label_param", n.label_param);
  f.read("tip", n.tip);
  return n;
}

FigureRef figure_from(const json& j, const std::string& where) {
  const Fields f(j, where);
  FigureRef r{f.required("experiment"), f.required("metric"), json::object()};
  if (const json* params = f.find("params")) {
    if (!params->is_object())
      throw InputError(f.at("params") + " is not an object");
    r.params = *params;
  }
  return r;
}

Chart chart_from(const json& j, const std::string& where) {
  const Fields f(j, where);
  Chart c;
  const std::string shape = f.text("shape");
  if (shape == "heatmap")
    c.shape = ChartShape::heatmap;
  else if (shape == "bars")
    c.shape = ChartShape::bars;
  else if (shape.empty() || shape == "sweep")
    c.shape = ChartShape::sweep;
  else
    throw InputError(
        fmt::format("{} is '{}', not a chart shape the report draws", f.at("shape"), shape));
  c.metric = f.required("metric");
  f.read("caption", c.caption);
  f.read("sentences", c.sentences);
  f.read("x", c.x);
  f.read("log_x", c.log_x);
  f.read("log_base", c.log_base);
  f.read("log_y", c.log_y);
  f.read("y_title", c.y_title);
  f.read("color", c.color);
  f.read("mark", c.mark);
  c.only = f.pair("only");
  f.read("limits", c.limits);
  f.read("model_extra", c.model_extra);
  f.read("model_metric", c.model_metric);
  f.read("model_label", c.model_label);
  f.read("model_bound", c.model_bound);
  f.read("ideal_extra", c.ideal_extra);
  f.read("ideal_label", c.ideal_label);
  if (const json* ref = f.find("littles_law_latency"))
    c.littles_law_latency = figure_from(*ref, f.at("littles_law_latency"));
  f.read("published_metrics", c.published_metrics);
  c.rules = f.list<RuleSpec>("rules", rule_from);
  c.notes = f.list<NoteSpec>("notes", note_from);
  f.read("marker_extra", c.marker_extra);
  f.read("marker_above", c.marker_above);
  f.read("marker_title", c.marker_title);
  f.read("marker_above_label", c.marker_above_label);
  f.read("marker_else_label", c.marker_else_label);
  c.caption_figures = f.list<std::pair<std::string, std::string>>(
      "caption_figures", [](const json& item, const std::string& at) {
        const Fields g(item, at);
        return std::make_pair(g.required("metric"), g.text("words"));
      });
  f.read("figures_lead", c.figures_lead);
  f.read("y", c.y);
  f.read("y_extra", c.y_extra);
  f.read("y_extra_unit", c.y_extra_unit);
  f.read("panels", c.panels);
  return c;
}

} // namespace

json to_json(const Declaration& d, const PlanInput* plan_input) {
  json params = json::array(), metrics = json::array(), extras = json::array(),
       charts = json::array();
  for (const Param& p : d.params)
    params.push_back(to_json(p));
  for (const Metric& m : d.metrics)
    metrics.push_back(to_json(m));
  for (const Extra& e : d.extras)
    extras.push_back({{"key", e.key}, {"meaning", e.meaning}});
  for (const Chart& c : d.charts)
    charts.push_back(to_json(c));
  json j = {{"name", d.name},
            {"title", d.title},
            {"description", d.description},
            {"citation", d.citation},
            {"version", d.version},
            {"order", d.order},
            {"chapter", chapter_name(d.chapter)},
            {"hidden", d.hidden},
            {"headline", d.headline_metric().name},
            {"params", params},
            {"metrics", metrics},
            {"extras", extras},
            {"charts", charts}};
  if (plan_input && d.plan) {
    json points = json::array();
    for (const PlannedPoint& p : d.plan(*plan_input)) {
      json point = {{"params", p.params}, {"metrics", p.metrics}};
      if (!p.when.empty())
        point["when"] = p.when;
      points.push_back(std::move(point));
    }
    j["points"] = points;
  }
  return j;
}

json catalog_json(const PlanInput* plan_input) {
  json all = json::array();
  for (const Declaration& d : declarations())
    all.push_back(to_json(d, plan_input));
  return all;
}

Declaration declaration_from_json(const json& j, const std::string& where) {
  const Fields f(j, where);
  Declaration d;
  d.name = f.required("name");
  f.read("title", d.title);
  f.read("description", d.description);
  f.read("citation", d.citation);
  f.read("version", d.version);
  f.read("order", d.order);
  const std::string chapter = f.text("chapter");
  if (!chapter.empty()) {
    const auto c = find_chapter(chapter);
    if (!c)
      throw InputError(fmt::format("{} is '{}', not a chapter", f.at("chapter"), chapter));
    d.chapter = *c;
  }
  f.read("hidden", d.hidden);
  f.read("headline", d.headline);
  d.params = f.list<Param>("params", param_from);
  d.metrics = f.list<Metric>("metrics", metric_from);
  if (d.metrics.empty())
    throw InputError(f.where() + " declares no metric (is it a catalog of an apod older than the "
                                 "declarations?)");
  d.extras = f.list<Extra>("extras", extra_from);
  d.charts = f.list<Chart>("charts", chart_from);
  return d;
}

std::vector<Declaration> catalog_from_json(const json& document) {
  std::vector<Declaration> out;
  // `apod list --json` wraps the declarations with what they were planned for.
  const json& j =
      document.is_object() && document.contains("experiments") && document["experiments"].is_array()
          ? document["experiments"]
          : document;
  if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      out.push_back(declaration_from_json(j[i], fmt::format("catalog[{}]", i)));
  } else if (j.is_object()) {
    for (const auto& [name, entry] : j.items()) {
      json named = entry;
      if (named.is_object() && !named.contains("name"))
        named["name"] = name;
      out.push_back(declaration_from_json(named, "catalog." + name));
    }
  } else {
    throw InputError("a catalog is an array of declarations or an object keyed by name");
  }
  return out;
}

} // namespace apod
