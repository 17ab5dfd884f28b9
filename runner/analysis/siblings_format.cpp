// The sibling verdict in words (terminal, markdown) and as JSON (siblings.hpp).
#include "analysis/siblings.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace apod {

namespace {

/// A deviation in ln as a signed percentage: "+5.2%" (slower), "-0.3%" (faster).
std::string percent(double ln) {
  return fmt::format("{:+.1f}%", 100 * (std::exp(ln) - 1));
}

std::string magnitude(double ln) {
  return fmt::format("{:.1f}%", 100 * std::abs(std::exp(ln) - 1));
}

std::string gpu_name(const SiblingGpu& g) {
  return fmt::format("GPU {} ({}, {})", g.ordinal, terminal_text(g.pci_bus_id),
                     terminal_text(g.uuid));
}

std::string level_name(const SiblingLevel& l) {
  return l.experiment.empty()
             ? fmt::format("{}, every experiment", class_phrase(l.metric_class))
             : fmt::format("{}, {}", terminal_text(l.experiment), class_phrase(l.metric_class));
}

/// The rows a summary shows: each class over its experiments, or its one experiment.
std::vector<const SiblingLevel*> summary_rows(const SiblingGpu& g) {
  std::vector<const SiblingLevel*> rows;
  for (const SiblingLevel& l : g.levels) {
    const bool class_whole = std::any_of(g.levels.begin(), g.levels.end(), [&](auto& o) {
      return o.experiment.empty() && o.metric_class == l.metric_class;
    });
    if (l.experiment.empty() || !class_whole)
      rows.push_back(&l);
  }
  return rows;
}

const SiblingLevel* find_level(const SiblingGpu& g, const SiblingLevel& like) {
  for (const SiblingLevel& l : g.levels)
    if (l.experiment == like.experiment && l.metric_class == like.metric_class)
      return &l;
  return nullptr;
}

std::string level_words(const SiblingLevel& l) {
  return fmt::format("{} {} than its siblings' median (siblings {} to {}; margin {}; {} {}; "
                     "worst point {} {})",
                     magnitude(l.slowdown), l.slowdown > 0 ? "slower" : "faster",
                     percent(l.siblings_low), percent(l.siblings_high), magnitude(l.margin),
                     l.points, l.experiment.empty() ? "experiments" : "points",
                     terminal_text(l.worst_point.empty() ? "-" : l.worst_point),
                     percent(l.worst_point_slowdown));
}

} // namespace

std::string format_siblings_text(const SiblingVerdict& verdict) {
  std::string out;
  int gpus = 0;
  std::vector<std::string> flagged;
  for (const SiblingSet& set : verdict.sets) {
    gpus += static_cast<int>(set.gpus.size());
    out += fmt::format("Siblings: {} x {} on {}\n", set.gpus.size(), terminal_text(set.model),
                       terminal_text(set.host.empty() ? "?" : set.host));
    if (!set.not_judged.empty()) {
      out += "  not judged: " + set.not_judged + "\n";
      continue;
    }
    const SiblingGpu& first = set.gpus.front();
    out += "  each GPU against its siblings' median (+ slower), by class:\n";
    out += fmt::format("  {:<36}", "");
    for (const SiblingGpu& g : set.gpus)
      out += fmt::format(" {:>9}", fmt::format("GPU {}", g.ordinal));
    out += "\n";
    for (const SiblingLevel* row : summary_rows(first)) {
      out += fmt::format("  {:<36}", level_name(*row).substr(0, 36));
      for (const SiblingGpu& g : set.gpus) {
        const SiblingLevel* l = find_level(g, *row);
        out += fmt::format(" {:>9}",
                           !l ? "-"
                              : percent(l->slowdown) + (l->slower ? (l->gating ? "!" : "?") : " "));
      }
      out += "\n";
    }
    for (const SiblingGpu& g : set.gpus) {
      const bool faster = std::any_of(g.levels.begin(), g.levels.end(),
                                      [](const SiblingLevel& l) { return l.faster; });
      const bool unconfirmed = std::any_of(g.levels.begin(), g.levels.end(),
                                           [](const SiblingLevel& l) { return l.slower; });
      if (!unconfirmed && !faster && g.facts.empty() && g.points_missing == 0)
        continue;
      out += fmt::format("  {}: {}\n", gpu_name(g),
                         g.flagged()   ? "SLOWER than its siblings"
                         : unconfirmed ? "slower than its siblings in one experiment, unconfirmed"
                         : faster      ? "faster than its siblings (not a failure)"
                                       : "within its siblings' spread");
      if (g.flagged())
        flagged.push_back(gpu_name(g));
      for (const SiblingLevel& l : g.levels)
        if (l.slower || l.faster)
          out +=
              fmt::format("    {}: {}{}\n", level_name(l), level_words(l),
                          l.slower && !l.gating
                              ? " [unconfirmed: one experiment alone fails the check only with "
                                "this GPU's run-to-run noise of it, from --repeat 3 or a history]"
                              : "");
      if (g.points_missing > 0)
        out +=
            fmt::format("    {} points failed here that its siblings measured\n", g.points_missing);
      for (const FactDifference& f : g.facts)
        out += fmt::format("    differs: {} = {} (siblings: {})\n", terminal_text(f.fact),
                           terminal_text(f.value), terminal_text(f.siblings));
    }
  }
  if (verdict.quick && !flagged.empty())
    out += "(--quick runs are a smoke test at small sizes, not a measurement: the sibling check "
           "says what it sees and does not fail on them)\n";
  if (flagged.empty())
    out += fmt::format("Sibling check: no GPU of {} lies outside its siblings' spread\n", gpus);
  else
    out += fmt::format("Sibling check: {} of {} GPUs slower than their siblings: {}\n",
                       flagged.size(), gpus, fmt::join(flagged, "; "));
  return out;
}

std::string format_siblings_markdown(const SiblingVerdict& verdict) {
  std::string out = "## Sibling check\n\n";
  for (const SiblingSet& set : verdict.sets) {
    out += fmt::format("### {} x {} on {}\n\n", set.gpus.size(), markdown_text(set.model),
                       markdown_text(set.host));
    if (!set.not_judged.empty()) {
      out += set.not_judged + "\n\n";
      continue;
    }
    out += "| level |";
    for (const SiblingGpu& g : set.gpus)
      out += fmt::format(" GPU {} |", g.ordinal);
    out += " margin |\n|---|";
    for (size_t i = 0; i <= set.gpus.size(); ++i)
      out += "---:|";
    out += "\n";
    for (const SiblingLevel& row : set.gpus.front().levels) {
      out += "| " + markdown_text(level_name(row)) + " |";
      for (const SiblingGpu& g : set.gpus) {
        const SiblingLevel* l = find_level(g, row);
        const bool flagged = l && l->slower && l->gating;
        out += !l ? " - |"
                  : fmt::format(" {}{} |", flagged ? "**" : "",
                                percent(l->slowdown) + (flagged ? "**" : (l->slower ? "?" : "")));
      }
      out += fmt::format(" {} |\n", magnitude(row.margin));
    }
    out += "\n";
    for (const SiblingGpu& g : set.gpus) {
      if (g.flagged())
        out += fmt::format("- **{}: slower than its siblings**\n", markdown_text(gpu_name(g)));
      for (const FactDifference& f : g.facts)
        out +=
            fmt::format("- {}: `{}` = {} (siblings: {})\n", markdown_text(gpu_name(g)),
                        markdown_text(f.fact), markdown_text(f.value), markdown_text(f.siblings));
    }
    out += "\n";
  }
  out += verdict.flagged()
             ? fmt::format("**{} GPU(s) slower than their siblings.**\n", verdict.flagged())
             : "No GPU lies outside its siblings' spread.\n";
  return out;
}

json to_json(const SiblingVerdict& verdict) {
  json sets = json::array();
  for (const SiblingSet& set : verdict.sets) {
    json gpus = json::array();
    for (const SiblingGpu& g : set.gpus) {
      json levels = json::array(), facts = json::array();
      for (const SiblingLevel& l : g.levels)
        levels.push_back({{"experiment", l.experiment},
                          {"class", class_name(l.metric_class)},
                          {"points", l.points},
                          {"slowdown_rel", std::exp(l.slowdown) - 1},
                          {"siblings_low_rel", std::exp(l.siblings_low) - 1},
                          {"siblings_high_rel", std::exp(l.siblings_high) - 1},
                          {"noise_rel", l.noise},
                          {"margin_rel", std::exp(l.margin) - 1},
                          {"slower", l.slower},
                          {"gating", l.gating},
                          {"faster", l.faster},
                          {"worst_point", l.worst_point},
                          {"worst_point_slowdown_rel", std::exp(l.worst_point_slowdown) - 1}});
      for (const FactDifference& f : g.facts)
        facts.push_back({{"fact", f.fact}, {"value", f.value}, {"siblings", f.siblings}});
      gpus.push_back({{"ordinal", g.ordinal},
                      {"uuid", g.uuid},
                      {"pci_bus_id", g.pci_bus_id},
                      {"runs", g.run_ids},
                      {"own_noise_runs", g.own_noise_runs},
                      {"flagged", g.flagged()},
                      {"points_missing", g.points_missing},
                      {"levels", levels},
                      {"facts_differing", facts}});
    }
    sets.push_back(
        {{"model", set.model}, {"host", set.host}, {"not_judged", set.not_judged}, {"gpus", gpus}});
  }
  return {{"sibling_check",
           {{"min_margin", verdict.options.min_margin},
            {"quick", verdict.quick},
            {"exit_code", verdict.exit_code()},
            {"z", verdict.options.z},
            {"flagged", verdict.flagged()},
            {"sets", sets}}}};
}

} // namespace apod
