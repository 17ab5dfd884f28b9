// The subcommands of apod's command line, one file each (or per group). Each add_* registers
// its subcommand on the app and, when that subcommand is chosen, sets `action` to the work it
// does; main.cpp runs the action and turns exceptions into exit codes (errors.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace apod::cli {

/// The chosen subcommand's work; returns the process exit code.
using Action = std::function<int()>;

void add_run(CLI::App& app, Action& action);      // cmd_run.cpp
void add_device(CLI::App& app, Action& action);   // cmd_device.cpp
void add_report(CLI::App& app, Action& action);   // cmd_report.cpp
void add_list(CLI::App& app, Action& action);     // cmd_store.cpp
void add_export(CLI::App& app, Action& action);   // cmd_store.cpp
void add_import(CLI::App& app, Action& action);   // cmd_store.cpp
void add_merge(CLI::App& app, Action& action);    // cmd_store.cpp
void add_compare(CLI::App& app, Action& action);  // cmd_compare.cpp
void add_baseline(CLI::App& app, Action& action); // cmd_compare.cpp
void add_confirm(CLI::App& app, Action& action);  // cmd_compare.cpp

} // namespace apod::cli
