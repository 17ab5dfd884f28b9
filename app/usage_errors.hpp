// The command line's own errors (CLI11's parse errors) in apod's voice: one line that names the
// command and the offending word, the nearest command or option where one is close, and a line
// saying where to read more. main.cpp prints them after "apod: error: " and exits 2.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace apod::cli {

struct UsageError {
  std::string message; ///< one line, without "apod: error: " (main.cpp escapes and prefixes it)
  std::string hint;    ///< what to run for help; apod alone: the short usage (several lines)
};

/// Rewords CLI11's error `e`, raised while `app` parsed its arguments: "run: unknown option
/// '--frob'; did you mean '--full'?", "unknown command 'reprot'; did you mean 'report'?".
UsageError describe_parse_error(const CLI::App& app, const CLI::ParseError& e);

/// The candidate closest to `word` (optimal string alignment distance: a swap of two neighbours
/// counts one edit), or "" when none is close enough to be what was meant: within a third of the
/// word's length (at least 1, 2 from 4 letters on), or the only candidate `word` begins.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

/// apod's short usage: how to call it and its commands, one line each.
std::string short_usage(const CLI::App& app);

} // namespace apod::cli
