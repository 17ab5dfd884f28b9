// A node's GPUs side by side: for each host's newest `apod run --device all` on the page (else
// every run, by host and model), each GPU's figures against its siblings' median, an
// experiment's points of one class taken whole, as the sibling check judges them
// (runner/analysis/siblings.hpp, docs/siblings.md): flagged GPUs marked, the device facts that
// differ listed.
#include "sections/siblings.hpp"

#include "analysis/siblings.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace apod::report {

namespace {

std::string signed_percent(double ln) {
  return fmt::format("{:+.1f}%", 100 * (std::exp(ln) - 1));
}

std::string gpu_title(const SiblingGpu& g) {
  return fmt::format("GPU {} ({})", g.ordinal, g.pci_bus_id);
}

const SiblingLevel* find_level(const SiblingGpu& g, const SiblingLevel& like) {
  for (const SiblingLevel& l : g.levels)
    if (l.experiment == like.experiment && l.metric_class == like.metric_class)
      return &l;
  return nullptr;
}

// Rows: each class over its experiments first, then each experiment's class; columns: the GPUs,
// then the margin a GPU must pass beyond its slowest sibling.
TableData levels_table(const SiblingSet& set) {
  std::vector<Column> columns = {{"figures", ""}, {"taken whole", numeric}};
  for (const SiblingGpu& g : set.gpus)
    columns.push_back({gpu_title(g) + (g.flagged() ? " — slower" : ""), numeric});
  columns.push_back({"margin", numeric});
  TableData table(std::move(columns), "siblings");
  std::vector<const SiblingLevel*> rows;
  for (const SiblingLevel& l : set.gpus.front().levels)
    if (l.experiment.empty())
      rows.push_back(&l);
  for (const SiblingLevel& l : set.gpus.front().levels)
    if (!l.experiment.empty())
      rows.push_back(&l);
  for (const SiblingLevel* row : rows) {
    std::vector<Cell> cells = {
        {row->experiment.empty()
             ? std::string(class_phrase(row->metric_class)) + ", every experiment"
             : row->experiment + ", " + class_phrase(row->metric_class)},
        figure_cell(
            fmt::format("{} {}", row->points, row->experiment.empty() ? "experiments" : "points"),
            double(row->points))};
    for (const SiblingGpu& g : set.gpus) {
      const SiblingLevel* l = find_level(g, *row);
      if (!l) {
        cells.push_back({"—", numeric});
        continue;
      }
      const bool flagged = l->slower && l->gating;
      Cell cell = figure_cell(signed_percent(l->slowdown) +
                                  (flagged ? " slower" : (l->slower ? " unconfirmed" : "")),
                              100 * (std::exp(l->slowdown) - 1));
      cell.css_class += flagged ? " status-bad" : (l->slower || l->faster ? " status-warn" : "");
      cells.push_back(cell);
    }
    cells.push_back(figure_cell(fmt::format("{:.1f}%", 100 * (std::exp(row->margin) - 1)),
                                100 * (std::exp(row->margin) - 1)));
    table.add_row(cells);
  }
  return table.sortable();
}

std::vector<std::string> set_notes(const SiblingSet& set) {
  std::vector<std::string> notes;
  for (const SiblingGpu& g : set.gpus) {
    if (g.flagged())
      notes.push_back(fmt::format("{} ({}) is slower than its siblings beyond their spread and "
                                  "the GPU-to-GPU noise.",
                                  gpu_title(g), g.uuid));
    if (g.points_missing > 0)
      notes.push_back(fmt::format("{}: {} points failed here that its siblings measured.",
                                  gpu_title(g), g.points_missing));
    for (const FactDifference& f : g.facts)
      notes.push_back(fmt::format("{}: {} = {} (its siblings: {}).", gpu_title(g), f.fact, f.value,
                                  f.siblings));
  }
  return notes;
}

} // namespace

mustache::data siblings_section(const PageContext& context) {
  std::vector<RunRecord> runs;
  for (const RunView& view : context.page.runs)
    runs.push_back(*view.run);
  // Per host, its newest `--device all` (a fleet's merged database holds many nodes).
  const auto sets = device_all_sets(runs);
  std::map<std::string, const std::vector<const RunRecord*>*> newest;
  for (const auto& set : sets)
    newest[set.front()->environment.host] = &set;
  std::vector<const RunRecord*> chosen;
  for (const auto& [host, set] : newest)
    chosen.insert(chosen.end(), set->begin(), set->end());
  if (sets.empty())
    for (const RunRecord& r : runs)
      chosen.push_back(&r);
  NoiseModel own = NoiseModel::from_runs(runs, {});
  own.lend_across_gpus = false; // each GPU on its own noise (docs/siblings.md)
  const SiblingVerdict verdict = judge_siblings(chosen, own);
  mustache::data list{mustache::data::type::list};
  for (const SiblingSet& set : verdict.sets) {
    if (!set.not_judged.empty())
      continue;
    mustache::data item;
    item.set("title", fmt::format("{} × {} on {}", set.gpus.size(), set.model,
                                  set.host.empty() ? "an unnamed host" : set.host));
    item.set("notes", text_list(set_notes(set)));
    item.set("levels", levels_table(set).data(
                           "Each GPU's figures against the median of its siblings' (+ slower), "
                           "an experiment's points of one class taken whole"));
    list.push_back(item);
  }
  if (list.is_empty_list())
    return false;
  mustache::data section;
  section.set("sets", list);
  section.set("newest_of",
              text_or_false(sets.size() > newest.size()
                                ? fmt::format("Each host's newest `apod run --device all` ({} of "
                                              "the {} on the page).",
                                              newest.size(), sets.size())
                                : ""));
  section.set("flagged", text_or_false(verdict.flagged() > 0
                                           ? fmt::format("{} GPU(s) slower than their siblings.",
                                                         verdict.flagged())
                                           : ""));
  return section;
}

} // namespace apod::report
