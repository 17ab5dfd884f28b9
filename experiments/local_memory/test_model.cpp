// The local_memory experiment's host arithmetic (model.cpp): the answers both kernels of a pair
// must give, the rates and the cost ratio, and the plan.
#include "model.hpp"

#include "declaration.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

using namespace apod::local_memory;

TEST(LocalModel, AnArrayStepUpdatesTheWordAndCarriesItIntoTheAccumulator) {
  uint32_t word = 3, acc = 2;
  array_step(word, acc);
  EXPECT_EQ(word, 17u); // 5 x 3 + 2
  EXPECT_EQ(acc, 19u);  // 2 XOR 17
}

TEST(LocalModel, TheArrayAnswerVisitsWordsInTurn) {
  // Two words, three steps: words 0, 1, 0.
  uint32_t a0 = start_word(5, 0), a1 = start_word(5, 1), acc = 5;
  array_step(a0, acc);
  array_step(a1, acc);
  array_step(a0, acc);
  EXPECT_EQ(array_answer(5, 2, 3), acc);
  EXPECT_EQ(array_answer(5, 16, 0), 5u);
  EXPECT_THROW(array_answer(0, 0, 1), std::invalid_argument);
}

TEST(LocalModel, AStepShortOrAnotherClassGivesAnotherAnswer) {
  std::set<uint32_t> answers;
  for (uint32_t c = 0; c < start_classes; ++c)
    answers.insert(array_answer(c, 16, 2048));
  EXPECT_EQ(answers.size(), size_t(start_classes));
  EXPECT_NE(array_answer(7, 64, 2048), array_answer(7, 64, 2047));
  EXPECT_NE(array_answer(7, 16, 2048), array_answer(7, 64, 2048));
  EXPECT_NE(pressure_answer(7, 64, 128), pressure_answer(7, 64, 127));
  std::set<uint32_t> pressure;
  for (uint32_t c = 0; c < start_classes; ++c)
    pressure.insert(pressure_answer(c, 64, 16));
  EXPECT_EQ(pressure.size(), size_t(start_classes));
}

TEST(LocalModel, ThePressureUpdateReadsTheNeighboursOldValueAndTheFirstsNewOne) {
  // Three values 1, 2, 3, one trip: v0 = 5 + 2 = 7, v1 = 10 + 3 = 13, v2 = 15 + 7 = 22.
  const uint32_t v0 = start_word(0, 0), v1 = start_word(0, 1), v2 = start_word(0, 2);
  const uint32_t n0 = pressure_update(v0, v1), n1 = pressure_update(v1, v2),
                 n2 = pressure_update(v2, n0);
  EXPECT_EQ(pressure_answer(0, 3, 1), n0 + n1 + n2);
  EXPECT_EQ(pressure_update(1, 2), 7u);
  EXPECT_THROW(pressure_answer(0, 0, 1), std::invalid_argument);
}

TEST(LocalModel, RatesAndTheCostRatio) {
  // 1e6 threads x 1000 updates in 1 ms: 1e9 / 1e-3 s = 1000 G/s.
  EXPECT_DOUBLE_EQ(update_rate_g(1e6, 1000, 1.0), 1000.0);
  EXPECT_DOUBLE_EQ(update_rate_g(1e6, 1000, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(cost_vs_registers(300.0, 100.0), 3.0);
  EXPECT_THROW(cost_vs_registers(0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(cost_vs_registers(1.0, -1.0), std::invalid_argument);
}

TEST(LocalDeclaration, ThePlanPairsEachLocalPointWithItsRegisterPoint) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  const auto points = d->plan(apod::PlanInput{});
  ASSERT_EQ(points.size(), 6u);
  int with_cost = 0;
  for (const auto& p : points)
    with_cost += p.metrics.size() == 2;
  EXPECT_EQ(with_cost, 3);
}
