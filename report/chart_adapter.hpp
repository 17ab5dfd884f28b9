// Until report/charts.hpp (helper I14b) provides experiment_charts(), this adapter gives the
// experiment sections the same signature over the existing build_chart_spec. When charts.hpp
// declares ChartBlock and experiment_charts, delete this file and its .cpp and include
// "charts.hpp" in report/sections/experiments.cpp instead: nothing else changes.
#pragma once

#include "model.hpp"

#include <string>
#include <vector>

namespace apod::report {

struct ChartBlock {
  json spec;
  std::string caption;
};

/// The charts of one experiment's section, in order.
std::vector<ChartBlock> experiment_charts(const PageModel& page, const ExperimentView& experiment);

} // namespace apod::report
