// `apod report --prices FILE`: device model -> price in USD, for the per-dollar view, and the
// board power a buyer was quoted.
#include "prices.hpp"

#include "core/errors.hpp" // apod::InputError: exit code 2
#include "core/input_file.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace apod::report {

namespace {
using ojson = nlohmann::ordered_json;

// The plausible prices, in US dollars: from a cent (an hourly rental rate) to a hundred million
// (a whole cluster). A figure outside is a typo or an attack, and would print as "$0" or as a
// number of hundreds of digits; it is refused, saying the range.
constexpr double min_price_usd = 0.01, max_price_usd = 1e8;
// Board powers, in watts: a card's rated power is tens to a thousand watts; a whole node some
// thousands. Anything outside is a typo (kW written as W, or the reverse).
constexpr double min_board_w = 1, max_board_w = 1e5;
constexpr const char* expected_shape =
    "expected a JSON object mapping each device model to its price in US dollars, e.g. "
    "{\"NVIDIA H200\": 32000}, or to {\"usd\": 32000, \"board_power_w\": 700}";

std::string quoted(const std::string& text) {
  return ojson(text).dump(-1, ' ', false, ojson::error_handler_t::replace);
}

// The offending value as JSON, cut short: a message stays one readable line.
std::string shown(const ojson& value) {
  std::string text = value.dump(-1, ' ', false, ojson::error_handler_t::replace);
  if (text.size() > 60)
    text = std::string(apod::text_prefix(text, 57)) + "...";
  return text;
}

// A positive number within [low, high], or one InputError sentence naming the entry.
double checked(const ojson& value, const std::string& origin, const std::string& what,
               const char* unit, double low, double high) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0)
    throw apod::InputError(fmt::format("{}: {} is {}, not a positive number of {}; {}", origin,
                                       what, shown(value), unit, expected_shape));
  const double number = value.get<double>();
  if (number < low || number > high)
    throw apod::InputError(
        fmt::format("{}: {} is {:g} {}, outside the plausible range {:g} to {:.0f}", origin, what,
                    number, unit, low, high));
  return number;
}
} // namespace

PriceFile parse_price_file(const ojson& document, const std::string& origin) {
  if (!document.is_object())
    throw apod::InputError(fmt::format("{}: {}", origin, expected_shape));
  PriceFile file;
  for (const auto& [model, entry] : document.items()) {
    if (model.empty())
      throw apod::InputError(
          fmt::format("{}: a device model is empty; {}", origin, expected_shape));
    const std::string price_of = "the price of " + quoted(model);
    if (!entry.is_object()) {
      file.prices.emplace_back(
          model, checked(entry, origin, price_of, "US dollars", min_price_usd, max_price_usd));
      continue;
    }
    if (entry.empty())
      throw apod::InputError(
          fmt::format("{}: the entry of {} is empty; {}", origin, quoted(model), expected_shape));
    for (const auto& [field, value] : entry.items()) {
      if (field == "usd")
        file.prices.emplace_back(
            model, checked(value, origin, price_of, "US dollars", min_price_usd, max_price_usd));
      else if (field == "board_power_w")
        file.board_power_w.emplace_back(model, checked(value, origin,
                                                       "the board power of " + quoted(model),
                                                       "watts", min_board_w, max_board_w));
      else
        throw apod::InputError(fmt::format("{}: the entry of {} has an unknown field {}; {}",
                                           origin, quoted(model), quoted(field), expected_shape));
    }
  }
  return file;
}

Prices parse_prices(const ojson& document, const std::string& origin) {
  return parse_price_file(document, origin).prices;
}

// Bounded before parsing (limits.hpp: 1 MiB, nesting 4): a deeply nested file once overflowed
// the stack while its error message was formatted.
PriceFile load_price_file(const std::string& path) {
  return parse_price_file(apod::read_json_file(path, apod::limits::prices), "--prices " + path);
}

Prices load_prices(const std::string& path) {
  return load_price_file(path).prices;
}

} // namespace apod::report
