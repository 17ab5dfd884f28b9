// The roofline's claims on every committed run of both GPU models (committed_runs.hpp): no peak
// is where the sweep stopped (each precision's last two points agree within the sweep's flat
// tolerance, or the sweep reached its cap), and the soft-knee model stays within its stated bound
// on every point.
#include "committed_runs.hpp"
#include "roofline/declaration.hpp"
#include "roofline/model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <map>

using namespace apod;
namespace r = apod::roofline;

namespace {

TEST(RooflineCommitted, EveryPrecisionEndsFlatAndTheSoftKneeHoldsItsBound) {
  for (const auto& batch : committed::batches) {
    const auto runs = committed::runs(batch);
    ASSERT_FALSE(runs.empty()) << batch.gpu;
    for (const auto& run : runs) {
      std::map<std::string, std::map<int, double>> by_precision;
      for (const Measurement* m : committed::points(run, r::experiment, r::flop_rate.name)) {
        const double median = committed::median(*m);
        by_precision[m->params.at(r::precision.key).get<std::string>()]
                    [m->params.at(r::fma.key).get<int>()] = median;
        ASSERT_TRUE(m->extra.contains(keys::model)) << batch.gpu << " " << m->params.dump();
        const double model = m->extra.at(keys::model).get<double>();
        EXPECT_LE(std::abs(median / model - 1), r::soft_knee_bound)
            << batch.gpu << " " << m->params.dump() << ": " << median << " against " << model;
      }
      ASSERT_EQ(by_precision.size(), 2u) << batch.gpu;
      for (const auto& [precision, points] : by_precision) {
        ASSERT_GE(points.size(), 2u);
        const auto last = std::prev(points.end()), before = std::prev(last);
        EXPECT_TRUE(curve_flat(before->second, last->second) || last->first == max_fma_per_element)
            << batch.gpu << " " << precision << ": " << before->second << " at k " << before->first
            << ", " << last->second << " at k " << last->first;
      }
    }
  }
}

} // namespace
