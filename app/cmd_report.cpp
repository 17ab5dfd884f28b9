// apod report: stored runs as one self-contained HTML page.
#include "commands.hpp"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/limits.hpp"
#include "core/output_file.hpp"
#include "core/text.hpp"
#include "report.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace apod::cli {

void add_report(CLI::App& app, Action& action) {
  struct Args {
    std::string db = "apod.db", out = "apod-report.html", prices;
    std::vector<std::string> runs;
  };
  auto args = std::make_shared<Args>();
  auto* report =
      app.add_subcommand("report", "render the stored runs as one self-contained HTML page");
  report->add_option("--db", args->db, "SQLite database to read")->capture_default_str();
  report->add_option("--out", args->out, "HTML file to write")->capture_default_str();
  report->add_option("--run", args->runs, "runs to include (id or unique prefix; default: all)");
  report->add_option("--prices", args->prices,
                     "JSON file of device model -> price in USD, e.g. {\"NVIDIA H200\": 32000}: "
                     "adds GB/s per $1000 "
                     "to the hardware comparison");
  report->callback([&action, args] {
    action = [args] {
      check_database_path(args->db);
      std::vector<OutputInput> inputs = {{args->db, "the database", true}};
      if (!args->prices.empty())
        inputs.push_back({args->prices, "the prices file", false});
      OutputFile out(args->out, inputs); // checked before any work
      // The prices first: a bad file is the user's to fix (exit 2) before any database is opened.
      report::RenderOptions options;
      if (!args->prices.empty())
        options.prices = report::load_prices(args->prices);
      Store store(args->db, Store::Mode::read_only);
      const json results = store.export_results(args->runs);
      const std::string html =
          report::render_html(results, experiment_catalog(), report::reference_figures(), options);
      if (html.size() > limits::max_report_bytes)
        throw InputError(
            fmt::format("the report would be {} MiB, more than the {} MiB apod writes; "
                        "choose fewer runs with --run",
                        html.size() / limits::MiB, limits::max_report_bytes / limits::MiB));
      out.write(html);
      out.commit();
      std::cerr << fmt::format("wrote {} ({} run(s), {:.1f} KiB)\n", terminal_text(args->out),
                               results["runs"].size(), html.size() / 1024.0);
      return exit_ok;
    };
  });
}

} // namespace apod::cli
