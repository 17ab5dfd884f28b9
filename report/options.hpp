// What the caller adds to the results: the prices of device models and the pinned baseline.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace apod::report {

/// Device model (the device's `name`, e.g. "NVIDIA H200") -> price in US dollars, in file order.
using Prices = std::vector<std::pair<std::string, double>>;
/// Device model -> board power in watts as the prices file states it (a rated figure, never a
/// measured one: the report shows it as such and never divides by it), in file order.
using BoardPowers = std::vector<std::pair<std::string, double>>;

/// What the caller adds to the results.
struct RenderOptions {
  /// Prices for the hardware comparison's GB/s per $1000 (`apod report --prices`); may be empty.
  Prices prices;
  /// Board powers from the same file (report/prices.hpp); may be empty.
  BoardPowers board_power_w;
  /// The id of the pinned baseline run (the store's baseline_run setting, `apod baseline set`):
  /// the first screen and the history judge the newest run of its device model against it.
  /// Empty: none pinned.
  std::string baseline_run;
  /// Pack the page's bulk (report/pack.hpp): the chart specs, the history's data, folded value
  /// tables and the Vega libraries deflated and base64-encoded, inflated by the page's scripts.
  /// `apod report` packs unless --plain-data; the library's default is the plain page, which the
  /// unit tests read.
  bool packed = false;
};

} // namespace apod::report
