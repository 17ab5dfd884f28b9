// `apod report --prices FILE`: device model -> price in USD, for the per-dollar view, and
// optionally the board power the buyer was quoted (shown as such, never as a measured power).
#pragma once

#include "options.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace apod::report {

/// What a prices file gives: the prices, and the board powers some entries state.
struct PriceFile {
  Prices prices;
  BoardPowers board_power_w;
};

/// Checks a prices document: an object of device model -> either a price in US dollars from 0.01
/// to 1e8 (prices.cpp says why), or an object {"usd": PRICE, "board_power_w": WATTS} holding
/// either or both (watts from 1 to 100000).
/// Throws apod::InputError (exit code 2), one sentence naming `origin` and the offending entry.
PriceFile parse_price_file(const nlohmann::ordered_json& document,
                           const std::string& origin = "prices");

/// parse_price_file's prices alone.
Prices parse_prices(const nlohmann::ordered_json& document, const std::string& origin = "prices");

/// Reads and checks the prices file at `path`; apod::InputError when it cannot be read, is not
/// JSON, or fails parse_price_file.
PriceFile load_price_file(const std::string& path);

/// load_price_file's prices alone.
Prices load_prices(const std::string& path);

} // namespace apod::report
