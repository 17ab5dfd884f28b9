// The guide's staged-copy model with tT(n) against the committed runs of both GPU models
// (committed_runs.hpp): on every run, every staged total lies within the stated bound of its
// model, and tT(n) = nStreams x one chunk's copy alone is what the model used (a chunk copies no
// faster per byte than the whole array, so tT(n) >= tT within noise).
#include "committed_runs.hpp"
#include "staged_copy/declaration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

using namespace apod;

namespace {

// (mode, nStreams) -> median of `metric`, for one run.
std::map<std::pair<std::string, int>, const Measurement*> by_point(const RunRecord& run,
                                                                   const std::string& metric) {
  std::map<std::pair<std::string, int>, const Measurement*> out;
  for (const Measurement* m : committed::points(run, staged::experiment, metric))
    out[{m->params.at(staged::mode.key).get<std::string>(),
         m->params.at(staged::n_streams.key).get<int>()}] = m;
  return out;
}

} // namespace

TEST(StagedRuns, ModelWithChunkTransferWithinItsBoundOnEveryRunOfBothGpus) {
  for (const committed::Batch& b : committed::batches) {
    const auto runs = committed::runs(b);
    ASSERT_FALSE(runs.empty()) << b.gpu;
    for (const RunRecord& run : runs) {
      const auto totals = by_point(run, staged::total_ms.name);
      const auto models = by_point(run, staged::model_ms.name);
      for (const int n : staged::stream_counts) {
        const std::pair<std::string, int> key{"staged", n};
        ASSERT_TRUE(totals.count(key) && models.count(key)) << b.gpu << " nStreams " << n;
        const double total = committed::median(*totals.at(key)),
                     model = committed::median(*models.at(key));
        EXPECT_LE(std::abs(total / model - 1), staged::model_bound)
            << b.gpu << " run " << run.id << " nStreams " << n << ": total " << total
            << " ms, model " << model << " ms";
      }
    }
  }
}

TEST(StagedRuns, TransferOfTheStagesComesFromTheirOwnChunks) {
  for (const committed::Batch& b : committed::batches)
    for (const RunRecord& run : committed::runs(b)) {
      const auto whole = by_point(run, staged::transfer_ms.name);
      const auto chunks = by_point(run, staged::chunk_transfer_ms.name);
      const auto totals = by_point(run, staged::total_ms.name);
      ASSERT_TRUE(whole.count({"alone", 1})) << b.gpu;
      const double tT = committed::median(*whole.at({"alone", 1}));
      for (const int n : staged::stream_counts) {
        if (n == 1)
          continue;
        ASSERT_TRUE(chunks.count({"chunk", n})) << b.gpu << " nStreams " << n;
        const double tT_n = n * committed::median(*chunks.at({"chunk", n}));
        EXPECT_GE(tT_n, 0.98 * tT) << b.gpu << " nStreams " << n;
        // The model's extra states the same tT(n).
        const json& extra = totals.at({"staged", n})->extra;
        ASSERT_TRUE(extra.contains(staged::transfer_n_key)) << b.gpu;
        EXPECT_NEAR(extra.at(staged::transfer_n_key).get<double>(), tT_n, 1e-9 * tT_n);
      }
    }
}
