// `apod report --prices FILE`: device model -> price in USD, for the per-dollar view.
#include "report.hpp"

#include "core/errors.hpp" // apod::InputError: exit code 2

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace apod::report {

namespace {
constexpr const char* expected_shape =
    "expected a JSON object mapping each device model to its price in US dollars, e.g. "
    "{\"NVIDIA H200\": 32000}";
}

Prices parse_prices(const nlohmann::ordered_json& document, const std::string& origin) {
  if (!document.is_object())
    throw apod::InputError(fmt::format("{}: {}", origin, expected_shape));
  Prices prices;
  for (const auto& [model, price] : document.items()) {
    if (model.empty())
      throw apod::InputError(
          fmt::format("{}: a device model is empty; {}", origin, expected_shape));
    if (!price.is_number() || !std::isfinite(price.get<double>()) || price.get<double>() <= 0)
      throw apod::InputError(
          fmt::format("{}: the price of \"{}\" is {}, not a positive number of "
                      "US dollars; {}",
                      origin, model,
                      price.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
                      expected_shape));
    prices.emplace_back(model, price.get<double>());
  }
  return prices;
}

Prices load_prices(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw apod::InputError(fmt::format("--prices {}: cannot read the file", path));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json document;
  try {
    document = nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::ordered_json::parse_error& error) {
    throw apod::InputError(fmt::format("--prices {}: not valid JSON ({})", path, error.what()));
  }
  return parse_prices(document, "--prices " + path);
}

} // namespace apod::report
