// The first screen: what each reader looks for before anything else, the answer first (issue 25).
// - A CI owner: did anything change? The first line of the page is the newest run's verdict
//   against the pinned baseline, or with none pinned against the previous run of its machine
//   (verdict.cpp), with what it could see, trust signals and the regressions.
// - A GPU's owner: what does it deliver? Per device model, each headline figure of the newest
//   run, against the baseline where the verdict judged that model, with its change, noise and
//   compare's word, and as % of its limit, grouped by the catalog's chapters.
// - A buyer: which model is better for what? One line per matched figure, with per-$ and per-W
//   where prices and power are known.
#include "sections/first_screen.hpp"

#include "class_lines.hpp"
#include "format.hpp"
#include "matched.hpp"
#include "palette.hpp"
#include "trust.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace apod::report {

namespace {

// Regressions listed on the first screen; the rest are one click away.
constexpr std::size_t regressions_shown = 6;

std::string plural(std::size_t count, const char* noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

// "of DRAM", "of PCIe", "of PCIe line rate, both directions", "of theoretical peak": the
// limit's kind in a word where it is the experiment's, the point's own words otherwise.
std::string limit_short(const PointView& point, LimitKind kind) {
  if (point.limit_gbs && !point.own_limit)
    return std::string("of ") + limit_word(kind);
  return point.limit_text.empty() ? "" : "of " + short_title(std::string(point.limit_text));
}

std::string runs_text(const PageModel& page, const std::string& model) {
  const auto runs = page.runs_of_model(model);
  std::set<std::string> machines;
  for (const RunView* run : runs)
    machines.insert(run->machine_key);
  std::string text = plural(runs.size(), "run");
  if (machines.size() > 1)
    text += " on " + plural(machines.size(), "machine");
  const std::string& first = runs.front()->started_at;
  const std::string& last = runs.back()->started_at;
  if (!first.empty())
    text += runs.size() == 1 ? ", " + format_date(first)
                             : ", " + format_date(first) + " to " + format_date(last);
  return text;
}

// A row's trust tags (trust.hpp) as {word, why} for the partial; false when there are none.
mustache::data tags_data(const std::vector<TrustTag>& tags) {
  if (tags.empty())
    return false;
  mustache::data list{mustache::data::type::list};
  for (const TrustTag& tag : tags) {
    mustache::data item;
    item.set("word", tag.word);
    item.set("why", tag.why);
    list.push_back(item);
  }
  return list;
}

// One headline figure as the CI owner reads it: the newest run's value (not the median of all
// runs: a regression tonight must not hide behind eleven good nights), the baseline's, the
// change and the noise compare judged it against, compare's word for it, and its % of limit.
mustache::data figure_row(const HeadlineSeries& series, const BaselineVerdict& verdict) {
  const HeadlineAgainst against = headline_against(series, verdict);
  const PointView* newest = against.newest;
  const PointVerdict* pair = against.pair;
  const bool judged = against.judged;
  const PointView& point = newest ? *newest : *series.headline; // for the limit's words
  const std::string& metric = series.metric->metric;
  const std::string& unit = series.metric->unit;
  const auto value_or_dash = [&](const std::optional<double>& value) {
    return value ? format_with_unit(*value, unit) : std::string("—");
  };
  mustache::data row;
  row.set("figure", short_title(series.experiment->title));
  row.set("anchor", series.experiment->anchor);
  row.set("metric", display_name(metric));
  row.set("at", format_params(point.measurement->params));
  row.set("value", value_or_dash(against.newest_value));
  row.set("value_run", newest ? run_words(*newest->run) : "not measured in the newest run");
  row.set("base", value_or_dash(against.base_value));
  const std::optional<double>& change = against.change;
  row.set("change", change ? format_change(*change) : std::string("—"));
  if (pair) {
    const Wording words = wording(decision_of(*pair)); // compare's word for it
    row.set("verdict", words.word);
    row.set("verdict_class", words.word);
    row.set("verdict_meaning", words.meaning);
    row.set("noise", "±" + format_percent(100 * pair->noise));
    row.set("sees", "sees " + format_percent(100 * pair->detectable));
  } else {
    row.set("verdict", judged ? "not compared" : "");
    row.set("verdict_class", "none");
    row.set("verdict_meaning", judged ? "compare left this point out (see the history)" : "");
    row.set("noise", false);
    row.set("sees", false);
  }
  if (newest && newest->pct_of_limit) {
    row.set("pct", format_percent(*newest->pct_of_limit));
    row.set("bar_width", fmt::format("{:.1f}%", std::clamp(*newest->pct_of_limit, 0.0, 100.0)));
    row.set("limit", limit_short(point, series.metric->limit()));
    row.set("limit_words", std::string(point.limit_text));
  } else {
    row.set("pct", false);
    const bool unknown = series.metric->limit() != LimitKind::none && unit == "GB/s";
    row.set("limit", unknown ? "limit not known for this device" : "no limit applies");
    row.set("limit_words", "");
  }
  // A peak read against itself says nothing.
  const bool is_peak = metric == keys::achievable_peak || metric == keys::access_peak;
  row.set("peak",
          newest && newest->pct_of_peak && !is_peak
              ? mustache::data(format_percent(*newest->pct_of_peak) + " of achievable " +
                               (point.peak_access_type.empty() ? std::string("peak")
                                                               : point.peak_access_type + " peak"))
              : mustache::data(false));
  std::string spread = "one run";
  if (const auto pct = series.spread_pct(); pct && series.points.size() >= 2)
    spread = fmt::format("{}", format_percent(*pct));
  row.set("runs",
          series.points.size() >= 2 ? fmt::format("{} runs", series.points.size()) : std::string());
  row.set("spread", spread);
  row.set("tags", newest ? tags_data(point_trust(*newest, pair)) : mustache::data(false));
  return row;
}

mustache::data device_cards(const PageContext& context) {
  const PageModel& page = context.page;
  const BaselineVerdict& verdict = context.verdict;
  const std::vector<std::string> colours = stable_colours(page.device_models);
  mustache::data cards{mustache::data::type::list};
  for (std::size_t m = 0; m < page.device_models.size(); ++m) {
    const std::string& model = page.device_models[m];
    const bool judged = verdict.judges_model(model);
    // Grouped by the catalog's chapters, in their order: forty experiments stay findable.
    mustache::data rows{mustache::data::type::list};
    for (const Chapter chapter : chapters) {
      bool first = true;
      for (const auto& series : context.headlines) {
        if (series.device_model != model || series.experiment->chapter != chapter)
          continue;
        mustache::data row = figure_row(series, verdict);
        row.set("chapter", first ? mustache::data(chapter_title(chapter)) : mustache::data(false));
        row.set("compared", judged);
        first = false;
        rows.push_back(row);
      }
    }
    const RunView& newest = judged ? *verdict.candidate : *page.runs_of_model(model).back();
    mustache::data card;
    card.set("model", model);
    card.set("colour", colours[m]);
    card.set("runs", runs_text(page, model));
    card.set("newest", judged ? fmt::format("Newest: {} against {}.", run_words(newest),
                                            run_words(*verdict.baseline))
                              : fmt::format("Newest: {}.", run_words(newest)));
    card.set("compared", judged);
    card.set("tags", tags_data(run_trust(newest)));
    card.set("rows", rows);
    card.set("empty", rows.is_empty_list());
    cards.push_back(card);
  }
  return cards;
}

std::string regression_text(const PointVerdict& pair) {
  if (pair.points_taken_whole) // an experiment taken whole: no value of its own, its change
    return fmt::format("{} · all {} {} points taken whole: their median {}", pair.experiment,
                       pair.points_taken_whole, class_phrase(pair.metric_class), change_text(pair));
  return fmt::format("{} · {} at {}: {} → {} ({}, {})", pair.experiment, display_name(pair.metric),
                     format_params(pair.params), format_with_unit(pair.baseline, pair.unit),
                     format_with_unit(pair.candidate, pair.unit),
                     format_change(relative_change(pair)), change_text(pair));
}

// compare's count line without its leading outcome word, which the verdict line already says:
// the word once, the counts as compare writes them (so the page and `apod compare` agree).
std::string counts_text(const Verdict& comparison) {
  const std::string line = summary_line(comparison);
  const std::string prefix = std::string(outcome_word(comparison.outcome())) + ": ";
  return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
}

// The trust signals of the two runs judged: each a line under the verdict, only when present.
mustache::data trust_lines(const BaselineVerdict& verdict) {
  mustache::data lines{mustache::data::type::list};
  for (const RunView* run : {verdict.candidate, verdict.baseline})
    if (run)
      for (const TrustTag& tag : run_trust(*run)) {
        mustache::data line;
        line.set("word", tag.word);
        line.set("why", tag.why);
        lines.push_back(line);
      }
  return lines.is_empty_list() ? mustache::data(false) : lines;
}

// "Did anything change?", answered in the first line of the page: the outcome word, what was
// judged against what (the pinned baseline, or the previous run of the machine: verdict.cpp),
// compare's counts and what it could see, the trust signals, then the regressions.
mustache::data change_block(const PageContext& context) {
  const BaselineVerdict& verdict = context.verdict;
  mustache::data block;
  block.set("word", verdict_word(verdict));
  block.set("trust", trust_lines(verdict));
  block.set("pin_hint", !verdict.pinned);
  block.set("any_regressions", false);
  block.set("regressions", false);
  block.set("more", false);
  if (!verdict.comparison) {
    block.set("state", "none");
    block.set("headline", verdict.why_none);
    block.set("counts", false);
    block.set("sees", false);
    return block;
  }
  const auto regressions = verdict.regressions();
  const Outcome outcome = verdict.comparison->outcome();
  block.set("state", outcome == Outcome::regression     ? "bad"
                     : outcome == Outcome::inconclusive ? "inconclusive"
                                                        : "ok");
  block.set("headline",
            fmt::format("the newest run, {}, on {}, against {}.", run_words(*verdict.candidate),
                        verdict.candidate->device_model, verdict.against));
  block.set("counts", counts_text(*verdict.comparison) + ".");
  const std::string sees = power_line(*verdict.comparison);
  block.set("sees", text_or_false(sees.empty() ? "" : "Sees: " + sees + "."));
  mustache::data shown{mustache::data::type::list}, rest{mustache::data::type::list};
  for (std::size_t i = 0; i < regressions.size(); ++i)
    (i < regressions_shown ? shown : rest).push_back(regression_text(*regressions[i]));
  block.set("any_regressions", !regressions.empty());
  block.set("regressions", shown);
  if (regressions.size() > regressions_shown) {
    mustache::data more;
    more.set("summary", fmt::format("and {} more", regressions.size() - regressions_shown));
    more.set("items", rest);
    block.set("more", more);
  }
  return block;
}

// "per $ 1.11×, per W n/a (power not measured during this experiment in these runs)".
std::string efficiency_text(const ClassLine& line) {
  return line.efficiency_text();
}

// One workload class: "memory-bound: NVIDIA H200 1.42×, over NVIDIA H100 at the geometric mean
// of 9 figures; per $ 1.11×, per W n/a (...)".
mustache::data better_line(const ClassLine& line, const std::vector<std::string>& colours,
                           const std::vector<std::string>& models) {
  const bool on_par = line.ratio < 1.02; // within the run-to-run spread of most figures
  mustache::data item;
  item.set("figure", line.label);
  item.set("anchor", "comparison");
  item.set("best", line.best);
  item.set("colour", colours[std::find(models.begin(), models.end(), line.best) - models.begin()]);
  item.set("value", format_ratio(line.ratio));
  item.set("others", (on_par ? "on par with " : "over ") + line.runner_up);
  item.set("text", line.text()); // the whole line, as the comparison section writes it
  item.set("at", fmt::format("the geometric mean of {} matched figure{}", line.figures,
                             line.figures == 1 ? "" : "s"));
  item.set("per_dollar_or_watt", text_or_false(efficiency_text(line)));
  return item;
}

mustache::data better_block(const PageContext& context) {
  const PageModel& page = context.page;
  if (page.device_models.size() < 2)
    return false;
  const auto lines =
      class_lines(matched_figures(page, context.options.prices, true), page.device_models);
  const std::vector<std::string> colours = stable_colours(page.device_models);
  mustache::data items{mustache::data::type::list};
  for (const auto& line : lines)
    items.push_back(better_line(line, colours, page.device_models));
  mustache::data block;
  block.set("lines", items);
  block.set("empty", lines.empty());
  return block;
}

} // namespace

mustache::data first_screen_section(const PageContext& context) {
  if (context.page.runs.empty())
    return false;
  mustache::data section;
  section.set("devices", device_cards(context));
  section.set("change", change_block(context));
  section.set("better", better_block(context));
  return section;
}

} // namespace apod::report
