// kill -9 at any moment: a writer that stores runs the way `apod run` does (store_writer) is
// killed with SIGKILL at random moments, again and again, into the same databases and into new
// ones (so kills also land while a file is being created and migrated). After every kill the
// database must pass PRAGMA integrity_check, hold every experiment whose commit had returned,
// hold no torn experiment, and, once opened for writing, show the dead writer's run as
// 'interrupted' (and as such even through a read-only open that may not write). Then an
// interrupted run is resumed through the Store as `apod run --resume` does.
// APOD_CRASH_KILLS sets the number of kills (default 60).
#include "core/errors.hpp"
#include "db_check.hpp"
#include "store/store.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <thread>

using namespace reliability;
using namespace apod;

namespace {

int kill_count() {
  const char* v = std::getenv("APOD_CRASH_KILLS");
  return v ? std::max(1, std::atoi(v)) : 60;
}

std::set<std::pair<std::string, std::string>> committed(const fs::path& log) {
  std::set<std::pair<std::string, std::string>> out;
  std::ifstream in(log);
  std::string run, name;
  while (in >> run >> name)
    out.insert({run, name});
  return out;
}

const char* phase_name(char p) {
  switch (p) {
  case 'o':
    return "opening/creating the database";
  case 'b':
    return "beginning a run";
  case 's':
    return "inside an experiment's transaction";
  case 'f':
    return "finishing a run";
  case 'w':
    return "between transactions";
  default:
    return "before the writer started";
  }
}

} // namespace

TEST(CrashSafety, SigkillAtRandomMomentsLosesNothingCommitted) {
  ASSERT_FALSE(writer_program().empty());
  TempDir dir;
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::map<std::string, int> phases;
  int kills = 0, no_file_yet = 0, no_schema_yet = 0, interrupted_marked = 0;
  std::map<std::string, std::pair<size_t, long>>
      last_check; // per database: committed experiments, samples
  int torn = 0;
  std::string db, log;
  const fs::path phase_file = dir.path / "phase";

  for (int i = 0; i < kill_count(); ++i) {
    const bool fresh = i % 10 == 0; // a new file: the kill may land in creation or migration
    if (fresh) {
      db = (dir.path / ("crash-" + std::to_string(i) + ".db")).string();
      log = (dir.path / ("committed-" + std::to_string(i) + ".log")).string();
    }
    std::ofstream(phase_file, std::ios::trunc).put('-');
    const pid_t pid =
        spawn({writer_program(), "loop", db, log, phase_file.string(), std::to_string(rng())});
    ASSERT_GT(pid, 0);
    const auto delay = std::chrono::microseconds(fresh ? rng() % 40000 : rng() % 300000);
    std::this_thread::sleep_for(delay);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    const int status = wait_for(pid);
    ASSERT_EQ(status, 128 + SIGKILL)
        << "the writer ended by itself (exit " << status << ") before the kill";
    ++kills;
    char phase = '-';
    std::ifstream(phase_file).get(phase);
    phases[phase_name(phase)]++;

    const auto must_survive = committed(log);
    if (!fs::exists(db)) {
      ++no_file_yet;
      EXPECT_TRUE(must_survive.empty());
      continue;
    }
    {
      CheckDb check(db);
      ASSERT_TRUE(check.ok());
      ASSERT_EQ(check.value("PRAGMA integrity_check"), "ok")
          << "kill " << i << " in phase " << phase;
    }
    bool schema_committed = false;
    {
      CheckDb check(db);
      schema_committed =
          check.value("SELECT count(*) FROM sqlite_master WHERE name = 'run'") == "1";
    }
    if (!schema_committed) { // killed while creating the file: the next open starts it afresh
      ++no_schema_yet;
      EXPECT_TRUE(must_survive.empty());
      EXPECT_NO_THROW(Store(db, Store::Mode::read_write_create));
      continue;
    }
    // Opened read-only first: the dead writer's run must already read as interrupted, unwritten.
    bool had_running = false;
    {
      CheckDb check(db);
      had_running = check.value("SELECT count(*) FROM run WHERE status = 'running'") != "0";
    }
    if (had_running) {
      Store read_only(db, Store::Mode::read_only);
      for (const auto& r : read_only.list_runs())
        EXPECT_NE(r.status, "running") << r.id;
      CheckDb check(db);
      EXPECT_NE(check.value("SELECT count(*) FROM run WHERE status = 'running'"), "0")
          << "a read-only open wrote to the database";
    }
    { Store settle(db, Store::Mode::read_write_create); } // what the next `apod run` does first
    CheckDb check(db);
    EXPECT_EQ(check.value("SELECT count(*) FROM run WHERE status = 'running'"), "0")
        << "the killed writer's run is still 'running'";
    if (had_running)
      ++interrupted_marked;
    EXPECT_EQ(
        check.value(
            "SELECT count(*) FROM run WHERE status = 'interrupted' AND finished_at IS NOT NULL"),
        "0");
    EXPECT_EQ(
        check.value("SELECT count(*) FROM run WHERE status = 'complete' AND finished_at IS NULL"),
        "0");
    for (const auto& [run, name] : must_survive) {
      EXPECT_EQ(check.value("SELECT status FROM experiment_run WHERE run_id = ?1 AND name = '" +
                                name + "'",
                            run),
                "complete")
          << "committed experiment " << name << " of run " << run << " is missing after kill " << i;
    }
    const Contents c = check_whole_experiments(check);
    EXPECT_EQ(c.torn, 0);
    torn += c.torn;
    last_check[db] = {must_survive.size(), c.samples};
    EXPECT_GE(c.experiments, static_cast<int>(must_survive.size()));
    // A complete run holds every experiment it began (store_writer finishes only after the last).
    EXPECT_EQ(check.value("SELECT count(*) FROM run r WHERE status = 'complete' AND NOT EXISTS "
                          "(SELECT 1 FROM experiment_run e WHERE e.run_id = r.id)"),
              "0");
  }

  std::printf(
      "kills: %d (%d before the database file existed, %d before its schema was committed); "
      "interrupted runs marked: %d\n",
      kills, no_file_yet, no_schema_yet, interrupted_marked);
  for (const auto& [name, n] : phases)
    std::printf("  killed %s: %d\n", name.c_str(), n);
  size_t committed_total = 0;
  long samples_total = 0;
  for (const auto& [file, counts] : last_check)
    committed_total += counts.first, samples_total += counts.second;
  std::printf("%zu databases; %zu experiments committed before a kill, checked; %ld samples; torn "
              "experiments "
              "found: %d\n",
              last_check.size(), committed_total, samples_total, torn);
  EXPECT_GE(phases["inside an experiment's transaction"], 1)
      << "no kill landed inside a transaction";
  EXPECT_GT(interrupted_marked, 0);
}

TEST(CrashSafety, InterruptedRunIsResumedIntoTheSameRun) {
  TempDir dir;
  const std::string db = (dir.path / "resume.db").string(), log = (dir.path / "log").string();
  const pid_t pid = spawn({writer_program(), "stall", db, log, "3", "7"});
  ASSERT_GT(pid, 0);
  // Kill once three experiments are stored, while the run is unfinished.
  for (int i = 0; i < 10000 && committed(log).size() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(committed(log).size(), 3u);
  kill(pid, SIGKILL);
  wait_for(pid);
  Store store(db, Store::Mode::read_write);
  std::string interrupted;
  for (const auto& r : store.list_runs())
    if (r.status == "interrupted")
      interrupted = r.id;
  ASSERT_FALSE(interrupted.empty());
  const ResumableRun run = store.claim_run(interrupted);
  EXPECT_EQ(run.stored.size(), 3u);
  ASSERT_TRUE(run.environment.writer.has_value());
  EXPECT_EQ(run.environment.writer->pid, getpid()) << "this process is now the run's writer";
  EXPECT_EQ(run.environment.resumed.size(), 1u);
  for (const auto& r : store.list_runs()) {
    if (r.id == interrupted) {
      EXPECT_EQ(r.status, "running") << "claimed by a live process";
    }
  }
  ExperimentRecord extra;
  extra.name = "e99_m0_s0";
  extra.started_at = now_iso8601();
  store.save_experiment(interrupted, extra);
  store.finish_run(interrupted, store.run_has_failures(interrupted) ? "partial" : "complete");
  const json doc = store.export_results({interrupted});
  EXPECT_EQ(doc["runs"][0]["status"], "complete");
  EXPECT_EQ(doc["runs"][0]["experiments"].size(), run.stored.size() + 1);
  EXPECT_THROW(store.claim_run(interrupted), InputError) << "a finished run cannot be resumed";
}

int main(int argc, char** argv) {
  return writer_test_main(argc, argv);
}
