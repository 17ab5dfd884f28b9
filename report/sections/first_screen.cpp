// The first screen: what each reader looks for before anything else.
// - A GPU's owner: what does it deliver against what it should? Per device model, each headline
//   figure as % of its limit, with the run-to-run spread, grouped by the catalog's chapters.
// - A CI owner: did anything change? The newest run against the pinned baseline, regressions
//   listed.
// - A buyer: which model is better for what? One line per matched figure, with per-$ and per-W
//   where prices and power are known.
#include "sections/first_screen.hpp"

#include "format.hpp"
#include "matched.hpp"
#include "palette.hpp"

#include <fmt/format.h>

#include <algorithm>
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

mustache::data figure_row(const HeadlineSeries& series) {
  const PointView& point = *series.headline;
  const std::string& metric = series.metric->metric;
  mustache::data row;
  row.set("figure", short_title(series.experiment->title));
  row.set("anchor", series.experiment->anchor);
  row.set("metric", display_name(series.metric->metric));
  row.set("value", format_with_unit(series.median, series.metric->unit));
  row.set("at", format_params(point.measurement->params));
  if (series.pct_of_limit) {
    row.set("pct", format_percent(*series.pct_of_limit));
    row.set("bar_width", fmt::format("{:.1f}%", std::clamp(*series.pct_of_limit, 0.0, 100.0)));
    row.set("limit", limit_short(point, series.metric->limit()));
    row.set("limit_words", std::string(point.limit_text));
  } else {
    row.set("pct", false);
    const bool unknown = series.metric->limit() != LimitKind::none && series.metric->unit == "GB/s";
    row.set("limit", unknown ? "limit not known for this device" : "no limit applies");
    row.set("limit_words", "");
  }
  // A peak read against itself says nothing.
  const bool is_peak = metric == keys::achievable_peak || metric == keys::access_peak;
  row.set("peak",
          series.pct_of_peak && !is_peak
              ? mustache::data(format_percent(*series.pct_of_peak) + " of achievable " +
                               (point.peak_access_type.empty() ? std::string("peak")
                                                               : point.peak_access_type + " peak"))
              : mustache::data(false));
  std::string spread = "one run";
  if (const auto pct = series.spread_pct(); pct && series.points.size() >= 2)
    spread = fmt::format("{}", format_percent(*pct));
  row.set("runs",
          series.points.size() >= 2 ? fmt::format("{} runs", series.points.size()) : std::string());
  row.set("spread", spread);
  return row;
}

mustache::data device_cards(const PageContext& context) {
  const PageModel& page = context.page;
  const std::vector<std::string> colours = stable_colours(page.device_models);
  mustache::data cards{mustache::data::type::list};
  for (std::size_t m = 0; m < page.device_models.size(); ++m) {
    const std::string& model = page.device_models[m];
    // Grouped by the catalog's chapters, in their order: forty experiments stay findable.
    mustache::data rows{mustache::data::type::list};
    for (const Chapter chapter : chapters) {
      bool first = true;
      for (const auto& series : context.headlines) {
        if (series.device_model != model || series.experiment->chapter != chapter)
          continue;
        mustache::data row = figure_row(series);
        row.set("chapter", first ? mustache::data(chapter_title(chapter)) : mustache::data(false));
        first = false;
        rows.push_back(row);
      }
    }
    mustache::data card;
    card.set("model", model);
    card.set("colour", colours[m]);
    card.set("runs", runs_text(page, model));
    card.set("rows", rows);
    card.set("empty", rows.is_empty_list());
    cards.push_back(card);
  }
  return cards;
}

std::string run_words(const RunView& run) {
  std::string text = run.name;
  if (!run.started_at.empty())
    text += " (" + format_date(run.started_at) + ")";
  return text;
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

mustache::data change_block(const PageContext& context) {
  const BaselineVerdict& verdict = context.verdict;
  mustache::data block;
  if (!verdict.comparison) {
    block.set("state", "none");
    block.set("headline", verdict.why_none);
    block.set("any_regressions", false);
    block.set("regressions", false);
    block.set("more", false);
    return block;
  }
  const auto regressions = verdict.regressions();
  const Outcome outcome = verdict.comparison->outcome();
  block.set("state", outcome == Outcome::regression     ? "bad"
                     : outcome == Outcome::inconclusive ? "inconclusive"
                                                        : "ok");
  // compare's own count line and what it could see (analysis/compare.hpp), so the page and
  // `apod compare` say the same numbers.
  std::string headline =
      fmt::format("{}: the newest run, {}, against the pinned baseline {} on {}. {}. Sees: {}",
                  outcome_word(outcome), run_words(*verdict.candidate),
                  run_words(*verdict.baseline), verdict.baseline->device_model,
                  summary_line(*verdict.comparison), power_line(*verdict.comparison));
  block.set("headline", headline + ".");
  mustache::data shown{mustache::data::type::list}, rest{mustache::data::type::list};
  for (std::size_t i = 0; i < regressions.size(); ++i)
    (i < regressions_shown ? shown : rest).push_back(regression_text(*regressions[i]));
  block.set("any_regressions", !regressions.empty());
  block.set("regressions", shown);
  block.set("more", false);
  if (regressions.size() > regressions_shown) {
    mustache::data more;
    more.set("summary", fmt::format("and {} more", regressions.size() - regressions_shown));
    more.set("items", rest);
    block.set("more", more);
  }
  return block;
}

// "per $1000: NVIDIA H100 1.31×" where at least two models have the figure.
std::string efficiency_text(const MatchedFigure& figure, bool per_dollar) {
  const ModelFigure* best = nullptr;
  std::size_t with_value = 0;
  for (const auto& model : figure.models) {
    const auto& value = per_dollar ? model.per_kusd : model.per_w;
    if (!value)
      continue;
    ++with_value;
    if (!best || *value > *(per_dollar ? best->per_kusd : best->per_w))
      best = &model;
  }
  if (with_value < 2)
    return "";
  const double top = *(per_dollar ? best->per_kusd : best->per_w);
  double next = 0;
  for (const auto& model : figure.models) {
    const auto& value = per_dollar ? model.per_kusd : model.per_w;
    if (value && &model != best)
      next = std::max(next, *value);
  }
  return fmt::format("per {}: {} {}", per_dollar ? "$1000" : "watt", best->model,
                     format_ratio(top / next));
}

mustache::data better_line(const MatchedFigure& figure, const std::vector<std::string>& colours,
                           const std::vector<std::string>& models) {
  const ModelFigure& best = figure.best();
  const std::string& unit = figure.metric->unit;
  std::string others;
  for (const auto& model : figure.models) {
    if (&model == &best)
      continue;
    const double advantage = figure.advantage(model);
    // Within 2 % is within the run-to-run spread of most figures: no winner.
    others += fmt::format("{}{} {} ({})", others.empty() ? "" : ", ",
                          advantage < 1.02 ? std::string("on par with")
                                           : format_ratio(advantage) + " over",
                          model.model, format_with_unit(model.across.median, unit));
  }
  mustache::data line;
  line.set("figure",
           short_title(figure.experiment->title) + " · " + display_name(figure.metric->metric));
  line.set("anchor", figure.experiment->anchor);
  line.set("best", best.model);
  line.set("colour", colours[std::find(models.begin(), models.end(), best.model) - models.begin()]);
  line.set("value", format_with_unit(best.across.median, unit));
  line.set("others", others);
  line.set("at", format_params(figure.params));
  std::vector<std::string> extras;
  for (const bool per_dollar : {true, false})
    if (const std::string text = efficiency_text(figure, per_dollar); !text.empty())
      extras.push_back(text);
  std::string extra_text;
  for (const auto& e : extras)
    extra_text += (extra_text.empty() ? "" : "; ") + e;
  line.set("per_dollar_or_watt", text_or_false(extra_text));
  return line;
}

mustache::data better_block(const PageContext& context) {
  const PageModel& page = context.page;
  if (page.device_models.size() < 2)
    return false;
  const auto figures = matched_figures(page, context.options.prices, true);
  const std::vector<std::string> colours = stable_colours(page.device_models);
  mustache::data lines{mustache::data::type::list};
  for (const auto& figure : figures)
    lines.push_back(better_line(figure, colours, page.device_models));
  mustache::data block;
  block.set("lines", lines);
  block.set("empty", figures.empty());
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
