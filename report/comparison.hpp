// The hardware comparison: each device model's headline bandwidth figures side by side, each
// normalised to its own theoretical limit (DRAM for device-memory figures, PCIe for transfers),
// with the source documents' devices (data/reference) for context, and, where prices or power
// telemetry exist, GB/s per $1000 and GB/s per W.
#pragma once

#include "headlines.hpp"
#include "report.hpp"
#include "tables.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report {

/// One headline figure of one device, measured or published.
struct DeviceFigure {
  std::string figure; ///< "Misaligned copy: effective bandwidth"
  std::string device;
  std::string source; ///< "measured, 12 runs" or the publication
  std::string point;  ///< the parameters
  bool published = false;
  double gbs = 0;
  LimitKind limit = LimitKind::none;
  std::optional<double> pct_of_limit;
  std::optional<double> gbs_per_kusd; ///< GB/s per $1000 of the device's price
  std::optional<double> gbs_per_w;    ///< median over runs of GB/s / the run's median power
};

/// The figures of the comparison: every measured GB/s headline series with a limit, and the best
/// published GB/s figure of each reference device per experiment and metric, for the experiments
/// in `page`.
std::vector<DeviceFigure> device_figures(const PageModel& page,
                                         const std::vector<HeadlineSeries>& headlines,
                                         const std::vector<const json*>& published,
                                         const json& catalog, const Prices& prices);

/// The section's data, or false unless the results cover several device models or prices were
/// given.
mustache::data comparison_section(const PageModel& page,
                                  const std::vector<HeadlineSeries>& headlines,
                                  const std::vector<const json*>& published, const json& catalog,
                                  const Prices& prices, int& next_chart);

} // namespace apod::report
