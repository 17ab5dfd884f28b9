// Multi-run imports and merges are all-or-nothing and leave no file when refused; identity and
// conflicts are explicit; merge validates runs as import does (issue 10).
#include "core/errors.hpp"
#include "db_check.hpp"
#include "store/store.hpp"
#include "test_runs.hpp"

using namespace apod;
using namespace reliability;

namespace {

/// A feed over `runs`, each from the source "doc.json".
RunFeed feed(std::vector<RunRecord> runs) {
  auto next = std::make_shared<size_t>(0);
  return [runs = std::move(runs), next](RunRecord& run, std::string& source) {
    if (*next == runs.size())
      return false;
    run = runs[(*next)++];
    source = "doc.json";
    return true;
  };
}

std::string exported(Store& store) {
  return store.export_results().dump();
}

} // namespace

// A refused 6th run once left runs 1-5 stored while the message said "rolled back".
TEST(ImportMerge, ARefusedRunLeavesTheDatabaseAsItWas) {
  Store store(":memory:", Store::Mode::read_write_create);
  store.import_run(test_run("aa"));
  std::vector<RunRecord> runs;
  for (int i = 1; i <= 5; ++i)
    runs.push_back(test_run("b" + std::to_string(i)));
  runs.push_back(test_run("b6", "bogus"));
  const std::string why = refusal([&] { store.import_runs(feed(runs)); });
  EXPECT_NE(why.find("run b6 of 'doc.json'.status"), std::string::npos) << why;
  EXPECT_EQ(store.run_ids(), std::vector<std::string>{"aa"});
}

TEST(ImportMerge, ANewDatabaseAppearsWholeOrNotAtAll) {
  TempDir dir;
  const std::string path = (dir.path / "new.db").string();
  EXPECT_THROW(Store::write_into(path,
                                 [](Store& s) {
                                   s.import_runs(feed({test_run("c1"), test_run("c2", "bogus")}));
                                 }),
               InputError);
  EXPECT_TRUE(fs::is_empty(dir.path)) << "a refused import left a file";
  Store::write_into(path, [](Store& s) { s.import_runs(feed({test_run("c1"), test_run("c2")})); });
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
  Store store(path, Store::Mode::read_only);
  EXPECT_EQ(store.run_ids().size(), 2u);
}

TEST(ImportMerge, TheSameIdWithOtherContentIsAConflictUnlessAFlagChooses) {
  Store store(":memory:", Store::Mode::read_write_create);
  store.import_run(test_run("dd", "complete", 1, "first"));
  const std::string before = exported(store);
  const auto other = test_run("dd", "complete", 1, "second");
  const std::string why = refusal([&] { store.import_runs(feed({other})); });
  EXPECT_NE(
      why.find("run dd from 'doc.json' differs from the copy already in ':memory:' (its label "
               "differs); nothing was imported"),
      std::string::npos)
      << why;
  EXPECT_EQ(exported(store), before);
  ImportSummary kept = store.import_runs(feed({other}), OnConflict::keep);
  ASSERT_EQ(kept.notes.size(), 1u);
  EXPECT_NE(kept.notes[0].find("kept the copy already in"), std::string::npos) << kept.notes[0];
  EXPECT_EQ(exported(store), before);
  ImportSummary replaced = store.import_runs(feed({other}), OnConflict::replace);
  ASSERT_EQ(replaced.notes.size(), 1u);
  EXPECT_NE(replaced.notes[0].find("--on-conflict replace"), std::string::npos);
  EXPECT_EQ(store.read_run("dd").label, "second");
  EXPECT_FALSE(store.import_run(other)) << "the same content again is no conflict";
}

// A run merged while interrupted was never replaced by its completed --resume; which copy
// survived depended on the order of the arguments.
TEST(ImportMerge, ACompletedRunReplacesItsInterruptedCopyInEitherOrder) {
  RunRecord interrupted = test_run("ee", "interrupted", 1, "night", "GPU-test", "Test GPU", 7);
  RunRecord completed = test_run("ee", "complete", 3, "night", "GPU-test", "Test GPU", 8);
  completed.environment.resumed = {{"x", interrupted.environment.writer, std::nullopt}};
  Store forward(":memory:", Store::Mode::read_write_create),
      backward(":memory:", Store::Mode::read_write_create);
  const ImportSummary f = forward.import_runs(feed({interrupted, completed}));
  const ImportSummary b = backward.import_runs(feed({completed, interrupted}));
  ASSERT_EQ(f.notes.size(), 1u);
  ASSERT_EQ(b.notes.size(), 1u);
  EXPECT_NE(
      f.notes[0].find("replaced the copy from 'doc.json' (interrupted, 1 experiment(s)) by its "
                      "later state"),
      std::string::npos)
      << f.notes[0];
  EXPECT_NE(b.notes[0].find("is an earlier state of it"), std::string::npos) << b.notes[0];
  EXPECT_EQ(exported(forward), exported(backward));
  EXPECT_EQ(forward.read_run("ee").experiments.size(), 3u);
  // Another writer's run under the same id is no later state: a conflict.
  RunRecord stranger = completed;
  stranger.environment = environment_from_json({{"writer", {{"host", "elsewhere"}, {"pid", 9}}}});
  EXPECT_THROW(forward.import_runs(feed({stranger})), InputError);
}

TEST(ImportMerge, ADevicesStoredFactsAreNeverRewritten) {
  Store store(":memory:", Store::Mode::read_write_create);
  store.import_run(test_run("f1", "complete", 1, "real", "GPU-same", "NVIDIA H200"));
  const std::string before = to_json(store.read_run("f1")).dump();
  store.import_run(test_run("f2", "complete", 1, "impostor", "GPU-same", "Evil GPU"));
  EXPECT_EQ(to_json(store.read_run("f1")).dump(), before);
  for (const auto& r : store.list_runs())
    EXPECT_EQ(r.device_name, "NVIDIA H200") << r.id;
  EXPECT_EQ(store.read_run("f2").device.name, "Evil GPU") << "each run keeps its own facts";
}

// `merge` once accepted a run `import` refuses; the history then exported a document that
// `import` refused entirely.
TEST(ImportMerge, MergeValidatesRunsAsImportDoesAndCreatesNothingWhenRefused) {
  TempDir dir;
  const std::string input = (dir.path / "in.db").string();
  {
    Store s(input, Store::Mode::read_write_create);
    s.import_run(test_run("a1"));
    s.import_run(test_run("a2"));
  }
  {
    CheckDb raw(input);
    raw.exec("UPDATE run SET environment = '[]' WHERE id = 'a2'");
  }
  Store in(input, Store::Mode::read_only);
  const std::string out = (dir.path / "out.db").string();
  const std::string why = refusal([&] {
    Store::write_into(out, [&](Store& s) {
      const auto ids = in.run_ids();
      size_t next = 0;
      s.import_runs([&](RunRecord& run, std::string& source) {
        if (next == ids.size())
          return false;
        run = in.read_run(ids[next++]);
        source = input;
        return true;
      });
    });
  });
  EXPECT_NE(why.find("holds a run that apod would not import"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(out));
}
