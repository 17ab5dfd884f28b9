// The page stays small however long the history: 100 runs of the current matrix's shape (the
// synthetic history of bench_report) render to under 5 MB, and no raw sample reaches the page.
// Size only: it is deterministic. Time is not, and is measured by bench_report, never asserted.
#include "report.hpp"
#include "synthetic_history.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace apod::report::test {
namespace {

TEST(PageSize, AHundredRunsRenderUnderFiveMegabytes) {
  const json results = synthetic_history(100, 10);
  const std::string html = render_html(results, synthetic_matrix_catalog(), reference_figures());
  EXPECT_LT(html.size(), 5u * 1000 * 1000) << html.size() << " bytes";

  // The samples themselves are never embedded: with every sample stored twice (the same
  // medians and ranges, narrower intervals) the page keeps its size.
  json doubled = results;
  for (auto& run : doubled["runs"])
    for (auto& measurement : run["measurements"]) {
      for (const char* key : {"samples", "sample_excluded"}) {
        json twice = measurement[key];
        for (const auto& v : measurement[key])
          twice.push_back(v);
        measurement[key] = twice;
      }
      measurement["n"] = measurement["samples"].size();
    }
  const std::string doubled_html =
      render_html(doubled, synthetic_matrix_catalog(), reference_figures());
  EXPECT_LT(std::abs(double(doubled_html.size()) - double(html.size())), 0.01 * html.size());
}

} // namespace
} // namespace apod::report::test
