// CLI11's parse errors reworded: CLI11 says "The following argument was not expected: --frob"
// or "A subcommand is required" without naming the command or, for an unknown command, the
// word; apod names both and suggests what was probably meant.
#include "usage_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>

namespace apod::cli {

namespace {

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbouring characters, each one edit.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// The chain of subcommands the arguments chose, outermost first ("baseline", "set").
std::vector<const CLI::App*> chosen_commands(const CLI::App& app) {
  std::vector<const CLI::App*> chain;
  for (const CLI::App* at = &app;;) {
    const auto chosen = at->get_subcommands();
    if (chosen.empty())
      return chain;
    at = chosen.front();
    chain.push_back(at);
  }
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const auto& name : opt->get_lnames())
      names.push_back("--" + name);
    for (const auto& name : opt->get_snames())
      names.push_back("-" + name);
  }
  return names;
}

std::string join(const std::vector<std::string>& words) {
  return fmt::format("{}", fmt::join(words, ", "));
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string near = nearest(word, candidates);
  return near.empty() ? "" : "; did you mean '" + near + "'?";
}

/// "an unknown option '--frob'" or "an unknown command 'frob'", with the nearest of its kind;
/// "" when `extras` (the words nobody took) is empty.
std::string unknown_word(const CLI::App& at, const std::vector<std::string>& extras) {
  if (extras.empty())
    return "";
  const std::string& first = extras.front();
  std::string message;
  if (first.size() > 1 && first[0] == '-') {
    const std::string option = first.substr(0, first.find('='));
    message = "unknown option '" + option + "'" + did_you_mean(option, option_names(at));
  } else if (!subcommand_names(at).empty()) { // what follows was meant for that command
    return "unknown command '" + first + "'" + did_you_mean(first, subcommand_names(at));
  } else {
    message = "unexpected argument '" + first + "'";
  }
  if (extras.size() > 1)
    message += fmt::format(" (and {} more: {})", extras.size() - 1,
                           join(std::vector<std::string>(extras.begin() + 1, extras.end())));
  return message;
}

/// How an option's value should look, from CLI11's type name ("INT", "FLOAT", "TEXT").
std::string expected_value(const CLI::App& at, const std::string& name) {
  const CLI::Option* opt = at.get_option_no_throw(name);
  const std::string type = opt ? opt->get_type_name() : "";
  if (type == "INT")
    return "a whole number";
  if (type == "UINT")
    return "a whole number, 0 or more";
  if (type == "FLOAT")
    return "a number";
  return type.empty() ? "another value" : "a value of type " + type;
}

std::string number_text(const std::string& number) {
  return fmt::format("{:g}", std::strtod(number.c_str(), nullptr));
}

/// CLI11's message in apod's words where CLI11's names neither the word nor what was wanted.
std::string reworded(const CLI::App& at, const CLI::ParseError& e) {
  std::string message = e.what();
  std::replace(message.begin(), message.end(), '\n', ' ');
  std::smatch m;
  const bool conversion = dynamic_cast<const CLI::ConversionError*>(&e) != nullptr;
  if (conversion && std::regex_match(message, m, std::regex("Could not convert: (\\S+) = (.*)")))
    return fmt::format("{} expects {}, not '{}'", m[1].str(), expected_value(at, m[1].str()),
                       m[2].str());
  if (conversion &&
      std::regex_match(message, m, std::regex("The value (.*) is not an allowed value for (\\S+)")))
    return fmt::format("{}: '{}' is not an allowed value", m[2].str(), m[1].str());
  if (std::regex_match(message, m, std::regex("(\\S+): Value (.*) not in range (\\S+) to (\\S+)")))
    return std::strtod(m[4].str().c_str(), nullptr) > 1e300
               ? fmt::format("{} must be at least {}, not {}", m[1].str(), number_text(m[3].str()),
                             m[2].str())
               : fmt::format("{} must be between {} and {}, not {}", m[1].str(),
                             number_text(m[3].str()), number_text(m[4].str()), m[2].str());
  if (std::regex_match(message, m, std::regex("(\\S+): (.*) not in \\{(.*)\\}")))
    return fmt::format("{}: '{}' is not one of {}", m[1].str(), m[2].str(),
                       std::regex_replace(m[3].str(), std::regex(","), ", "));
  if (std::regex_match(message, m, std::regex("(\\S+): 1 required \\S+ missing")))
    return m[1].str() + " needs a value";
  if (std::regex_match(message, m, std::regex("(\\S+): (\\d+) required \\S+ missing")))
    return fmt::format("{} needs {} values", m[1].str(), m[2].str());
  if (message.size() > 1 && std::isupper(static_cast<unsigned char>(message[0])) &&
      std::islower(static_cast<unsigned char>(message[1])))
    message[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(message[0])));
  return message;
}

} // namespace

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  const size_t allowed = std::max<size_t>(word.size() / 3, word.size() >= 4 ? 2 : 1);
  std::string best;
  size_t best_distance = allowed + 1;
  std::vector<std::string> extending; // candidates that begin with `word`
  for (const auto& c : candidates) {
    if (c == word)
      continue;
    if (!word.empty() && c.rfind(word, 0) == 0)
      extending.push_back(c);
    const size_t d = edit_distance(word, c);
    if (d < best_distance && d < word.size() && d < c.size()) {
      best = c;
      best_distance = d;
    }
  }
  if (best.empty() && extending.size() == 1 && word.find_first_not_of('-') != std::string::npos)
    return extending.front();
  return best;
}

std::string short_usage(const CLI::App& app) {
  size_t width = 0;
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* sub : subs)
    width = std::max(width, sub->get_name().size());
  std::string out = "usage: apod COMMAND [OPTIONS]\n\ncommands:\n";
  for (const CLI::App* sub : subs)
    out += fmt::format("  {:<{}}  {}\n", sub->get_name(), width, sub->get_description());
  return out +
         "\nrun 'apod COMMAND --help' for a command's options, 'apod --version' for the version";
}

UsageError describe_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  const auto chain = chosen_commands(app);
  const CLI::App& at = chain.empty() ? app : *chain.back();
  std::string command; // "baseline set"
  for (const CLI::App* sub : chain)
    command += (command.empty() ? "" : " ") + sub->get_name();
  const bool has_commands = !subcommand_names(at).empty();
  UsageError out;
  out.hint = fmt::format("run 'apod{}{} --help' for {}", command.empty() ? "" : " ", command,
                         has_commands ? "the commands" : "the options");
  const std::string prefix = command.empty() ? "" : command + ": ";
  // The words nobody took come first: with a command missing, CLI11 reports only the missing
  // command, although the word it could not place ("apod frobnicate") is the actual mistake.
  const std::string unknown = unknown_word(at, at.remaining(false));
  if (!unknown.empty()) {
    out.message = prefix + unknown;
  } else if (dynamic_cast<const CLI::RequiredError*>(&e) &&
             std::string(e.what()) == "A subcommand is required") {
    if (chain.empty()) // apod alone: what it can do
      return {"a command is required", short_usage(app)};
    out.message = prefix + "a command is required: " + join(subcommand_names(at));
  } else {
    out.message = prefix + reworded(at, e);
  }
  return out;
}

} // namespace apod::cli
