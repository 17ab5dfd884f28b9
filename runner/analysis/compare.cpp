#include "analysis/compare.hpp"

#include "core/text.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace apod {

double CompareConfig::threshold_for(const std::string& experiment) const {
  const auto it = experiment_threshold.find(experiment);
  return it == experiment_threshold.end() ? threshold : it->second;
}

CompareConfig parse_compare_config(const json& doc) {
  if (!doc.is_object()) throw InputError("compare config: expected a JSON object");
  CompareConfig c;
  const auto fraction = [](const json& v, const std::string& where, double lo, double hi) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
      throw InputError(fmt::format("compare config: {} must be a number in [{}, {}]", where, lo, hi));
    return v.get<double>();
  };
  for (const auto& [key, value] : doc.items()) {
    if (key == "threshold") c.threshold = fraction(value, "threshold", 0, 10);
    else if (key == "alpha") c.alpha = fraction(value, "alpha", 1e-12, 0.5);
    else if (key == "experiments") {
      if (!value.is_object()) throw InputError("compare config: experiments must be an object");
      for (const auto& [name, e] : value.items()) {
        if (!e.is_object() || !e.contains("threshold"))
          throw InputError("compare config: experiments." + name + " needs a threshold");
        c.experiment_threshold[name] = fraction(e["threshold"], "experiments." + name + ".threshold", 0, 10);
      }
    } else if (key == "ungated_metrics") {
      if (!value.is_array()) throw InputError("compare config: ungated_metrics must be an array of metric names");
      c.ungated_metrics.clear();
      for (const auto& m : value) {
        if (!m.is_string()) throw InputError("compare config: ungated_metrics must be an array of metric names");
        c.ungated_metrics.insert(m.get<std::string>());
      }
    } else {
      throw InputError("compare config: unknown key '" + key + "' (known: threshold, alpha, experiments, ungated_metrics)");
    }
  }
  return c;
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const double n1 = a.size(), n2 = b.size();
  if (a.empty() || b.empty()) return 1.0;
  std::vector<std::pair<double, int>> all;
  for (double v : a) all.push_back({v, 0});
  for (double v : b) all.push_back({v, 1});
  std::sort(all.begin(), all.end());
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double avg_rank = (i + 1 + j) / 2.0;  // ranks i+1..j share their mean
    const double t = j - i;
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += avg_rank;
    i = j;
  }
  const double u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double n = n1 + n2;
  const double variance = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return 1.0;
  const double z = (std::abs(u - n1 * n2 / 2) - 0.5) / std::sqrt(variance);  // continuity correction
  return std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
}

namespace {

std::string identity(const Measurement& m) {
  return m.experiment + "|" + nlohmann::json::parse(m.params.dump()).dump() + "|" + m.metric;
}

PairResult compare_pair(const Measurement& base, const Measurement& cand, const CompareConfig& config) {
  PairResult r;
  r.key = cand.comparability_key;
  r.experiment = cand.experiment;
  r.metric = cand.metric;
  r.unit = cand.unit;
  r.direction = to_string(cand.direction);
  r.params = cand.params;
  const auto a = base.used_samples(), b = cand.used_samples();
  const Summary sa = summarize(a), sb = summarize(b);
  r.baseline_median = sa.median;
  r.candidate_median = sb.median;
  r.ratio = sa.median != 0 ? sb.median / sa.median : 0;
  const bool higher_better = cand.direction == Direction::higher;
  r.change = higher_better ? r.ratio - 1 : (sb.median != 0 ? sa.median / sb.median - 1 : 0);
  bool significant;
  if (std::min(a.size(), b.size()) >= size_t(config.min_samples_for_test)) {
    r.test = "mann_whitney";
    r.p_value = mann_whitney_p(a, b);
    significant = r.p_value < config.alpha;
  } else {
    r.test = "ci_overlap";
    significant = sb.ci_high < sa.ci_low || sb.ci_low > sa.ci_high;
  }
  const double threshold = config.threshold_for(r.experiment);
  const double precision = std::max(sa.ci_half_width_rel(), sb.ci_half_width_rel());
  r.gated = !config.ungated_metrics.count(r.metric);
  if (significant && std::abs(r.change) > threshold) {
    r.verdict = r.change > 0 ? "faster" : "slower";
    r.regression = r.change < 0 && r.gated;
  } else if (significant || precision <= threshold) {
    r.verdict = "same";  // no difference, or one too small to matter
  } else {
    r.verdict = "inconclusive";  // too noisy to tell a change of `threshold` from none
  }
  return r;
}

}  // namespace

bool Comparison::regression() const {
  return std::any_of(pairs.begin(), pairs.end(), [](const PairResult& p) { return p.regression; });
}

Comparison compare_runs(const RunRecord& base_run, const RunRecord& cand_run, const CompareConfig& config) {
  Comparison c;
  c.baseline_run = base_run.id;
  c.candidate_run = cand_run.id;
  std::map<std::string, const Measurement*> base_by_key, base_by_identity;
  for (const Measurement* m : base_run.measurements()) {
    if (!m->comparability_key.empty()) base_by_key[m->comparability_key] = m;
    base_by_identity[identity(*m)] = m;
  }
  std::set<std::string> matched;
  for (const Measurement* m : cand_run.measurements()) {
    const std::string id = identity(*m);
    const auto by_key = m->comparability_key.empty() ? base_by_key.end() : base_by_key.find(m->comparability_key);
    const bool same_point = base_by_identity.count(id) > 0;
    if (same_point) matched.insert(id);
    if (by_key == base_by_key.end()) {
      c.unpaired.push_back({m->experiment, m->metric, same_point ? "not_comparable" : "new", m->params});
      continue;
    }
    const Measurement& base = *by_key->second;
    if (!point_status(base).ok() || !point_status(*m).ok()) {
      c.unpaired.push_back({m->experiment, m->metric, "failed", m->params});
      continue;
    }
    c.pairs.push_back(compare_pair(base, *m, config));
  }
  for (const auto& [id, m] : base_by_identity)
    if (!matched.count(id)) c.unpaired.push_back({m->experiment, m->metric, "removed", m->params});
  return c;
}

std::string format_text(const Comparison& c) {
  std::string out = fmt::format("baseline {}  candidate {}\n", terminal_text(c.baseline_run),
                                terminal_text(c.candidate_run));
  out += fmt::format("{:<16} {:<34} {:<20} {:>12} {:>12} {:>8}  {:<12} {}\n", "experiment", "params", "metric",
                     "baseline", "candidate", "change", "verdict", "test");
  // Stored names reach a terminal: terminal_text (core/text.hpp) lets no escape sequence through.
  for (const auto& p : c.pairs)
    out += fmt::format("{:<16} {:<34} {:<20} {:>12.5g} {:>12.5g} {:>+7.2f}%  {:<12} {}{}\n", terminal_text(p.experiment),
                       terminal_text(p.params.dump()), terminal_text(p.metric), p.baseline_median, p.candidate_median, 100 * p.change,
                       p.regression ? "REGRESSION" : p.verdict, p.test,
                       p.test == "mann_whitney" ? fmt::format(" p={:.2g}", p.p_value) : "");
  for (const auto& u : c.unpaired)
    out += fmt::format("{:<16} {:<34} {:<20} unpaired: {}\n", terminal_text(u.experiment),
                       terminal_text(u.params.dump()), terminal_text(u.metric), u.reason);
  int counts[4] = {0, 0, 0, 0};
  for (const auto& p : c.pairs)
    counts[p.verdict == "faster" ? 0 : p.verdict == "slower" ? 1 : p.verdict == "same" ? 2 : 3]++;
  out += fmt::format("{} pairs: {} faster, {} slower, {} same, {} inconclusive; {} unpaired; {}\n", c.pairs.size(),
                     counts[0], counts[1], counts[2], counts[3], c.unpaired.size(),
                     c.regression() ? "REGRESSION" : "no regression");
  return out;
}

std::string format_markdown(const Comparison& c) {
  std::string out = fmt::format("### apod compare: {}\n\nbaseline {}, candidate {}\n\n",
                                c.regression() ? "regression found" : "no regression",
                                markdown_code(c.baseline_run), markdown_code(c.candidate_run));
  out += "| experiment | params | metric | baseline | candidate | change | verdict |\n|---|---|---|---:|---:|---:|---|\n";
  // Markdown tables: regressions and changes first, then the rest, so the summary reads top-down.
  std::vector<const PairResult*> order;
  for (const auto& p : c.pairs) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    const auto rank = [](const PairResult* p) { return p->regression ? 0 : p->verdict == "same" ? 3 : p->verdict == "inconclusive" ? 2 : 1; };
    return rank(a) < rank(b);
  });
  // Stored names become literal text (core/text.hpp): no heading, link or HTML comment of theirs
  // can reach the job summary.
  const auto escape = [](const std::string& s) { return markdown_text(s); };
  for (const auto* p : order)
    out += fmt::format("| {} | {} | {} | {:.5g} {} | {:.5g} {} | {:+.2f}% | {} |\n", escape(p->experiment),
                       markdown_code(p->params.dump()), escape(p->metric), p->baseline_median, escape(p->unit),
                       p->candidate_median, escape(p->unit), 100 * p->change,
                       p->regression ? "**regression**" : p->verdict);
  if (!c.unpaired.empty()) {
    out += "\n| unpaired | params | metric | reason |\n|---|---|---|---|\n";
    for (const auto& u : c.unpaired)
      out += fmt::format("| {} | {} | {} | {} |\n", escape(u.experiment), markdown_code(u.params.dump()),
                         escape(u.metric), u.reason);
  }
  return out;
}

json to_json(const Comparison& c) {
  json j = {{"baseline_run", c.baseline_run}, {"candidate_run", c.candidate_run},
            {"regression", c.regression()}, {"pairs", json::array()}, {"unpaired", json::array()}};
  for (const auto& p : c.pairs)
    j["pairs"].push_back({{"comparability_key", p.key}, {"experiment", p.experiment}, {"params", p.params},
                          {"metric", p.metric}, {"unit", p.unit}, {"direction", p.direction},
                          {"baseline_median", p.baseline_median}, {"candidate_median", p.candidate_median},
                          {"ratio", p.ratio}, {"change", p.change}, {"test", p.test}, {"p_value", p.p_value},
                          {"verdict", p.verdict}, {"regression", p.regression}, {"gated", p.gated}});
  for (const auto& u : c.unpaired)
    j["unpaired"].push_back({{"experiment", u.experiment}, {"params", u.params}, {"metric", u.metric}, {"reason", u.reason}});
  return j;
}

}  // namespace apod
