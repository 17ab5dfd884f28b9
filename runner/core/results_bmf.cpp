#include "core/results_bmf.hpp"

#include "core/point_key.hpp"
#include "core/text.hpp"

namespace apod {

namespace {

/// Bencher strips this suffix from a benchmark name and then raises no alert for it (the BMF
/// page): a stored parameter that happens to end so must not silence a point.
constexpr std::string_view bencher_ignore = "-bencher-ignore";

std::string cut(const std::string& text, std::size_t max_bytes) {
  return std::string(text_prefix(text, max_bytes));
}

std::string named(const std::string& experiment, const std::string& params) {
  std::string name =
      cut(params.empty() ? experiment : experiment + " " + params, bmf_max_benchmark_name - 1);
  if (name.ends_with(bencher_ignore))
    name += "_";
  return name;
}

} // namespace

std::string bmf_benchmark_name(const std::string& experiment, const json& params) {
  if (!params.is_object())
    return named(experiment, params.dump(-1, ' ', false, json::error_handler_t::replace));
  const json sorted = json::parse(canonical_params(params)); // items() must not outlive it
  std::string words;
  for (const auto& [key, value] : sorted.items())
    words.append(words.empty() ? "" : " ")
        .append(key)
        .append("=")
        .append(value.is_string() ? value.get<std::string>()
                                  : value.dump(-1, ' ', false, json::error_handler_t::replace));
  return named(experiment, words);
}

std::string bmf_measure_name(const std::string& metric, const std::string& unit) {
  const std::string suffix = unit.empty() || unit == "1" ? "" : " (" + unit + ")";
  if (metric.size() + suffix.size() <= bmf_max_measure_name)
    return metric + suffix;
  if (suffix.size() + 8 > bmf_max_measure_name) // an absurd unit: the metric alone
    return cut(metric, bmf_max_measure_name);
  return cut(metric, bmf_max_measure_name - suffix.size()) + suffix;
}

json bmf_document(const RunRecord& run) {
  json doc = json::object();
  for (const Measurement* m : run.measurements()) {
    if (!m->ok())
      continue;
    const Summary s = summarize(m->used_samples());
    std::string benchmark = bmf_benchmark_name(m->experiment, m->params);
    const std::string measure = bmf_measure_name(m->metric, m->unit);
    if (doc.contains(benchmark) && doc[benchmark].contains(measure))
      benchmark = named(m->experiment, canonical_params(m->params));
    doc[benchmark][measure] = {
        {"value", s.median}, {"lower_value", s.ci_low}, {"upper_value", s.ci_high}};
  }
  return doc;
}

} // namespace apod
