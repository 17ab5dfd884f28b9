// A document never vouches for itself (issue 19): comparability keys are derived from the
// content, a stored run is immutable once complete, dates are bounded, every run can be named,
// what apod exports it imports again, and statistics never overflow. Each test here fails
// without the rule it names (docs/reliability.md).
#include "analysis/compare.hpp"
#include "core/errors.hpp"
#include "core/measurement.hpp"
#include "core/point_key.hpp"
#include "core/results_json.hpp"
#include "core/run_dates.hpp"
#include "store/run_conflict.hpp"
#include "store/store.hpp"
#include "test_runs.hpp"

#include <fmt/chrono.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

using namespace apod;
using namespace reliability;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// `run` through the wire form, as `apod import` reads a document.
RunRecord through_document(const RunRecord& run) {
  const json doc = results_document({run});
  const std::string text = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  return runs_from_document(parse_results(text, "doc.json")).at(0);
}

RunRecord keyed(RunRecord r) {
  derive_keys(r);
  return r;
}

} // namespace

// --- Derive, don't trust -------------------------------------------------------------------

// A point without a key (a document of an older apod) gets the key of its content.
TEST(DerivedKeys, APointWithoutAKeyGetsTheKeyOfItsContent) {
  Store store(":memory:", Store::Mode::read_write_create);
  store.import_run(test_run("a1", "complete", 2, "x", "GPU-1", "NVIDIA H100 80GB HBM3"));
  const RunRecord back = store.read_run("a1");
  for (const Measurement* m : back.measurements())
    EXPECT_EQ(m->comparability_key, comparability_key("NVIDIA H100 80GB HBM3", "cuda-driver-0",
                                                      m->experiment, 1, m->params, m->metric));
}

// A run relabelled as another GPU model (or another experiment version) that keeps the keys of
// the original was judged "same" against the original's baseline: the stored hash vouched for
// it. Now its keys disagree with its content and the document is refused.
TEST(DerivedKeys, ARunRelabelledAsAnotherGpuKeepingItsKeysIsRefused) {
  RunRecord original = keyed(test_run("a2", "complete", 1, "x", "GPU-1", "NVIDIA H200"));
  RunRecord relabelled = original;
  relabelled.device.name = "NVIDIA H100 80GB HBM3";
  std::string why = refusal([&] { through_document(relabelled); });
  EXPECT_TRUE(has(why, "comparability key")) << why;
  EXPECT_TRUE(has(why, "runs[0]")) << why;

  RunRecord other_version = original;
  other_version.experiments[0].version = 7;
  why = refusal([&] { through_document(other_version); });
  EXPECT_TRUE(has(why, "comparability key")) << why;

  Store store(":memory:", Store::Mode::read_write_create);
  why = refusal([&] { store.import_run(relabelled); });
  EXPECT_TRUE(has(why, "comparability key")) << why;
  EXPECT_TRUE(store.run_ids().empty());
}

// Without the keys, the relabelled run is a run of another GPU: nothing pairs with the original.
TEST(DerivedKeys, TheRelabelledRunWithoutKeysPairsWithNothing) {
  const RunRecord base = keyed(test_run("b1", "complete", 2, "x", "GPU-1", "NVIDIA H200"));
  RunRecord other = test_run("b2", "complete", 2, "x", "GPU-1", "NVIDIA H100 80GB HBM3");
  other = through_document(other);
  const Verdict v = judge_in({base, other}, base, other, CompareOptions{});
  EXPECT_TRUE(v.points.empty());
  EXPECT_TRUE(has(v.nothing_compared, "GPU model")) << v.nothing_compared;
}

// --- Runs are immutable once complete -------------------------------------------------------

// A complete copy whose samples were changed once replaced the stored run at import, exit 0.
TEST(Immutable, ACompleteRunWithOtherSamplesIsAConflict) {
  Store store(":memory:", Store::Mode::read_write_create);
  store.import_run(test_run("c1", "complete", 2));
  RunRecord changed = test_run("c1", "complete", 2);
  changed.experiments[1].measurements[0].samples[2] = 999;
  const std::string why = refusal([&] { store.import_run(changed); });
  EXPECT_TRUE(has(why, "--on-conflict")) << why;
  EXPECT_TRUE(has(why, "samples of point")) << why; // says what differs
  EXPECT_TRUE(has(why, "e1")) << why;
  EXPECT_EQ(store.read_run("c1").experiments[1].measurements[0].samples[2], 102.0);
}

// An interrupted copy is replaced only by a copy that extends it: what both hold is the same.
TEST(Immutable, AnInterruptedRunIsReplacedOnlyByACopyThatExtendsIt) {
  const RunRecord interrupted = keyed(test_run("c2", "interrupted", 1));
  RunRecord resumed = keyed(test_run("c2", "complete", 2));
  EXPECT_EQ(classify(interrupted, resumed).kind, RunConflict::later);
  EXPECT_EQ(classify(resumed, interrupted).kind, RunConflict::earlier);

  RunRecord forged = resumed;
  forged.experiments[0].measurements[0].samples = {50, 50.5, 51};
  EXPECT_EQ(classify(interrupted, forged).kind, RunConflict::different);
  EXPECT_TRUE(has(classify(interrupted, forged).difference, "samples")) << "says what differs";

  RunRecord relabelled = resumed;
  relabelled.label = "another";
  EXPECT_EQ(classify(interrupted, relabelled).kind, RunConflict::different);
}

// A run still `running` has a writer that may add to it; a complete run is final: neither has a
// "later state" that replaces it without --on-conflict.
TEST(Immutable, OnlyAnInterruptedCopyHasALaterState) {
  const RunRecord more = keyed(test_run("c3", "complete", 2));
  EXPECT_EQ(classify(keyed(test_run("c3", "running", 1)), more).kind, RunConflict::different);
  EXPECT_EQ(classify(keyed(test_run("c3", "partial", 1)), more).kind, RunConflict::different);
  EXPECT_EQ(classify(keyed(test_run("c3", "failed", 1)), more).kind, RunConflict::different);
}

// --- Dates are bounded ------------------------------------------------------------------------

TEST(Dates, OnlyRealUtcTimesAreDates) {
  EXPECT_TRUE(parse_utc("2026-11-25T02:00:00.000Z"));
  EXPECT_TRUE(parse_utc("2026-11-25T02:00:00Z"));
  EXPECT_TRUE(parse_utc("2026-11-25T02:00:00.123456789Z"));
  EXPECT_EQ(*parse_utc("2026-11-25T02:00:00.5Z") - *parse_utc("2026-11-25T02:00:00Z"),
            std::chrono::milliseconds(500));
  for (const char* bad : {"", "x", "2026-11-25", "2026-11-25 02:00:00Z", "2026-02-30T00:00:00Z",
                          "2026-13-01T00:00:00Z", "2026-11-25T24:00:00Z", "2026-11-25T02:00:00.Z",
                          "1969-12-31T23:59:59Z", "2026-11-25T02:00:00+01:00",
                          "2026-11-25T02:00:0a.000Z", "\xff\xfe"})
    EXPECT_FALSE(parse_utc(bad)) << bad;
}

TEST(Dates, ARunThatFinishedBeforeItStartedOrHasNoDateIsRefused) {
  RunRecord r = test_run("d1");
  r.finished_at = "2025-12-31T22:59:59.000Z"; // an hour and a second before the start
  EXPECT_TRUE(has(refusal([&] { through_document(r); }), "before it started"));
  r.finished_at = "2025-12-31T23:59:59.000Z"; // the runner's clock stepped back a second
  EXPECT_NO_THROW(through_document(r));
  r = test_run("d1");
  r.started_at = "yesterday";
  EXPECT_TRUE(has(refusal([&] { through_document(r); }), "started_at"));
  r = test_run("d1");
  r.finished_at = "2026-01-01T00:01:00.000Z\xff";
  EXPECT_TRUE(has(refusal([&] { through_document(r); }), "finished_at"));
}

// A run dated in the year 9999 once stayed "the newest run" for ever.
TEST(Dates, ARunFromTheFutureIsNotImported) {
  Store store(":memory:", Store::Mode::read_write_create);
  RunRecord r = test_run("d2");
  r.started_at = "9999-01-01T00:00:00.000Z";
  r.finished_at = "9999-01-01T00:01:00.000Z";
  const std::string why = refusal([&] { store.import_run(r); });
  EXPECT_TRUE(has(why, "after this machine's clock")) << why;
  EXPECT_TRUE(store.run_ids().empty());

  // Within the allowed skew of a clock a little ahead: imported.
  const auto soon =
      std::chrono::time_point_cast<std::chrono::seconds>(utc_now() + std::chrono::minutes(30));
  const std::string in_half_an_hour = fmt::format("{:%FT%T}Z", soon);
  r.started_at = r.finished_at.value() = in_half_an_hour;
  ASSERT_TRUE(parse_utc(r.started_at)) << r.started_at;
  EXPECT_NO_THROW(store.import_run(r));
  EXPECT_FALSE(date_from_the_future(r, utc_now()));
  EXPECT_TRUE(date_from_the_future(r, utc_now() - std::chrono::hours(2)));
}

// --- Every run is nameable --------------------------------------------------------------------

TEST(Naming, AFullIdAlwaysNamesItsRunAndAnAmbiguousPrefixNamesTheCandidates) {
  Store store(":memory:", Store::Mode::read_write_create);
  store.import_run(test_run("ab"));
  store.import_run(test_run("abc"));
  EXPECT_EQ(store.resolve_run_id("ab"), "ab"); // also a prefix of "abc"
  EXPECT_EQ(store.resolve_run_id("abc"), "abc");
  const std::string why = refusal([&] { store.resolve_run_id("a"); });
  EXPECT_TRUE(has(why, "ambiguous")) << why;
  EXPECT_TRUE(has(why, "ab, abc")) << why;
  EXPECT_TRUE(has(refusal([&] { store.resolve_run_id(""); }), "empty"));
}

// `export --run X --run <prefix of X>` once wrote X twice, and apod's own import refused it.
TEST(Naming, ARunNamedTwiceIsExportedOnce) {
  Store store(":memory:", Store::Mode::read_write_create);
  store.import_run(test_run("abc1"));
  const json doc = store.export_results({"abc1", "abc", "ab"});
  EXPECT_EQ(doc["runs"].size(), 1u);
  EXPECT_NO_THROW(runs_from_document(parse_results(doc.dump(), "export")));
}

// --- What apod writes, apod reads -------------------------------------------------------------

// A stored extra nested within the store's own bound for a value, but deeper than the document
// bound once inside a run, was exported into a document apod's import refused. The bound is now
// the value's depth in the document, at store time and on the way out: each depth either is
// refused as the run is stored, or exports into a document that imports.
TEST(WhatApodWrites, EveryExportableDepthImportsAgain) {
  int stored = 0;
  for (int depth = 50; depth <= 66; ++depth) {
    RunRecord r = test_run("e1");
    json nested = json::object();
    for (int i = 1; i < depth; ++i)
      nested = json{{"n", nested}};
    r.experiments[0].measurements[0].extra = nested;
    Store store(":memory:", Store::Mode::read_write_create);
    const std::string why = refusal([&] { store.import_run(r); });
    if (why != "(accepted)") {
      EXPECT_TRUE(has(why, "nested deeper")) << why;
      continue;
    }
    ++stored;
    const std::string text = store.export_results().dump();
    EXPECT_NO_THROW(runs_from_document(parse_results(text, "export"))) << "depth " << depth;
  }
  EXPECT_GT(stored, 0);
  EXPECT_LT(stored, 17);
}

// --- Edge numbers -----------------------------------------------------------------------------

// Samples near 1.7e308 overflowed the mean and the median (export wrote "median": null).
TEST(EdgeNumbers, StatisticsOfHugeSamplesAreFinite) {
  const Summary s = summarize({1e300, -1e300, 5e299, 7e299});
  for (double v :
       {s.median, s.min, s.max, s.mean, s.stddev, s.rsd, s.q1, s.q3, s.iqr, s.ci_low, s.ci_high})
    EXPECT_TRUE(std::isfinite(v)) << v;
  EXPECT_DOUBLE_EQ(s.median, 6e299);
  EXPECT_DOUBLE_EQ(s.mean, 3e299);
  const Summary same = summarize({1e150, 3e150});
  EXPECT_DOUBLE_EQ(same.median, 2e150);

  // Real figures take the plain path: bit for bit what they always gave.
  const Summary plain = summarize({1.0, 2.0, 4.0});
  EXPECT_EQ(plain.mean, 7.0 / 3);
}

TEST(EdgeNumbers, ASampleBeyondTheBoundIsRefusedWithTheReason) {
  RunRecord r = test_run("f1");
  r.experiments[0].measurements[0].samples = {1.7e308, 1.6e308, 1.5e308};
  const std::string why = refusal([&] { through_document(r); });
  EXPECT_TRUE(has(why, "overflow")) << why;
  r.experiments[0].measurements[0].samples = {1e300, 9e299, 8e299};
  const RunRecord back = through_document(r);
  const json exported = results_document({back});
  EXPECT_TRUE(exported["runs"][0]["measurements"][0]["median"].is_number());
  EXPECT_TRUE(exported["runs"][0]["measurements"][0]["stddev"].is_number());
}

// "Nothing compared" once said "every point failed" when none had failed.
TEST(EdgeNumbers, NothingComparedSaysTheTrueReason) {
  RunRecord base = keyed(test_run("g1", "complete", 2));
  RunRecord cand = test_run("g2", "complete", 2); // in memory: no keys, none failed
  const Verdict v = judge_in({base, cand}, base, cand, CompareOptions{});
  ASSERT_TRUE(v.points.empty());
  EXPECT_FALSE(has(v.nothing_compared, "failed")) << v.nothing_compared;
  EXPECT_TRUE(has(v.nothing_compared, "not_comparable")) << v.nothing_compared;
}
