// The OpenMetrics text grammar (ABNF in the specification) asks: a family's metadata before its
// samples and every sample of a family together (so the figures are grouped before a line is
// written), names of [a-zA-Z_:][a-zA-Z0-9_:]*, label names of [a-zA-Z_][a-zA-Z0-9_]* and not
// starting "__", label values and help in UTF-8 with \\, \" and \n escaped, a family's unit as
// the suffix of its name, no two samples of a family with one label set, and "# EOF" last.
#include "core/results_openmetrics.hpp"

#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <vector>

namespace apod {

namespace {

bool name_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x80 && (std::isalnum(u) || c == '_');
}

/// Each byte outside [a-zA-Z0-9_] as "_".
std::string name_part(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (!name_char(c))
      c = '_';
  return out;
}

/// Stored text as an escaped-string of the grammar (a label value, help text).
std::string escaped(std::string_view stored) {
  std::string out;
  for (const char c : terminal_text(stored)) { // one line, UTF-8, no control character
    if (c == '\\' || c == '"')
      out += '\\';
    out += c;
  }
  return out;
}

/// A parameter's label name: sanitised, never one of `taken` (the fixed labels, the earlier
/// parameters), never a reserved "__" name or one starting with a digit.
std::string label_name(const std::string& param, std::set<std::string>& taken) {
  std::string name = name_part(param);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || name.starts_with("__"))
    name = "param_" + name;
  if (taken.contains(name))
    name = "param_" + name;
  const std::string base = name;
  for (int n = 2; taken.contains(name); ++n)
    name = fmt::format("{}_{}", base, n);
  taken.insert(name);
  return name;
}

std::string label(const std::string& name, std::string_view value) {
  return fmt::format("{}=\"{}\"", name, escaped(value));
}

struct Family {
  std::string unit;
  std::vector<std::string> help; ///< "effective_bandwidth in GB/s", one per stored spelling
  std::vector<std::string> samples;
  std::set<std::string> label_sets;
};

} // namespace

std::string openmetrics_unit(const std::string& unit) {
  if (unit.empty())
    return "";
  if (unit == "1" || unit == "x")
    return "ratio";
  std::string out;
  for (const char c : unit) {
    const auto u = static_cast<unsigned char>(c);
    const std::string piece = c == '/'                      ? "_per_"
                              : c == '%'                    ? "_percent_"
                              : u < 0x80 && std::isalnum(u) ? std::string(1, std::tolower(u))
                                                            : "_";
    for (const char p : piece)
      if (p != '_' || (!out.empty() && out.back() != '_'))
        out += p;
  }
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  return out;
}

std::string openmetrics_family(const std::string& metric, const std::string& unit) {
  const std::string base = "apod_" + name_part(metric);
  const std::string suffix = openmetrics_unit(unit);
  if (suffix.empty() || base.ends_with("_" + suffix))
    return base;
  return base + "_" + suffix;
}

std::string openmetrics_text(const RunRecord& run) {
  std::vector<std::string> order; // families in the order their first point comes
  std::map<std::string, Family> families;
  const std::string run_labels = fmt::format(
      "{},{},{},{}", label("device", run.device.name), label("gpu_uuid", run.device.uuid),
      label("host", run.environment.host), label("run", run.id));
  for (const Measurement* m : run.measurements()) {
    if (!m->ok())
      continue;
    const std::string name = openmetrics_family(m->metric, m->unit);
    auto [it, added] = families.try_emplace(name);
    Family& f = it->second;
    if (added) {
      order.push_back(name);
      f.unit = openmetrics_unit(m->unit);
    }
    const std::string help =
        m->unit.empty() || m->unit == "1" ? m->metric : fmt::format("{} in {}", m->metric, m->unit);
    if (std::find(f.help.begin(), f.help.end(), help) == f.help.end())
      f.help.push_back(help);
    std::set<std::string> taken = {"device", "gpu_uuid", "host", "run", "experiment", "point_key"};
    std::string labels = run_labels;
    labels.append(",").append(label("experiment", m->experiment));
    if (m->params.is_object())
      for (const auto& [key, value] : m->params.items())
        labels.append(",").append(
            label(label_name(key, taken),
                  value.is_string() ? value.get<std::string>()
                                    : value.dump(-1, ' ', false, json::error_handler_t::replace)));
    if (!f.label_sets.insert(labels).second)
      labels.append(",").append(label("point_key", m->comparability_key));
    f.samples.push_back(
        fmt::format("{}{{{}}} {}\n", name, labels, summarize(m->used_samples()).median));
  }
  std::string out;
  for (const std::string& name : order) {
    const Family& f = families.at(name);
    std::string help;
    for (const std::string& h : f.help)
      help += (help.empty() ? "" : "; ") + h;
    out += fmt::format("# TYPE {} gauge\n", name);
    if (!f.unit.empty())
      out += fmt::format("# UNIT {} {}\n", name, f.unit);
    out += fmt::format("# HELP {} apod: {} (a run's median of the point's used samples)\n", name,
                       escaped(help));
    for (const std::string& sample : f.samples)
      out += sample;
  }
  return out + "# EOF\n";
}

} // namespace apod
