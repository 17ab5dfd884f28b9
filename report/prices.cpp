// `apod report --prices FILE`: device model -> price in USD, for the per-dollar view.
#include "prices.hpp"

#include "core/errors.hpp" // apod::InputError: exit code 2
#include "core/input_file.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace apod::report {

namespace {
// The plausible prices, in US dollars: from a cent (an hourly rental rate) to a hundred million
// (a whole cluster). A figure outside is a typo or an attack, and would print as "$0" or as a
// number of hundreds of digits; it is refused, saying the range.
constexpr double min_price_usd = 0.01, max_price_usd = 1e8;
constexpr const char* expected_shape =
    "expected a JSON object mapping each device model to its price in US dollars, e.g. "
    "{\"NVIDIA H200\": 32000}";
} // namespace

Prices parse_prices(const nlohmann::ordered_json& document, const std::string& origin) {
  if (!document.is_object())
    throw apod::InputError(fmt::format("{}: {}", origin, expected_shape));
  Prices prices;
  for (const auto& [model, price] : document.items()) {
    if (model.empty())
      throw apod::InputError(
          fmt::format("{}: a device model is empty; {}", origin, expected_shape));
    if (!price.is_number() || !std::isfinite(price.get<double>()) || price.get<double>() <= 0) {
      // The offending value as JSON, cut short: a message stays one readable line.
      std::string shown =
          price.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      if (shown.size() > 60)
        shown = std::string(apod::text_prefix(shown, 57)) + "...";
      throw apod::InputError(
          fmt::format("{}: the price of {} is {}, not a positive number of US dollars; {}", origin,
                      nlohmann::ordered_json(model).dump(
                          -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
                      shown, expected_shape));
    }
    if (price.get<double>() < min_price_usd || price.get<double>() > max_price_usd)
      throw apod::InputError(fmt::format(
          "{}: the price of {} is {:g} US dollars, outside the plausible range {} to {:.0f}",
          origin,
          nlohmann::ordered_json(model).dump(-1, ' ', false,
                                             nlohmann::ordered_json::error_handler_t::replace),
          price.get<double>(), min_price_usd, max_price_usd));
    prices.emplace_back(model, price.get<double>());
  }
  return prices;
}

// Bounded before parsing (limits.hpp: 1 MiB, nesting 4): a deeply nested file once overflowed
// the stack while its error message was formatted.
Prices load_prices(const std::string& path) {
  return parse_prices(apod::read_json_file(path, apod::limits::prices), "--prices " + path);
}

} // namespace apod::report
