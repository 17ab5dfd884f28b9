// The page stays small however long the history: 100 runs of the current matrix's shape (the
// synthetic history of bench_report) render to under 5 MB, and no raw sample reaches the page.
// Size only: it is deterministic. Time is not, and is measured by bench_report, never asserted.
#include "report.hpp"
#include "synthetic_history.hpp"

#include <gtest/gtest.h>

namespace apod::report::test {
namespace {

TEST(PageSize, AHundredRunsRenderUnderFiveMegabytes) {
  const json results = synthetic_history(100, 10);
  const std::string html = render_html(results, synthetic_matrix_catalog(), reference_figures());
  EXPECT_LT(html.size(), 5u * 1000 * 1000) << html.size() << " bytes";

  // Every figure comes from the stored statistics; the samples themselves are never embedded:
  // without them the page is byte for byte the same.
  json without_samples = results;
  for (auto& run : without_samples["runs"])
    for (auto& measurement : run["measurements"]) {
      measurement.erase("samples");
      measurement.erase("sample_excluded");
    }
  EXPECT_EQ(render_html(without_samples, synthetic_matrix_catalog(), reference_figures()), html);
}

} // namespace
} // namespace apod::report::test
