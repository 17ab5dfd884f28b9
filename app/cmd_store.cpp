// apod list, export, import: reading and writing the store.
#include "commands.hpp"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/results_json.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace apod::cli {

void add_list(CLI::App& app, Action& action) {
  struct Args { std::string db = "apod.db"; bool runs = false; };
  auto args = std::make_shared<Args>();
  auto* list = app.add_subcommand("list", "list the experiments of the matrix, or with --runs the stored runs");
  list->add_flag("--runs", args->runs, "list the runs stored in --db instead");
  list->add_option("--db", args->db, "SQLite database to read (with --runs)")->capture_default_str();
  list->callback([&action, args] {
    action = [args] {
      if (!args->runs) {
        for (const auto& e : experiments())
          if (!e.hidden) std::cout << fmt::format("{:<18} v{}  {}\n", e.name, e.version, e.title);
        return exit_ok;
      }
      Store store(args->db, Store::Mode::read_only);
      constexpr const char* row_format = "{:<32}  {:<24}  {:<11}  {:>6}  {:<20}  {}\n";
      const auto row = fmt::runtime(row_format);
      std::cout << fmt::format(row, "id", "started", "status", "points", "device", "label");
      for (const auto& r : store.list_runs())
        std::cout << fmt::format(row, r.id, r.started_at, r.status, r.measurements, r.device_name, r.label);
      return exit_ok;
    };
  });
}

void add_export(CLI::App& app, Action& action) {
  struct Args { std::string db = "apod.db", format = "json", out = "-"; std::vector<std::string> runs; };
  auto args = std::make_shared<Args>();
  auto* exp = app.add_subcommand("export", "write stored runs as an apod-results JSON document");
  exp->add_option("--db", args->db, "SQLite database to read")->capture_default_str();
  exp->add_option("--format", args->format, "output format")->check(CLI::IsMember({"json"}))->capture_default_str();
  exp->add_option("--out", args->out, "file to write, - for stdout")->capture_default_str();
  exp->add_option("--run", args->runs, "runs to export (id or unique prefix; default: all)");
  exp->callback([&action, args] {
    action = [args] {
      Store store(args->db, Store::Mode::read_only);
      const std::string text = store.export_results(args->runs).dump(2) + "\n";
      if (args->out == "-")
        std::cout << text;
      else
        write_file_atomically(args->out, text);
      return exit_ok;
    };
  });
}

void add_import(CLI::App& app, Action& action) {
  struct Args { std::string db = "apod.db"; std::vector<std::string> files; };
  auto args = std::make_shared<Args>();
  auto* imp = app.add_subcommand("import", "add the runs of apod-results JSON files to a database");
  imp->add_option("--db", args->db, "SQLite database to add to (created if missing)")->capture_default_str();
  imp->add_option("files", args->files, "apod-results JSON files")->required()->check(CLI::ExistingFile);
  imp->callback([&action, args] {
    action = [args] {
      std::vector<RunRecord> runs;  // read and check every file before the database is touched
      for (const auto& f : args->files)
        for (RunRecord& r : runs_from_document(read_results_file(f))) runs.push_back(std::move(r));
      Store store(args->db, Store::Mode::read_write_create);
      int added = 0, skipped = 0;
      for (const auto& r : runs) (store.import_run(r) ? added : skipped)++;
      std::cerr << fmt::format("imported {} run(s) into {}; {} already present\n", added, args->db, skipped);
      return exit_ok;
    };
  });
}

void add_merge(CLI::App& app, Action& action) {
  struct Args { std::string out; std::vector<std::string> inputs; };
  auto args = std::make_shared<Args>();
  auto* merge = app.add_subcommand("merge", "combine the runs of several databases into one (idempotent, keyed by run id)");
  merge->add_option("out", args->out, "database to merge into (created if missing)")->required();
  merge->add_option("inputs", args->inputs, "databases to read")->required()->check(CLI::ExistingFile);
  merge->callback([&action, args] {
    action = [args] {
      // Open (and so check) every input before the output is touched.
      std::vector<std::unique_ptr<Store>> inputs;
      for (const auto& path : args->inputs) inputs.push_back(std::make_unique<Store>(path, Store::Mode::read_only));
      Store out(args->out, Store::Mode::read_write_create);
      int added = 0, skipped = 0;
      for (auto& in : inputs)
        for (const RunRecord& run : in->read_runs()) (out.import_run(run) ? added : skipped)++;
      std::cerr << fmt::format("merged {} run(s) into {}; {} already present\n", added, args->out, skipped);
      return exit_ok;
    };
  });
}

}  // namespace apod::cli
