// apod report: stored runs as one self-contained HTML page, or as markdown tables.
#include "commands.hpp"
#include "core/catalog.hpp"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/limits.hpp"
#include "core/output_file.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "core/vocabulary.hpp"
#include "report.hpp"
#include "store/store.hpp"
#include "version.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace apod::cli {

void add_report(CLI::App& app, Action& action) {
  struct Args {
    std::string db = "apod.db", out, prices, format = "html";
    std::vector<std::string> runs;
    bool plain_data = false;
  };
  auto args = std::make_shared<Args>();
  auto* report = app.add_subcommand(
      "report", "render the stored runs as one self-contained HTML page (or markdown tables)");
  report->add_option("--db", args->db, "SQLite database to read")->capture_default_str();
  report->add_option("--out", args->out,
                     "file to write (default: apod-report.html; markdown: standard output; - for "
                     "standard output)");
  report->add_option("--run", args->runs, "runs to include (id or unique prefix; default: all)");
  report->add_option("--prices", args->prices,
                     "JSON file of device model -> price in USD, e.g. {\"NVIDIA H200\": 32000}, "
                     "or {\"NVIDIA H200\": {\"usd\": 32000, \"board_power_w\": 700}}: adds "
                     "per $ figures to the buyer's comparison (a board power is shown as stated, "
                     "never as measured)");
  report
      ->add_option("--format", args->format,
                   "html: one self-contained page; markdown: nvbench-style tables for a terminal "
                   "or a CI summary")
      ->check(CLI::IsMember({"html", "markdown"}))
      ->capture_default_str();
  report->add_flag("--plain-data", args->plain_data,
                   "html: write the chart specs, the history's data, the folded tables and the "
                   "Vega libraries as plain text instead of deflated and base64-encoded (a page "
                   "about 3x larger, for reading its source or diffing two pages)");
  report->callback([&action, args] {
    action = [args] {
      check_database_path(args->db);
      std::vector<OutputInput> inputs = {{args->db, "the database", true}};
      if (!args->prices.empty())
        inputs.push_back({args->prices, "the prices file", false});
      const bool markdown = args->format == "markdown";
      const std::string out_path = !args->out.empty() ? args->out
                                   : markdown         ? "-"
                                                      : "apod-report.html";
      OutputFile out(out_path, inputs); // checked before any work
      // The prices first: a bad file is the user's to fix (exit 2) before any database is opened.
      report::RenderOptions options;
      options.packed = !args->plain_data; // report/pack.hpp
      if (!args->prices.empty()) {
        report::PriceFile file = report::load_price_file(args->prices);
        options.prices = std::move(file.prices);
        options.board_power_w = std::move(file.board_power_w);
      }
      Store store(args->db, Store::Mode::read_only);
      options.baseline_run = store.setting(settings::baseline_run).value_or("");
      // Runs as the store reads them: no apod-results document in between (1000 runs,
      // docs/performance.md).
      const std::vector<RunRecord> runs = store.read_runs(args->runs);
      const std::string text =
          markdown ? report::render_markdown(runs, catalog_json(), options)
                   : report::render_html(runs, catalog_json(), report::reference_figures(), options,
                                         std::string("apod ") + APOD_VERSION);
      if (text.size() > limits::max_report_bytes)
        throw InputError(
            fmt::format("the report would be {} MiB, more than the {} MiB apod writes; "
                        "choose fewer runs with --run",
                        text.size() / limits::MiB, limits::max_report_bytes / limits::MiB));
      out.write(text);
      out.commit();
      if (out_path != "-")
        std::cerr << fmt::format("wrote {} ({} run(s), {:.1f} KiB)\n", terminal_text(out_path),
                                 runs.size(), text.size() / 1024.0);
      return exit_ok;
    };
  });
}

} // namespace apod::cli
