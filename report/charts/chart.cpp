#include "charts/chart.hpp"

namespace apod::report {

json chart_config() {
  // labelLimit and titleLimit 0: Vega draws every label and title whole (its default cuts at 180 px
  // with an ellipsis, which hides which run or configuration a label names).
  return {{"font", "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"},
          {"axis",
           {{"labelFontSize", 11},
            {"titleFontSize", 12},
            {"labelLimit", 0},
            {"titleLimit", 0},
            {"labelSeparation", 4}}}, // hide a tick label rather than let two touch
          {"legend",
           {{"labelFontSize", 11}, {"titleFontSize", 12}, {"labelLimit", 0}, {"titleLimit", 0}}},
          {"header", {{"labelLimit", 0}}},
          {"view", {{"stroke", "#ddd"}}}};
}

std::string vega_lite_field(const std::string& parent, const std::string& key) {
  std::string field = parent + ".";
  for (const char c : key) {
    if (c == '.' || c == '[' || c == ']' || c == '\\')
      field += '\\';
    field += c;
  }
  return field;
}

} // namespace apod::report
