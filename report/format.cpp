#include "format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace apod::report {

std::string format_number(double value) {
  if (!std::isfinite(value))
    return "—";
  const double magnitude = std::fabs(value);
  if (magnitude >= 100)
    return fmt::format("{:.1f}", value);
  if (magnitude >= 1)
    return fmt::format("{:.2f}", value);
  if (magnitude == 0)
    return "0";
  return fmt::format("{:.3g}", value); // small values: keep three significant digits
}

std::string format_bytes(double bytes) {
  static constexpr std::array<const char*, 6> units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (!std::isfinite(bytes))
    return "—";
  std::size_t unit = 0;
  double scaled = bytes;
  while (std::fabs(scaled) >= 1024 && unit + 1 < units.size()) {
    scaled /= 1024;
    ++unit;
  }
  // Whole multiples are the common case (buffer sizes are powers of two): no ".0" noise.
  if (scaled == std::floor(scaled))
    return fmt::format("{:.0f} {}", scaled, units[unit]);
  return fmt::format("{:.1f} {}", scaled, units[unit]);
}

namespace {
bool dimensionless(const std::string& unit) {
  return unit.empty() || unit == "1";
}
} // namespace

namespace {
// A rate in a decimal-prefixed unit of operations ("GFLOP/s", "MOP/s") past 1000 of it moves
// up a prefix (issue 25: "63255.6 GFLOP/s" reads as "63.26 TFLOP/s"); bytes per second keep
// their unit, as GPU bandwidths are quoted in GB/s.
std::string scaled_operations(double value, const std::string& unit) {
  static const std::string prefixes = "kMGTPE";
  const auto prefix = unit.empty() ? std::string::npos : prefixes.find(unit[0]);
  if (prefix == std::string::npos ||
      !(unit.compare(1, 4, "FLOP") == 0 || unit.compare(1, 2, "OP") == 0))
    return "";
  std::size_t at = prefix;
  double scaled = value;
  while (std::fabs(scaled) >= 1000 && at + 1 < prefixes.size()) {
    scaled /= 1000;
    ++at;
  }
  if (at == prefix)
    return "";
  return format_number(scaled) + " " + prefixes[at] + unit.substr(1);
}
} // namespace

std::string format_with_unit(double value, const std::string& unit) {
  if (unit == "bytes" || unit == "B")
    return format_bytes(value);
  if (const std::string scaled = scaled_operations(value, unit); !scaled.empty())
    return scaled;
  if (dimensionless(unit))
    return format_number(value);
  if (unit == "%")
    return format_percent(value);
  return format_number(value) + " " + unit;
}

std::string format_range(double low, double high, const std::string& unit) {
  if (dimensionless(unit) || unit == "bytes" || unit == "B" || unit == "%")
    return format_with_unit(low, unit) + " – " + format_with_unit(high, unit);
  // Both ends through format_with_unit, which may move a rate up a prefix (GFLOP/s to
  // TFLOP/s): the unit is written once where both ends have the same, else at each end.
  const std::string lo = format_with_unit(low, unit), hi = format_with_unit(high, unit);
  const std::size_t lo_space = lo.rfind(' '), hi_space = hi.rfind(' ');
  if (lo_space != std::string::npos && hi_space != std::string::npos &&
      lo.compare(lo_space, std::string::npos, hi, hi_space, std::string::npos) == 0)
    return lo.substr(0, lo_space) + " – " + hi;
  return lo + " – " + hi;
}

std::string format_percent(double percent) {
  if (!std::isfinite(percent))
    return "—";
  return fmt::format("{:.1f} %", percent);
}

namespace {
bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
} // namespace

std::string format_count(double count, const std::string& unit) {
  const char* prefixes[] = {"Gi", "Mi", "Ki"};
  double scale = 1073741824;
  for (const char* prefix : prefixes) {
    if (count >= scale && std::fmod(count, scale) == 0)
      return fmt::format("{:.0f} {} {}", count / scale, prefix, unit);
    scale /= 1024;
  }
  return (std::fmod(count, 1) == 0 ? fmt::format("{:.0f}", count) : format_number(count)) + " " +
         unit;
}

std::string format_param_value(const std::string& key, const json& value) {
  if (value.is_string())
    return value.get<std::string>();
  if (value.is_number() && (ends_with(key, "_bytes") || key == "bytes"))
    return format_bytes(value.get<double>());
  if (value.is_null())
    return "—";
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string display_name(const std::string& identifier) {
  std::string text = identifier;
  std::replace(text.begin(), text.end(), '_', ' ');
  return text;
}

std::string format_params(const json& params) {
  if (!params.is_object() || params.empty())
    return "—";
  std::string text;
  for (const auto& [key, value] : params.items()) {
    if (!text.empty())
      text += ", ";
    text += key + "=" + format_param_value(key, value);
  }
  return text;
}

std::string format_timestamp(const json& iso) {
  if (!iso.is_string())
    return "—";
  const std::string text = iso.get<std::string>();
  // Only the exact shape apod writes is reformatted (so that the cut falls between ASCII digits,
  // never inside a character); anything else is shown verbatim, escaped by its writer.
  const auto digits = [&](std::size_t from, std::size_t n) {
    return std::all_of(text.begin() + from, text.begin() + from + n,
                       [](char c) { return c >= '0' && c <= '9'; });
  };
  if (text.size() < 20 || text[10] != 'T' || text.back() != 'Z' || !digits(0, 4) ||
      text[4] != '-' || !digits(5, 2) || text[7] != '-' || !digits(8, 2) || !digits(11, 2) ||
      text[13] != ':' || !digits(14, 2) || text[16] != ':' || !digits(17, 2))
    return text;
  return text.substr(0, 10) + " " + text.substr(11, 8) + " UTC";
}

std::optional<double> seconds_since_epoch(const std::string& iso) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
  char t = 0;
  if (iso.size() < 20 || iso.back() != 'Z' ||
      std::sscanf(iso.c_str(), "%4d-%2d-%2d%c%2d:%2d:%lf", &year, &month, &day, &t, &hour, &minute,
                  &second) != 7 ||
      t != 'T' || month < 1 || month > 12 || day < 1 || day > 31)
    return std::nullopt;
  // Days from the civil date (H. Hinnant's algorithm): no time zone database, no locale.
  const int y = year - (month <= 2 ? 1 : 0);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int year_of_era = y - era * 400;
  const int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  const double days = era * 146097.0 + day_of_era - 719468;
  return days * 86400 + hour * 3600 + minute * 60 + second;
}

std::string format_date(const std::string& iso) {
  return seconds_since_epoch(iso) ? iso.substr(0, 10) : iso;
}

double round_significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value))
    return value;
  const double scale = std::pow(10.0, digits - 1 - std::floor(std::log10(std::fabs(value))));
  return std::round(value * scale) / scale;
}

std::string format_ratio(double ratio) {
  if (!std::isfinite(ratio))
    return "—";
  return ratio >= 10 ? fmt::format("{:.1f}×", ratio) : fmt::format("{:.2f}×", ratio);
}

std::string format_change(double fraction) {
  if (!std::isfinite(fraction))
    return "—";
  const double percent = 100.0 * fraction;
  return fmt::format("{}{:.1f} %", percent < 0 ? "−" : "+", std::fabs(percent));
}

std::string short_title(const std::string& title) {
  std::size_t cut = std::min(title.find(": "), title.find(" ("));
  return cut == std::string::npos || cut == 0 ? title : title.substr(0, cut);
}

std::string format_cuda_version(const json& version) {
  if (!version.is_number_integer())
    return "—";
  const long long encoded = version.get<long long>(); // major * 1000 + minor * 10
  return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10);
}

std::string string_at(const json& object, const char* key, const std::string& fallback) {
  if (!object.is_object())
    return fallback;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    return fallback;
  return it->get<std::string>();
}

const json& member(const json& object, const char* key) {
  static const json null_json = nullptr;
  if (!object.is_object())
    return null_json;
  const auto it = object.find(key);
  return it == object.end() ? null_json : *it;
}

bool has_number(const json& object, const char* key) {
  if (!object.is_object())
    return false;
  const auto it = object.find(key);
  return it != object.end() && it->is_number();
}

std::string metric_title(const std::string& metric, const std::string& unit) {
  return dimensionless(unit) ? display_name(metric) : display_name(metric) + " (" + unit + ")";
}

} // namespace apod::report
