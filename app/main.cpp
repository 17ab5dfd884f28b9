// apod's command line: registers the subcommands (runner/cli/), runs the chosen one, and turns
// every error into a one-line message on stderr and a documented exit code (errors.hpp).
#include "commands.hpp"
#include "core/errors.hpp"
#include "core/text.hpp"
#include "version.hpp"

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"apod: measures what an NVIDIA GPU delivers against what it should deliver, and "
               "keeps the evidence"};
  app.set_version_flag("--version",
                       std::string("apod ") + APOD_VERSION + " (" + APOD_GIT_DESCRIBE + ")");
  app.require_subcommand(1);

  apod::cli::Action action;
  apod::cli::add_run(app, action);
  apod::cli::add_report(app, action);
  apod::cli::add_list(app, action);
  apod::cli::add_device(app, action);
  apod::cli::add_export(app, action);
  apod::cli::add_import(app, action);
  apod::cli::add_merge(app, action);
  apod::cli::add_compare(app, action);
  apod::cli::add_baseline(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return apod::exit_usage;
  }

  try {
    return action ? action() : apod::exit_usage;
  } catch (const std::exception& e) {
    const apod::ExitReport report = apod::exit_report(e);
    // A message may quote a file's bytes or a stored name: no escape sequence reaches the terminal.
    std::cerr << "apod: error: " << apod::terminal_text(report.message) << "\n";
    return report.code;
  } catch (...) {
    std::cerr << "apod: error: internal error: an exception of unknown type\n";
    return apod::exit_internal;
  }
}
