#include "core/vocabulary.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod {

const char* limit_name(LimitKind kind) {
  switch (kind) {
  case LimitKind::dram:
    return "dram";
  case LimitKind::pcie:
    return "pcie";
  case LimitKind::none:
    break;
  }
  return "none";
}

const char* limit_phrase(LimitKind kind) {
  switch (kind) {
  case LimitKind::dram:
    return "theoretical DRAM bandwidth";
  case LimitKind::pcie:
    return "PCIe line rate per direction";
  case LimitKind::none:
    break;
  }
  return "no limit";
}

const char* limit_word(LimitKind kind) {
  switch (kind) {
  case LimitKind::dram:
    return "DRAM";
  case LimitKind::pcie:
    return "PCIe";
  case LimitKind::none:
    break;
  }
  return "";
}

std::optional<LimitKind> find_limit(const std::string& name) {
  for (LimitKind k : {LimitKind::none, LimitKind::dram, LimitKind::pcie})
    if (name == limit_name(k))
      return k;
  return std::nullopt;
}

LimitKind limit_from_name(const std::string& name) {
  if (const auto kind = find_limit(name))
    return *kind;
  throw InputError(fmt::format("unknown limit '{}' (known: none, dram, pcie)", name));
}

std::optional<double> limit_gbs(LimitKind kind, const DeviceInfo& device, const std::string& unit,
                                const json& extra) {
  if (unit != "GB/s")
    return std::nullopt;
  if (extra.is_object() && extra.contains(keys::limit_gbs) && extra[keys::limit_gbs].is_number()) {
    const double own = extra[keys::limit_gbs].get<double>();
    return own > 0 ? std::optional<double>(own) : std::nullopt;
  }
  switch (kind) {
  case LimitKind::dram:
    return device.theoretical_bandwidth_gbs() > 0
               ? std::optional<double>(device.theoretical_bandwidth_gbs())
               : std::nullopt;
  case LimitKind::pcie:
    return device.theoretical_pcie_gbs();
  case LimitKind::none:
    break;
  }
  return std::nullopt;
}

std::string limit_words(LimitKind kind, const json& extra) {
  if (extra.is_object() && extra.contains(keys::limit_gbs) && extra[keys::limit_gbs].is_number())
    return extra.contains(keys::limit_label) && extra[keys::limit_label].is_string()
               ? extra[keys::limit_label].get<std::string>()
               : own_limit_phrase;
  return limit_phrase(kind);
}

std::optional<double> percent_of(double value, std::optional<double> limit) {
  if (!limit || !(*limit > 0))
    return std::nullopt;
  return 100.0 * value / *limit;
}

std::string ci_label(int n) {
  return n >= 6 ? "95% CI of the median" : "range (min – max; too few samples for a 95% CI)";
}

} // namespace apod
