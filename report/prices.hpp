// `apod report --prices FILE`: device model -> price in USD, for the per-dollar view.
#pragma once

#include "options.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace apod::report {

/// Checks a prices document: an object of device model -> a price in US dollars from 0.01 to
/// 1e8 (prices.cpp says why).
/// Throws apod::InputError (exit code 2) naming `origin` and the offending entry otherwise.
Prices parse_prices(const nlohmann::ordered_json& document, const std::string& origin = "prices");

/// Reads and checks the prices file at `path`; apod::InputError when it cannot be read, is not
/// JSON, or fails parse_prices.
Prices load_prices(const std::string& path);

} // namespace apod::report
