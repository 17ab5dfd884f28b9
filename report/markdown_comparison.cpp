#include "markdown_comparison.hpp"

#include "class_lines.hpp"
#include "format.hpp"
#include "matched.hpp"

#include "core/text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

namespace {

// Strings read from the runs or the prices file go in through markdown_text (core/text.hpp), as
// in markdown.cpp: none can open a heading, link or cell.
std::string md(const std::string& stored) {
  return markdown_text(stored);
}

std::string row(const std::vector<std::string>& cells) {
  std::string text = "|";
  for (const auto& cell : cells)
    text.append(" ").append(cell).append(" |");
  return text + "\n";
}

std::string devices(const PageModel& page, const RenderOptions& options) {
  const bool boards = !options.board_power_w.empty();
  std::vector<std::string> header = {"device", "runs", "price"};
  if (boards)
    header.push_back("board power (prices file), not measured");
  std::string text = row(header);
  text += boards ? "|---|---:|---:|---:|\n" : "|---|---:|---:|\n";
  for (const auto& model : page.device_models) {
    const auto usd = price_of(options.prices, model);
    std::vector<std::string> cells = {md(model), std::to_string(page.runs_of_model(model).size()),
                                      usd ? fmt::format("${:.0f}", *usd) : "no price given"};
    if (boards) {
      const auto watts = price_of(options.board_power_w, model);
      cells.push_back(watts ? format_with_unit(*watts, "W") : "—");
    }
    text += row(cells);
  }
  return text;
}

std::string figures(const std::vector<MatchedFigure>& headline, bool priced) {
  std::vector<std::string> header = {"class",
                                     "figure",
                                     "version",
                                     "device",
                                     "at",
                                     "median of run medians",
                                     "range of run medians",
                                     "runs",
                                     "relative"};
  std::string rule = "|---|---|---|---|---|---:|---:|---:|---:|";
  if (priced)
    header.push_back("per $1000"), rule += "---:|";
  header.push_back("per W (measured during the work)");
  rule += "---:|";
  std::string text = row(header) + rule + "\n";
  for (const auto& figure : headline) {
    if (figure.workload == Workload::other)
      continue;
    const ModelFigure& best = figure.best();
    const std::string& unit = figure.metric->unit;
    for (const auto& m : figure.models) {
      std::vector<std::string> cells = {
          md(figure.workload_label),
          md(figure.title()) + " (" + direction_words(*figure.metric) + ")",
          fmt::format("v{}", figure.version),
          md(m.model),
          md(format_params(*m.across.params)),
          md(format_with_unit(m.across.median, unit)),
          md(format_range(m.across.min, m.across.max, unit)),
          std::to_string(m.across.points.size()),
          &m == &best ? "best" : format_ratio(1.0 / figure.advantage(m))};
      if (priced)
        cells.push_back(m.per_kusd ? format_number(*m.per_kusd) : "—");
      cells.push_back(m.per_w ? format_number(*m.per_w) : "n/a (" + m.per_w_missing + ")");
      text += row(cells);
    }
  }
  return text;
}

} // namespace

std::string comparison_markdown(const PageModel& page, const RenderOptions& options) {
  if (page.device_models.size() < 2)
    return "";
  const auto headline = matched_figures(page, options.prices, true);
  const auto lines = class_lines(headline, page.device_models);
  std::string text = "## Buyer's comparison\n\n";
  // apod's own words as written; model names through md().
  for (const auto& line : lines) {
    const std::string lead =
        line.ratio < 1.02 ? fmt::format("{} on par with {}", md(line.best), md(line.runner_up))
                          : fmt::format("{} {} over {}", md(line.best), format_ratio(line.ratio),
                                        md(line.runner_up));
    text += fmt::format("- **{}**: {}, {}; geometric mean of {} figure{}\n", md(line.label), lead,
                        line.efficiency_text(), line.figures, line.figures == 1 ? "" : "s");
  }
  for (const auto& missing : classes_not_compared(page, lines))
    text += fmt::format("- **{}**: {}\n", md(missing.label), missing.why(&md));
  if (lines.empty())
    return text + "\nNo figure of a workload class was measured on two device models at the same "
                  "point and version: nothing to set side by side.\n\n";
  text += "\nMatched points only: the same experiment version, parameters and metric on every "
          "model; per class, the geometric mean over its headline figures. Per W only from power "
          "measured during the work; a board power from the prices file is a rated figure, "
          "never divided by.\n\n";
  text += devices(page, options) + "\n";
  const bool priced = std::any_of(headline.begin(), headline.end(), [](const MatchedFigure& f) {
    return std::any_of(f.models.begin(), f.models.end(),
                       [](const ModelFigure& m) { return m.per_kusd.has_value(); });
  });
  return text + figures(headline, priced) + "\n";
}

} // namespace apod::report
