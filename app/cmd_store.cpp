// apod list, export, import, merge: reading and writing the store.
#include "commands.hpp"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/output_file.hpp"
#include "core/results_bmf.hpp"
#include "core/results_json.hpp"
#include "core/results_openmetrics.hpp"
#include "core/text.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace apod::cli {

namespace {

const std::map<std::string, OnConflict> on_conflict_words = {
    {"refuse", OnConflict::refuse}, {"keep", OnConflict::keep}, {"replace", OnConflict::replace}};

void add_on_conflict(CLI::App* cmd, std::string& choice) {
  cmd->add_option("--on-conflict", choice,
                  "when a run's id is stored with other content (and neither copy is a later "
                  "state of the other): refuse (exit 2, nothing written), keep the stored copy, "
                  "or replace it")
      ->check(CLI::IsMember({"refuse", "keep", "replace"}))
      ->capture_default_str();
}

// One line per run replaced or kept, then the counts: no run is dropped unsaid.
void report_import(const ImportSummary& s, const char* verb, const std::string& db) {
  for (const auto& note : s.notes)
    std::cerr << terminal_text(note) << "\n";
  std::cerr << fmt::format(
      "{} {} run(s) into {}; {} already present{}\n", verb, s.added, terminal_text(db),
      s.already_present,
      s.notes.empty() ? "" : fmt::format("; {} kept or replaced (above)", s.notes.size()));
}

/// A column of `list --runs`: a header and each run's cell, already escaped for the terminal.
struct Column {
  std::string header;
  std::vector<std::string> cells;
  bool right = false; ///< numbers align right
};

/// A stored word for a terminal, "-" where the store has none.
std::string cell(const std::string& stored) {
  return stored.empty() ? "-" : terminal_text(stored);
}

void list_runs(Store& store, bool as_json) {
  const auto runs = store.list_runs();
  if (as_json) { // JSON escapes every control character itself
    json out = json::array();
    for (const auto& r : runs)
      out.push_back({{"id", r.id},
                     {"label", r.label},
                     {"started_at", r.started_at},
                     {"finished_at", r.finished_at ? json(*r.finished_at) : json(nullptr)},
                     {"status", r.status},
                     {"device", r.device_name},
                     {"gpu_uuid", r.device_uuid},
                     {"host", r.host.empty() ? json(nullptr) : json(r.host)},
                     {"batch", r.batch.empty() ? json(nullptr) : json(r.batch)},
                     {"points", r.measurements}});
    std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return;
  }
  // The id stays whole and first (scripts take it with awk '{print $1}'); the GPU's UUID and the
  // batch are cut as compare cuts them, enough to tell concurrent GPUs and batches apart and to
  // pass to `compare --batch`; the label, which may hold spaces, comes last.
  std::vector<Column> columns = {{"id", {}},           {"started", {}}, {"status", {}},
                                 {"points", {}, true}, {"device", {}},  {"gpu", {}},
                                 {"host", {}},         {"batch", {}},   {"label", {}}};
  for (const auto& r : runs) { // stored text reaches a terminal: no escape sequence gets through
    const std::string row[] = {cell(r.id),
                               cell(r.started_at),
                               cell(r.status),
                               std::to_string(r.measurements),
                               cell(r.device_name),
                               cell(std::string(text_prefix(r.device_uuid, 12))),
                               cell(r.host),
                               cell(std::string(text_prefix(r.batch, 8))),
                               terminal_text(r.label)};
    for (size_t c = 0; c < columns.size(); ++c)
      columns[c].cells.push_back(row[c]);
  }
  std::vector<size_t> widths;
  for (const auto& col : columns) {
    size_t width = col.header.size();
    for (const auto& text : col.cells)
      width = std::max(width, text.size());
    widths.push_back(width);
  }
  const auto print_row = [&](auto text_of) {
    std::string line;
    for (size_t c = 0; c + 1 < columns.size(); ++c)
      line += fmt::format(fmt::runtime(columns[c].right ? "{:>{}}  " : "{:<{}}  "),
                          text_of(columns[c]), widths[c]);
    std::cout << line << text_of(columns.back()) << "\n"; // the label: no trailing blanks
  };
  print_row([](const Column& col) { return col.header; });
  for (size_t i = 0; i < runs.size(); ++i)
    print_row([i](const Column& col) { return col.cells[i]; });
}

} // namespace

// `apod list --json`: the catalog planned for GPU `ordinal` when one is visible, else for the
// nominal device, which the document says.
json catalog_document(int ordinal, bool quick, bool full) {
  PlanInput plan;
  plan.quick = quick;
  plan.full = full;
  const bool visible = device_count() > ordinal;
  if (visible)
    plan.device = query_device(ordinal);
  return {{"format", "apod-catalog"},
          {"version", 1},
          {"planned_for",
           {{"device", plan.device.name},
            {"nominal", !visible},
            {"quick", quick},
            {"full", full},
            {"note", visible ? "the points of a run on this GPU (values the occupancy API or the "
                               "driver decides, e.g. partitions and resident blocks, are the "
                               "plan's estimate; a point with 'when' is added only under that "
                               "condition)"
                             : "no GPU is visible: the points are planned for a nominal H100; "
                               "sizes that depend on the device differ on others"}}},
          {"experiments", catalog_json(&plan)}};
}

void add_list(CLI::App& app, Action& action) {
  struct Args {
    std::string db = "apod.db";
    bool runs = false, json = false, quick = false, full = false;
    int device = 0;
  };
  auto args = std::make_shared<Args>();
  auto* list = app.add_subcommand(
      "list", "list the experiments of the matrix, or with --runs the stored runs");
  list->add_flag("--runs", args->runs, "list the runs stored in --db instead");
  list->add_flag("--json", args->json,
                 "the catalog as JSON: every experiment's declaration and the points it will "
                 "measure (with --runs: the runs, one object each)");
  list->add_option("--device", args->device,
                   "with --json: plan the points for this GPU (default 0; a nominal H100 when "
                   "no GPU is visible)")
      ->check(CLI::NonNegativeNumber);
  list->add_flag("--quick", args->quick, "with --json: plan the points of a --quick run");
  list->add_flag("--full", args->full, "with --json: plan the points of a --full run")
      ->excludes("--quick");
  list->add_option("--db", args->db, "SQLite database to read (with --runs)")
      ->capture_default_str();
  list->callback([&action, args] {
    action = [args] {
      if (!args->runs) {
        if (args->json) {
          std::cout << catalog_document(args->device, args->quick, args->full).dump(2) << "\n";
          return exit_ok;
        }
        for (const auto& e : experiments())
          if (!e.hidden)
            std::cout << fmt::format("{:<18} v{}  {}\n", e.name, e.version, e.title);
        return exit_ok;
      }
      check_database_path(args->db);
      Store store(args->db, Store::Mode::read_only);
      list_runs(store, args->json);
      return exit_ok;
    };
  });
}

namespace {

/// The one run --format bmf or openmetrics writes: the run --run names, else the newest stored
/// (Bencher ingests one report per run, and a scrape shows one state). Several: InputError.
RunRecord single_run(Store& store, const std::vector<std::string>& runs,
                     const std::string& format) {
  if (runs.size() > 1)
    throw InputError(fmt::format("--format {} writes one run ({} were named): name one with --run, "
                                 "or export each in turn",
                                 format, runs.size()));
  if (!runs.empty())
    return store.read_run(store.resolve_run_id(runs.front()));
  const std::vector<std::string> ids = store.run_ids();
  if (ids.empty())
    throw InputError("the database holds no run to export");
  RunRecord run = store.read_run(ids.back());
  if (ids.size() > 1)
    std::cerr << fmt::format("apod export: the newest of {} runs, {} (started {}); --run picks "
                             "another\n",
                             ids.size(), terminal_text(run.id), terminal_text(run.started_at));
  return run;
}

} // namespace

void add_export(CLI::App& app, Action& action) {
  struct Args {
    std::string db = "apod.db", format = "json", out = "-";
    std::vector<std::string> runs;
  };
  auto args = std::make_shared<Args>();
  auto* exp = app.add_subcommand(
      "export", "write stored runs as an apod-results JSON document or CSV, or one run for "
                "Bencher (BMF) or Prometheus (OpenMetrics)");
  exp->add_option("--db", args->db, "SQLite database to read")->capture_default_str();
  exp->add_option("--format", args->format,
                  "json (an apod-results document), csv (one row per point), bmf (Bencher Metric "
                  "Format: one run, each point's median with its 95% interval) or openmetrics "
                  "(one run's medians as gauges, OpenMetrics text)")
      ->check(CLI::IsMember({"json", "csv", "bmf", "openmetrics"}))
      ->capture_default_str();
  exp->add_option("--out", args->out,
                  "file to write, - for stdout; a name ending in .gz is gzip-compressed")
      ->capture_default_str();
  exp->add_option("--run", args->runs,
                  "runs to export (id or unique prefix; default: all; bmf and openmetrics: one, "
                  "default the newest)");
  exp->callback([&action, args] {
    action = [args] {
      check_database_path(args->db);
      OutputFile out(args->out, {{args->db, "the database", true}}); // checked before any work
      Store store(args->db, Store::Mode::read_only);
      const RunSource runs = [&](const auto& each) { store.for_each_run(args->runs, each); };
      if (args->format == "bmf")
        out.write(bmf_document(single_run(store, args->runs, args->format))
                      .dump(2, ' ', false, json::error_handler_t::replace) +
                  "\n");
      else if (args->format == "openmetrics")
        out.write(openmetrics_text(single_run(store, args->runs, args->format)));
      else if (args->format == "csv")
        write_results_csv(out, runs);
      else
        write_results_json(out, runs);
      out.commit();
      return exit_ok;
    };
  });
}

void add_import(CLI::App& app, Action& action) {
  struct Args {
    std::string db = "apod.db", on_conflict = "refuse";
    std::vector<std::string> files;
  };
  auto args = std::make_shared<Args>();
  auto* imp = app.add_subcommand(
      "import", "add the runs of apod-results JSON files (.json or .json.gz) to a database");
  imp->add_option("--db", args->db, "SQLite database to add to (created if missing)")
      ->capture_default_str();
  imp->add_option("files", args->files, "apod-results JSON files")
      ->required()
      ->check(CLI::ExistingFile);
  add_on_conflict(imp, args->on_conflict);
  imp->callback([&action, args] {
    action = [args] {
      check_database_path(args->db);
      std::vector<OutputInput> inputs;
      for (const auto& f : args->files)
        inputs.push_back({f, "the input file " + f, false});
      refuse_if_input(args->db, inputs, "--db");
      // The first file is read and checked before the database is touched; every run of every
      // file goes in one transaction, and a database this command creates appears only whole.
      std::optional<std::vector<RunRecord>> first =
          runs_from_document(read_results_file(args->files[0]));
      ImportSummary summary;
      Store::write_into(
          args->db, [&](Store& store) { // runs again if another process created the file
            std::vector<RunRecord> runs =
                first ? std::move(*first) : runs_from_document(read_results_file(args->files[0]));
            first.reset();
            size_t file = 0, next = 0;
            summary = store.import_runs(
                [&](RunRecord& run, std::string& source) {
                  while (next == runs.size()) { // one document in memory at a time
                    if (++file == args->files.size())
                      return false;
                    runs = runs_from_document(read_results_file(args->files[file]));
                    next = 0;
                  }
                  run = std::move(runs[next++]);
                  source = args->files[file];
                  return true;
                },
                on_conflict_words.at(args->on_conflict));
          });
      report_import(summary, "imported", args->db);
      return exit_ok;
    };
  });
}

void add_merge(CLI::App& app, Action& action) {
  struct Args {
    std::string out, on_conflict = "refuse";
    std::vector<std::string> inputs;
  };
  auto args = std::make_shared<Args>();
  auto* merge = app.add_subcommand(
      "merge", "combine the runs of several databases into one (keyed by run id; all or nothing)");
  merge->add_option("out", args->out, "database to merge into (created if missing)")->required();
  merge->add_option("inputs", args->inputs, "databases to read")
      ->required()
      ->check(CLI::ExistingFile);
  add_on_conflict(merge, args->on_conflict);
  merge->callback([&action, args] {
    action = [args] {
      check_database_path(args->out);
      std::vector<OutputInput> protect;
      for (const auto& path : args->inputs) {
        check_database_path(path);
        protect.push_back({path, "the input database", true});
      }
      refuse_if_input(args->out, protect, "the database to merge into");
      // Open (and so check) every input before the output is touched.
      std::vector<std::unique_ptr<Store>> inputs;
      for (const auto& path : args->inputs)
        inputs.push_back(std::make_unique<Store>(path, Store::Mode::read_only));
      ImportSummary summary;
      Store::write_into(args->out, [&](Store& out) {
        size_t input = 0, next = 0;
        std::vector<std::string> ids = inputs[0]->run_ids();
        summary = out.import_runs(
            [&](RunRecord& run, std::string& source) {
              while (next == ids.size()) { // one run in memory at a time
                if (++input == inputs.size())
                  return false;
                ids = inputs[input]->run_ids();
                next = 0;
              }
              run = inputs[input]->read_run(ids[next++]);
              source = args->inputs[input];
              return true;
            },
            on_conflict_words.at(args->on_conflict));
      });
      report_import(summary, "merged", args->out);
      return exit_ok;
    };
  });
}

} // namespace apod::cli
