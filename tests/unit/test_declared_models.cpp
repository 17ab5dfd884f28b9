// Every model an experiment declares with a bound (Chart::within), checked on the committed
// runner output of both GPU models (experiments/committed_runs.hpp): on every run of each batch,
// every point the chart draws that carries the model lies within the stated bound of it. The
// catalog names the models; this test names none, so a new experiment's model is held to its own
// word the day it is declared. A model with no stated bound is drawn with its residual and
// documented (docs/method.md), not tested here.
#include "committed_runs.hpp"
#include "core/catalog.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

namespace apod {
namespace {

// The model's figure for point `m` of the chart: its extra, or the point of the same params in
// the model metric.
std::optional<double> model_of(const Chart& chart, const Measurement& m,
                               const ExperimentRecord& experiment) {
  if (!chart.model_extra.empty()) {
    const auto it = m.extra.find(chart.model_extra);
    if (it != m.extra.end() && it->is_number())
      return it->get<double>();
    return std::nullopt;
  }
  for (const Measurement& other : experiment.measurements)
    if (other.metric == chart.model_metric && other.params == m.params && other.ok())
      return committed::median(other);
  return std::nullopt;
}

bool drawn(const Chart& chart, const Measurement& m) {
  if (m.metric != chart.metric || !m.ok())
    return false;
  if (chart.only.first.empty())
    return true;
  const auto it = m.params.find(chart.only.first);
  return it != m.params.end() && *it == chart.only.second;
}

class DeclaredModels : public ::testing::TestWithParam<committed::Batch> {};

TEST_P(DeclaredModels, EveryBoundedModelHoldsOnEveryRunOfTheBatch) {
  const committed::Batch& batch = GetParam();
  const std::vector<RunRecord> runs = committed::runs(batch);
  ASSERT_FALSE(runs.empty());
  std::size_t bounded = 0;
  for (const Declaration& d : declarations())
    for (const Chart& chart : d.charts) {
      if (chart.model_bound <= 0)
        continue;
      ++bounded;
      for (const RunRecord& run : runs) {
        EXPECT_EQ(run.device.name, batch.device) << "the batch holds another GPU";
        std::size_t checked = 0;
        for (const ExperimentRecord& e : run.experiments) {
          if (e.name != d.name || e.version != d.version)
            continue;
          for (const Measurement& m : e.measurements) {
            if (!drawn(chart, m))
              continue;
            const auto model = model_of(chart, m, e);
            if (!model)
              continue;
            ++checked;
            const double residual = committed::median(m) / *model - 1;
            EXPECT_LE(std::abs(residual), chart.model_bound)
                << batch.gpu << " " << d.name << " " << chart.model_label << " at "
                << m.params.dump() << ": measured " << committed::median(m) << " " << m.unit
                << ", model " << *model << " (" << residual * 100 << "%, bound ±"
                << chart.model_bound * 100 << "%), run " << run.id;
          }
        }
        EXPECT_GT(checked, 0u) << batch.gpu << " run " << run.id << " has no point of " << d.name
                               << " version " << d.version << " with " << chart.model_label
                               << ": the bound was tested on nothing";
      }
    }
  EXPECT_GT(bounded, 0u) << "no declared model states a bound";
}

INSTANTIATE_TEST_SUITE_P(Committed, DeclaredModels, ::testing::ValuesIn(committed::batches),
                         [](const auto& info) { return std::string(info.param.gpu); });

} // namespace
} // namespace apod
