// The three ways a verdict is written: text for a terminal, markdown for a CI job summary, json
// for machines. Each opens and closes with the count line, lists regressions first, and spells a
// change as a factor with a word ("1.34x slower") whose sign means the same for every metric.
#include "analysis/compare.hpp"

#include "core/errors.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace apod {

namespace {

std::string params_text(const json& params) {
  std::string out;
  for (const auto& [k, v] : params.items())
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", k,
                       v.is_string() ? v.get<std::string>()
                                     : v.dump(-1, ' ', false, json::error_handler_t::replace));
  return out.empty() ? "-" : out;
}

std::string value_text(double v, const std::string& unit) {
  return fmt::format("{:.4g}{}{}", v, unit == "1" || unit.empty() ? "" : " ",
                     unit == "1" ? "" : unit);
}

/// GitHub's limit for one step's job summary is 1 MiB; a little is left for what a job adds.
constexpr size_t max_markdown_bytes = 1000 * 1000;

/// A terminal shows this many left-out points; the other formats show them all.
constexpr size_t max_left_out_lines = 20;

/// The first 8 characters of a run id, cut whole (text_prefix): ids are hex, but a database
/// written by another program may hold anything, so every caller escapes the result.
std::string short_id(const std::string& id) {
  return std::string(text_prefix(id, 8));
}

/// "2026-11-22 07:34" from an ISO 8601 time; any other text whole, for the caller to escape, so
/// that no cut splits a character or keeps half of an escape sequence.
std::string when(const std::string& iso) {
  const auto digits = [&](std::size_t from, std::size_t n) {
    return std::all_of(iso.begin() + from, iso.begin() + from + n,
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  const bool iso_shape = iso.size() >= 16 && digits(0, 4) && iso[4] == '-' && digits(5, 2) &&
                         iso[7] == '-' && digits(8, 2) && iso[10] == 'T' && digits(11, 2) &&
                         iso[13] == ':' && digits(14, 2);
  return iso_shape ? iso.substr(0, 10) + " " + iso.substr(11, 5) : iso;
}

/// The first 12 characters of a GPU UUID, cut whole.
std::string short_uuid(const std::string& uuid) {
  return std::string(text_prefix(uuid, 12));
}

/// How a format writes stored text (an experiment's name) inside its own sentences: terminal_text,
/// markdown_text (core/text.hpp), or as it is for json, whose encoder escapes it.
using Escape = std::string (*)(std::string_view);

std::string as_is(std::string_view text) {
  return std::string(text);
}

/// "1 of 13 experiments slower as a whole (host_transfer host/PCIe transfers 1.050x slower); ":
/// experiments counted once each, whatever number of classes they are taken whole in.
std::string wholes_text(const Verdict& v, Escape escape) {
  if (v.wholes.empty())
    return "";
  std::string names;
  std::set<std::string> experiments, slower;
  for (const PointVerdict& w : v.wholes) {
    experiments.insert(w.experiment);
    if (!w.regression)
      continue;
    slower.insert(w.experiment);
    names += fmt::format("{}{} {} {}", names.empty() ? "" : ", ", escape(w.experiment),
                         class_phrase(w.metric_class), change_text(w));
  }
  return fmt::format("{} of {} experiments slower as a whole{}; ", slower.size(),
                     experiments.size(), names.empty() ? "" : " (" + names + ")");
}

std::string count_line(const Verdict& v, Escape escape) {
  if (!v.nothing_compared.empty())
    return fmt::format("NOTHING COMPARED: 0 points of {} in common; {} left out",
                       escape(short_id(v.candidate.id)), v.left_out.size());
  const auto counted = [&](Decision d, const char* what) {
    const int n = v.count(d);
    return n ? fmt::format("{} {}, ", n, what) : std::string();
  };
  return fmt::format(
      "{}: {} regression{}, {}{}{} faster, {}{} same of {} points; {}{} left out{}",
      outcome_word(v.outcome()), v.regressions(), v.regressions() == 1 ? "" : "s",
      counted(Decision::unconfirmed, "unconfirmed (re-measure: apod confirm)"),
      counted(Decision::inconclusive, "inconclusive"), v.count(Decision::faster),
      counted(Decision::slower, "slower (derived, not gated)"), v.count(Decision::same),
      v.points.size(), wholes_text(v, escape), v.left_out.size(),
      v.history_runs == 0 ? "; no history of this GPU: only gross changes can gate" : "");
}

std::string batch_line(const std::vector<Verdict>& verdicts, Escape escape) {
  // The count line and the run id are the only stored text here; both go through `escape`.
  if (verdicts.size() == 1)
    return fmt::format("apod compare: {}", count_line(verdicts.front(), escape));
  std::map<Outcome, int> runs;
  int points = 0;
  for (const Verdict& v : verdicts) {
    runs[v.outcome()]++;
    points += v.regressions() + v.whole_regressions();
  }
  return fmt::format("apod compare: {}: {} runs against {}: {} with regressions ({} points or "
                     "experiments), {} inconclusive, {} with nothing compared, {} without "
                     "regression",
                     outcome_word(outcome(verdicts)), verdicts.size(),
                     escape(short_id(verdicts.front().baseline.id)), runs[Outcome::regression],
                     points, runs[Outcome::inconclusive], runs[Outcome::nothing_compared],
                     runs[Outcome::no_regression]);
}

std::string run_line(const RunFacts& r, bool show_gpu) {
  // Stored text reaches a terminal only through terminal_text (core/text.hpp).
  return fmt::format("{}  {}  {} {}{}  \"{}\"", terminal_text(short_id(r.id)),
                     terminal_text(when(r.started_at)), terminal_text(r.device),
                     show_gpu ? terminal_text(fmt::format("{}@{}", short_uuid(r.uuid), r.host))
                              : "(same GPU)",
                     r.driver_branch.empty() || !show_gpu
                         ? ""
                         : fmt::format("  driver {}", terminal_text(r.driver_branch)),
                     terminal_text(r.label));
}

std::string noise_line(const Verdict& v) {
  const int own = v.points_with_noise(NoiseSource::history);
  const int near = v.points_with_noise(NoiseSource::neighbours);
  const int none = v.points_with_noise(NoiseSource::class_default);
  int runs = 0;
  for (const auto& p : v.points)
    runs = std::max(runs, p.history_runs);
  std::string out = own + near == 0
                        ? "no history of this GPU in the database: conservative class defaults "
                          "(docs/ci.md) for every point"
                        : fmt::format("run-to-run, from up to {} other runs of this GPU for {} "
                                      "points, their neighbours' for {}, class defaults for {}",
                                      runs, own, near, none);
  if (!v.same_machine)
    out += "; another GPU of the model: device-to-device spread added";
  return out;
}

std::string thresholds_text(const Verdict& v) {
  if (v.threshold)
    return fmt::format("{:g}%", 100 * *v.threshold);
  std::string out;
  for (const ClassPower& c : v.power)
    out += fmt::format("{}{} {:g}%", out.empty() ? "" : ", ", class_phrase(c.metric_class),
                       100 * c.threshold);
  return out.empty() ? "-" : out;
}

std::string test_line(const Verdict& v) {
  return fmt::format("Holm over {} gated points{} at a family-wise error rate of {:g}%; a change "
                     "must also exceed its threshold ({})",
                     v.gated_points,
                     v.wholes.empty()
                         ? ""
                         : fmt::format(" and {} experiments taken whole (weighted: half the "
                                       "weight to the experiments)",
                                       v.wholes.size()),
                     100 * v.fwer, thresholds_text(v));
}

/// A detectable change as a percentage, "> 100%" beyond (a t reference with ~2 df can put it
/// at thousands of percent: the number says nothing more than that).
std::string percent_text(double rel) {
  return rel > 1 ? std::string("> 100%") : fmt::format("{:.2g}%", 100 * rel);
}

std::string word_of(const PointVerdict& p) {
  return wording(decision_of(p)).word;
}

/// A markdown table's verdict cell: a regression in bold, the one word a reader must not miss.
std::string verdict_cell(const PointVerdict& p) {
  return p.regression ? "**" + word_of(p) + "**" : word_of(p);
}

/// The experiments taken whole a format shows: all, or the changed ones under --only-changed.
std::vector<const PointVerdict*> shown_wholes(const Verdict& v, const FormatOptions& o) {
  std::vector<const PointVerdict*> out;
  for (const PointVerdict& w : v.wholes)
    if (!o.only_changed || w.change != Change::same)
      out.push_back(&w);
  return out;
}

/// Each point shown with its decision, and whether it opens the group of that decision (the
/// points come in the order of the decisions, judge.cpp).
template <class Row> void for_each_group(const Verdict& v, const FormatOptions& o, Row&& row) {
  std::optional<Decision> group;
  for (const PointVerdict& p : v.points) {
    if (o.only_changed && p.change == Change::same)
      continue;
    const Decision d = decision_of(p);
    row(p, d, d != group);
    group = d;
  }
}

/// Stored text as literal markdown (core/text.hpp): no label, date, id, metric or device name can
/// open a heading, link, image, table cell or HTML comment in a job summary. apod's own sentences
/// (counts, the noise and test lines) go in as written.
std::string md(const std::string& s) {
  return markdown_text(s);
}

} // namespace

std::string change_text(const PointVerdict& p) {
  const double f = p.factor();
  if (f < 1.0005)
    return "same";
  const std::string digits = f < 1.1 ? fmt::format("{:.3f}", f) : fmt::format("{:.2f}", f);
  return fmt::format("{}x {}", digits, p.slowdown > 0 ? "slower" : "faster");
}

std::string summary_line(const Verdict& v) {
  return count_line(v, as_is);
}

namespace {
std::string power_line_with(const Verdict& v, Escape escape);
}

std::string power_line(const Verdict& v) {
  return power_line_with(v, as_is);
}

namespace {
std::string power_line_with(const Verdict& v, Escape escape) {
  if (v.power.empty())
    return "";
  std::string out = v.history_runs == 0
                        ? std::string("with no history of this GPU")
                        : fmt::format("with {} run{} of history on this GPU", v.history_runs,
                                      v.history_runs == 1 ? "" : "s");
  out += ", the smallest slowdown flagged: ";
  bool first = true;
  for (const ClassPower& c : v.power) {
    out += fmt::format(
        "{}{} {}{}", first ? "" : ", ", class_phrase(c.metric_class), percent_text(c.headline()),
        c.wholes ? fmt::format(" (median experiment; {} {})", escape(c.least_sensitive),
                               percent_text(c.whole_largest))
                 : " (median point)");
    first = false;
  }
  return out;
}
} // namespace

/// `--power`: what every class and experiment taken whole could see, and what the inconclusive
/// ones need.
static std::string power_table(const Verdict& v) {
  std::string out = "what this compare could see (the smallest slowdown it would flag at the "
                    "family-wise error rate, once confirmed; alone: without re-measuring):\n";
  out += fmt::format("  {:<28} {:>9} {:>7} {:>13} {:>12} {:>12} {:>12}\n", "class", "threshold",
                     "points", "inconclusive", "points (med)", "whole (med)", "whole (max)");
  for (const ClassPower& c : v.power)
    out += fmt::format("  {:<28} {:>9} {:>7} {:>13} {:>12} {:>12} {:>12}\n",
                       class_phrase(c.metric_class), fmt::format("{:g}%", 100 * c.threshold),
                       c.points, c.inconclusive, percent_text(c.point_median),
                       c.wholes ? percent_text(c.whole_median) : "-",
                       c.wholes ? percent_text(c.whole_largest) : "-");
  out += fmt::format("  {:<16} {:<28} {:>9} {:>12} {:>12}  {}\n", "experiment", "class",
                     "threshold", "detectable", "alone", "needs");
  for (const PointVerdict& w : v.wholes)
    out += fmt::format("  {:<16} {:<28} {:>9} {:>12} {:>12}  {}\n", terminal_text(w.experiment),
                       class_phrase(w.metric_class), fmt::format("{:g}%", 100 * w.threshold),
                       percent_text(w.detectable), percent_text(w.detectable_alone),
                       w.inconclusive ? w.needs : "-");
  return out;
}

std::string format_text(const std::vector<Verdict>& verdicts, const FormatOptions& o) {
  std::string out = batch_line(verdicts, terminal_text) + "\n";
  for (const Verdict& v : verdicts) {
    if (verdicts.size() > 1)
      out += fmt::format("\n{}", count_line(v, terminal_text));
    out += fmt::format("\nbaseline   {}\ncandidate  {}\n", run_line(v.baseline, true),
                       run_line(v.candidate, !v.same_machine));
    if (!v.nothing_compared.empty())
      out += fmt::format("nothing compared: {}\n", terminal_text(v.nothing_compared));
    if (v.points.empty() && v.left_out.empty())
      continue;
    if (!v.points.empty())
      out += fmt::format("noise      {}\ntest       {}\nsees       {}\n", noise_line(v),
                         test_line(v), power_line_with(v, terminal_text));
    if (o.power && !v.points.empty())
      out += power_table(v);
    for_each_group(v, o, [&](const PointVerdict& p, Decision d, bool first) {
      if (first)
        out += fmt::format("{}: {}\n", wording(d).word, wording(d).meaning);
      out += fmt::format(
          "  {:<16} {:<22} {:<36} {:>12} -> {:<12} {:<14} noise ±{:.2g}%  p {:.2g}{}\n",
          terminal_text(p.experiment), terminal_text(p.metric),
          terminal_text(params_text(p.params)), terminal_text(value_text(p.baseline, p.unit)),
          terminal_text(value_text(p.candidate, p.unit)), change_text(p), 100 * p.noise,
          p.p_adjusted,
          d == Decision::inconclusive
              ? fmt::format("  sees {}: {}", percent_text(p.detectable), p.needs)
              : "");
    });
    if (o.only_changed && v.count(Change::same))
      out += fmt::format("same: {} points, inconclusive: {} (hidden by --only-changed)\n",
                         v.count(Decision::same), v.count(Decision::inconclusive));
    if (const auto wholes = shown_wholes(v, o); !wholes.empty()) {
      out += "experiments taken whole (the median change of their gated points of one class):\n";
      for (const PointVerdict* w : wholes)
        out += fmt::format(
            "  {:<16} {:<28} {:<20} {:<14} {:<12} noise ±{:.2g}%  p {:.2g}  sees {}{}\n",
            terminal_text(w->experiment), class_phrase(w->metric_class), terminal_text(w->metric),
            change_text(*w), word_of(*w), 100 * w->noise, w->p_adjusted,
            percent_text(w->detectable), w->inconclusive ? ": " + w->needs : "");
    }
    if (!v.left_out.empty())
      out += "left out:\n";
    for (size_t i = 0; i < std::min(v.left_out.size(), max_left_out_lines); ++i) {
      const LeftOut& l = v.left_out[i];
      out += fmt::format("  {:<16} {:<22} {:<36} {}{}\n", terminal_text(l.experiment),
                         terminal_text(l.metric), terminal_text(params_text(l.params)),
                         reason_name(l.reason),
                         l.detail.empty() ? "" : fmt::format(": {}", terminal_text(l.detail)));
    }
    if (v.left_out.size() > max_left_out_lines)
      out += fmt::format("  ... and {} more (--format json or markdown lists every one)\n",
                         v.left_out.size() - max_left_out_lines);
  }
  return out + fmt::format("\n{}\n", batch_line(verdicts, terminal_text));
}

std::string format_markdown(const std::vector<Verdict>& verdicts, const FormatOptions& o) {
  std::string out = fmt::format("### {}\n", batch_line(verdicts, markdown_text));
  if (o.compact)
    out += "\n(The rows of the same and inconclusive points are left out to keep this summary "
           "within GitHub's 1 MiB: `apod compare --format json` lists them.)\n";
  for (const Verdict& v : verdicts) {
    out += fmt::format("\n#### {} against {}\n\n**{}**\n\n", md(short_id(v.candidate.id)),
                       md(short_id(v.baseline.id)), count_line(v, markdown_text));
    out += "| | run | started | GPU | label |\n|---|---|---|---|---|\n";
    for (const auto* r : {&v.baseline, &v.candidate})
      out += fmt::format("| {} | {} | {} | {} {}@{} | {} |\n",
                         r == &v.baseline ? "baseline" : "candidate", markdown_code(r->id),
                         md(when(r->started_at)), md(r->device), markdown_code(short_uuid(r->uuid)),
                         md(r->host), md(r->label));
    if (!v.nothing_compared.empty())
      out += fmt::format("\nNothing compared: {}.\n", md(v.nothing_compared));
    if (!v.points.empty())
      out += fmt::format("\nNoise: {}. Test: {}.\n\nSees: {}.\n", noise_line(v), test_line(v),
                         power_line_with(v, markdown_text));
    // Regressions, unconfirmed and faster points open; inconclusive and unchanged ones folded.
    bool open_table = false, folded = false;
    for_each_group(v, o, [&](const PointVerdict& p, Decision d, bool first) {
      if (first) {
        if (d == Decision::same || d == Decision::inconclusive) {
          if (folded)
            out += "\n</details>\n";
          out += fmt::format("\n<details><summary>{} points {}</summary>\n", v.count(d),
                             d == Decision::same ? "the same" : "inconclusive");
          folded = true;
          open_table = false;
        }
        if (!open_table)
          out += "\n| verdict | experiment | metric | params | baseline | candidate | change | "
                 "noise | sees |\n"
                 "|---|---|---|---|---:|---:|---|---:|---:|\n";
        open_table = true;
      }
      if (o.compact && (d == Decision::same || d == Decision::inconclusive))
        return;
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | ±{:.2g}% | {} |\n", verdict_cell(p),
                         md(p.experiment), md(p.metric), markdown_code(params_text(p.params)),
                         md(value_text(p.baseline, p.unit)), md(value_text(p.candidate, p.unit)),
                         change_text(p), 100 * p.noise, percent_text(p.detectable));
    });
    if (folded)
      out += "\n</details>\n";
    if (const auto wholes = shown_wholes(v, o); !wholes.empty()) {
      out += "\nExperiments taken whole (the median change of their gated points of one class):\n\n"
             "| verdict | experiment | class | points | change | noise | p (Holm) | sees |\n"
             "|---|---|---|---:|---|---:|---:|---:|\n";
      for (const PointVerdict* w : wholes)
        out += fmt::format("| {} | {} | {} | {} | {} | ±{:.2g}% | {:.2g} | {} |\n",
                           verdict_cell(*w), md(w->experiment), class_phrase(w->metric_class),
                           w->points_taken_whole, change_text(*w), 100 * w->noise, w->p_adjusted,
                           percent_text(w->detectable));
    }
    if (!v.left_out.empty()) {
      out += fmt::format(
          "\n<details><summary>{} left out</summary>\n\n| experiment | metric | params | "
          "why |\n|---|---|---|---|\n",
          v.left_out.size());
      for (const LeftOut& l : v.left_out)
        out += fmt::format("| {} | {} | {} | {}{} |\n", md(l.experiment), md(l.metric),
                           markdown_code(params_text(l.params)), reason_name(l.reason),
                           l.detail.empty() ? "" : fmt::format(": {}", md(l.detail)));
      out += "\n</details>\n";
    }
  }
  out += fmt::format("\n**{}**\n", batch_line(verdicts, markdown_text));
  // A GitHub job summary holds 1 MiB per step: past that, the folded rows go (json has them).
  if (!o.compact && out.size() > max_markdown_bytes) {
    FormatOptions compact = o;
    compact.compact = true;
    out = format_markdown(verdicts, compact);
  }
  return out;
}

static json power_json(const Verdict& v) {
  json out = json::array();
  for (const ClassPower& c : v.power)
    out.push_back({{"class", class_name(c.metric_class)},
                   {"threshold", c.threshold},
                   {"points", c.points},
                   {"inconclusive", c.inconclusive},
                   {"wholes", c.wholes},
                   {"detectable_points_median", c.point_median},
                   {"detectable", c.headline()},
                   {"detectable_wholes_median", c.wholes ? json(c.whole_median) : json(nullptr)},
                   {"detectable_wholes_largest", c.wholes ? json(c.whole_largest) : json(nullptr)},
                   {"least_sensitive_experiment", c.least_sensitive}});
  return out;
}

json to_json(const std::vector<Verdict>& verdicts, const FormatOptions& o) {
  json all = {{"format", "apod-compare"},
              {"version", 1},
              {"exit_code", exit_code(verdicts)},
              {"outcome", outcome_word(outcome(verdicts))},
              {"verdicts", json::array()}};
  const auto facts = [](const RunFacts& r) {
    return json{{"id", r.id},
                {"label", r.label},
                {"started_at", r.started_at},
                {"device", r.device},
                {"uuid", r.uuid},
                {"host", r.host},
                {"driver_branch", r.driver_branch},
                {"runs", r.runs}};
  };
  for (const Verdict& v : verdicts) {
    json j = {
        {"baseline", facts(v.baseline)},
        {"candidate", facts(v.candidate)},
        {"same_machine", v.same_machine},
        {"exit_code", v.exit_code()},
        {"outcome", outcome_word(v.outcome())},
        {"history_runs", v.history_runs},
        {"inconclusive", v.inconclusive()},
        {"sees", power_line(v)},
        {"power", power_json(v)},
        {"regression", v.regressions() > 0},
        {"regressions", v.regressions()},
        {"whole_regressions", v.whole_regressions()},
        {"unconfirmed", v.unconfirmed()},
        {"faster", v.count(Change::faster)},
        {"same", v.count(Change::same)},
        {"threshold", v.threshold ? json(*v.threshold) : json(nullptr)},
        {"fwer", v.fwer},
        {"multiple_comparisons", v.wholes.empty() ? "holm" : "holm_weighted"},
        {"gated_points", v.gated_points},
        {"summary", count_line(v, as_is)},
        {"nothing_compared", v.nothing_compared.empty() ? json(nullptr) : json(v.nothing_compared)},
        {"points", json::array()},
        {"wholes", json::array()},
        {"left_out", json::array()}};
    for (const PointVerdict* w : shown_wholes(v, o))
      j["wholes"].push_back({{"experiment", w->experiment},
                             {"class", class_name(w->metric_class)},
                             {"points", w->points_taken_whole},
                             {"slowdown_factor", std::exp(w->slowdown)},
                             {"change", change_text(*w)},
                             {"verdict", word_of(*w)},
                             {"regression", w->regression},
                             {"noise_rel", w->noise},
                             {"df", std::isinf(w->df) ? json(nullptr) : json(w->df)},
                             {"p", w->p},
                             {"p_holm", w->p_adjusted},
                             {"detectable_rel", w->detectable},
                             {"detectable_alone_rel", w->detectable_alone},
                             {"threshold", w->threshold},
                             {"inconclusive", w->inconclusive},
                             {"gross", w->gross},
                             {"needs", w->needs},
                             {"history_runs", w->history_runs}});
    for (const PointVerdict& p : v.points) {
      if (o.only_changed && p.change == Change::same)
        continue;
      j["points"].push_back({{"comparability_key", p.key},
                             {"experiment", p.experiment},
                             {"metric", p.metric},
                             {"params", p.params},
                             {"unit", p.unit},
                             {"direction", to_string(p.direction)},
                             {"class", class_name(p.metric_class)},
                             {"gated", p.gated},
                             {"baseline", p.baseline},
                             {"candidate", p.candidate},
                             {"ratio", p.candidate / p.baseline},
                             {"slowdown_factor", std::exp(p.slowdown)},
                             {"change", change_text(p)},
                             {"verdict", word_of(p)},
                             {"regression", p.regression},
                             {"noisy_candidate", p.noisy_candidate},
                             {"noise_rel", p.noise},
                             {"df", std::isinf(p.df) ? json(nullptr) : json(p.df)},
                             {"p", p.p},
                             {"p_holm", p.p_adjusted},
                             {"detectable_rel", p.detectable},
                             {"detectable_alone_rel", p.detectable_alone},
                             {"p_light", p.p_light},
                             {"p_light_holm", p.p_light_adjusted},
                             {"threshold", p.threshold},
                             {"inconclusive", p.inconclusive},
                             {"suspect", p.suspect},
                             {"gross", p.gross},
                             {"needs", p.needs},
                             {"noise_source", noise_source_name(p.noise_source)},
                             {"history_runs", p.history_runs}});
    }
    for (const LeftOut& l : v.left_out)
      j["left_out"].push_back({{"experiment", l.experiment},
                               {"metric", l.metric},
                               {"params", l.params},
                               {"reason", reason_name(l.reason)},
                               {"detail", l.detail}});
    all["verdicts"].push_back(std::move(j));
  }
  return all;
}

} // namespace apod
