// apod's command line: registers the subcommands (runner/cli/), runs the chosen one, and turns
// every error into a one-line message on stderr and a documented exit code (errors.hpp).
#include "commands.hpp"
#include "core/errors.hpp"
#include "core/stdout.hpp"
#include "core/temp_files.hpp"
#include "core/text.hpp"
#include "usage_errors.hpp"
#include "version.hpp"

#include <csignal>
#include <iostream>

namespace {

void print_error(const std::string& message) {
  // A message may quote a file's bytes or a stored name: no escape sequence reaches the terminal.
  std::cerr << "apod: error: " << apod::terminal_text(message) << "\n";
}

int run_command(int argc, char** argv) {
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
  apod::cli::add_confirm(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the command and the word, through terminal_text like every other message
    // (a word may be a stored name a script passed on), then where to read more.
    const apod::cli::UsageError usage = apod::cli::describe_parse_error(app, e);
    print_error(usage.message);
    std::cerr << usage.hint << "\n";
    return apod::exit_usage;
  }

  try {
    return action ? action() : apod::exit_usage;
  } catch (const std::exception& e) {
    const apod::ExitReport report = apod::exit_report(e);
    print_error(report.message);
    return report.code;
  } catch (...) {
    print_error("internal error: an exception of unknown type");
    return apod::exit_internal;
  }
}

} // namespace

int main(int argc, char** argv) {
  // A write past `ulimit -f` would kill apod with SIGXFSZ, leaving a temporary file and no
  // message; ignored, the write fails with EFBIG, which the output and the store report
  // ("the disk is full or a file-size limit was reached") and clean up after (issue 19).
  std::signal(SIGXFSZ, SIG_IGN);
  // SIGINT, SIGTERM, SIGHUP...: temporary files removed, then the signal's own death.
  apod::install_temp_file_cleanup();
  apod::CheckedStdout out; // every result printed on std::cout, checked once at the end
  const int code = run_command(argc, argv);
  try {
    out.finish();
  } catch (const apod::InputError& e) {
    print_error(e.what());
    // A lost output fails a command that had succeeded (0) or whose verdict it carried (1, a
    // regression; 7, inconclusive); an earlier failure's own code (3 to 6) is kept.
    const bool failed_before = code >= apod::exit_no_device && code <= apod::exit_resources;
    return failed_before ? code : apod::exit_usage;
  }
  return code;
}
