// The store's recovery rules (store_recovery.cpp, writer.cpp): which runs count as interrupted,
// which may be resumed, a read-only open that reports without writing, and a full disk that
// leaves the database as it was.
#include "core/errors.hpp"
#include "db_check.hpp"
#include "store/store.hpp"
#include "store/writer.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <iterator>
#include <map>
#include <sstream>

using namespace apod;
using namespace reliability;

namespace {

DeviceInfo test_device() {
  DeviceInfo d;
  d.name = "Recovery GPU";
  d.uuid = "GPU-recovery";
  d.memory_clock_khz = 1000000;
  d.memory_bus_width_bits = 1024;
  return d;
}

ExperimentRecord experiment(const std::string& name, int samples = 5, bool verified = true) {
  ExperimentRecord r;
  r.name = name;
  r.started_at = now_iso8601();
  Measurement m;
  m.experiment = name;
  m.params = {{"p", 1}};
  m.metric = "effective_bandwidth";
  m.unit = "GB/s";
  m.verified = verified;
  for (int i = 0; i < samples; ++i)
    m.samples.push_back(100.0 + i);
  r.measurements.push_back(m);
  return r;
}

/// Rewrites a run's recorded writer (as if another process had begun it).
void set_writer(const std::string& db, const std::string& run, const Writer& writer) {
  CheckDb check(db);
  check.rows("UPDATE run SET environment = json_set(environment, '$.writer', json('" +
                 to_json(writer).dump() + "')) WHERE id = ?1",
             run);
}

std::string status_of(Store& store, const std::string& id) {
  for (const auto& r : store.list_runs())
    if (r.id == id)
      return r.status;
  return "absent";
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

TEST(WriterState, TellsLiveDeadAndForeignProcessesApart) {
  const Writer me = current_writer();
  EXPECT_EQ(me.pid, getpid());
  EXPECT_GE(me.start_ticks, 0);
  EXPECT_EQ(writer_state(me), WriterState::alive);

  Writer reused = me; // the same pid started at another time: a reused pid, the writer is gone
  reused.start_ticks = me.start_ticks + 1;
  EXPECT_EQ(writer_state(reused), WriterState::gone);

  const pid_t child = spawn({"/bin/true"});
  ASSERT_GT(child, 0);
  Writer dead = me;
  dead.pid = child;
  const auto child_stat = [&](int field) { // fields after the command name, 3 = state
    std::ifstream in("/proc/" + std::to_string(child) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    std::istringstream rest(stat.substr(stat.rfind(')') + 1));
    std::string value;
    for (int i = 3; i <= field && rest >> value;)
      ++i;
    return value;
  };
  for (int i = 0; i < 5000 && child_stat(3) != "Z"; ++i)
    usleep(1000);
  ASSERT_EQ(child_stat(3), "Z") << "the child should have exited, unreaped";
  dead.start_ticks = std::stoll(child_stat(22)); // its true start: only its state tells
  EXPECT_EQ(writer_state(dead), WriterState::gone) << "a zombie (exited, not yet reaped) is gone";
  wait_for(child);
  EXPECT_EQ(writer_state(dead), WriterState::gone);

  Writer rebooted = me;
  rebooted.boot_id = "00000000-0000-0000-0000-000000000000";
  EXPECT_EQ(writer_state(rebooted), WriterState::gone)
      << "same host, another boot: the process died with it";

  Writer elsewhere = dead;
  elsewhere.host = me.host + "-other";
  EXPECT_EQ(writer_state(elsewhere), WriterState::unknown)
      << "another host's processes are not ours to judge";
  Writer other_namespace = dead;
  other_namespace.pid_namespace = "pid:[1]";
  EXPECT_EQ(writer_state(other_namespace), WriterState::unknown);
  EXPECT_EQ(writer_state(Writer{}), WriterState::unknown);
  EXPECT_EQ(writer_state(writer_from_json(json("text"))), WriterState::unknown);
}

TEST(StoreRecovery, OpeningForWritingMarksOnlyDeadWritersRunsInterrupted) {
  TempDir dir;
  const std::string db = (dir.path / "a.db").string();
  std::string dead_run, live_run, foreign_run;
  {
    Store store(db, Store::Mode::read_write_create);
    dead_run = store.begin_run("dead", test_device(), Environment{});
    store.save_experiment(dead_run, experiment("x"));
    live_run = store.begin_run("live", test_device(), Environment{});
    foreign_run = store.begin_run("foreign", test_device(), Environment{});
  }
  Writer dead = current_writer();
  dead.start_ticks += 1;
  set_writer(db, dead_run, dead);
  Writer foreign = current_writer();
  foreign.host = "another-machine";
  set_writer(db, foreign_run, foreign);

  const std::string before = file_bytes(db);
  {
    Store read_only(db, Store::Mode::read_only);
    std::map<std::string, std::string> status;
    for (const auto& r : read_only.list_runs())
      status[r.id] = r.status;
    EXPECT_EQ(status[dead_run], "interrupted") << "shown as interrupted";
    EXPECT_EQ(status[live_run], "running");
    EXPECT_EQ(status[foreign_run], "running");
    const json doc = read_only.export_results({dead_run});
    EXPECT_EQ(doc["runs"][0]["status"], "interrupted");
    EXPECT_TRUE(doc["runs"][0]["finished_at"].is_null());
  }
  EXPECT_EQ(file_bytes(db), before) << "a read-only open wrote to the file";
  CheckDb check(db);
  EXPECT_EQ(check.value("SELECT status FROM run WHERE id = ?1", dead_run), "running");

  { Store writer(db, Store::Mode::read_write); }
  EXPECT_EQ(check.value("SELECT status FROM run WHERE id = ?1", dead_run), "interrupted");
  EXPECT_EQ(check.value("SELECT status FROM run WHERE id = ?1", live_run), "running")
      << "its writer (us) lives";
  EXPECT_EQ(check.value("SELECT status FROM run WHERE id = ?1", foreign_run), "running")
      << "another host's run is left alone";
  EXPECT_EQ(check.value("SELECT count(*) FROM experiment_run WHERE run_id = ?1", dead_run), "1");
}

TEST(StoreRecovery, ClaimRunAcceptsOnlyResumableRuns) {
  Store store(":memory:", Store::Mode::read_write_create);
  const std::string finished = store.begin_run("", test_device(), Environment{});
  store.finish_run(finished, "complete");
  try {
    store.claim_run(finished);
    FAIL() << "claimed a finished run";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has finished (complete)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(store.claim_run("ffff"), InputError);

  // Running under this very process: a runner that re-executed itself continues its own run.
  const std::string mine =
      store.begin_run("", test_device(), environment_from_json({{"plan", json::array()}}));
  store.save_experiment(mine, experiment("first"));
  ResumableRun r = store.claim_run(mine);
  EXPECT_EQ(r.stored, std::vector<std::string>{"first"});
  EXPECT_TRUE(r.environment.resumed.empty()) << "the same process takes no new writer record";

  store.mark_interrupted(mine);
  EXPECT_EQ(status_of(store, mine), "interrupted");
  r = store.claim_run(mine); // (a resume by another process is recorded: test_crash_safety)
  EXPECT_EQ(status_of(store, mine), "running");
  EXPECT_TRUE(r.environment.plan.has_value()) << "the environment comes back whole";
}

TEST(StoreRecovery, ClaimRunRefusesARunALiveProcessIsWriting) {
  TempDir dir;
  const std::string db = (dir.path / "live.db").string();
  std::string run;
  {
    Store store(db, Store::Mode::read_write_create);
    run = store.begin_run("", test_device(), Environment{});
  }
  // pid 1 runs for as long as this machine (or container) does.
  Writer init = current_writer();
  const int64_t init_ticks = [] {
    std::ifstream in("/proc/1/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    std::istringstream rest(stat.substr(stat.rfind(')') + 1));
    std::string f;
    for (int i = 3; i <= 22; ++i)
      rest >> f;
    return int64_t(std::stoll(f));
  }();
  init.pid = 1;
  init.start_ticks = init_ticks;
  set_writer(db, run, init);
  Store store(db, Store::Mode::read_write);
  try {
    store.claim_run(run);
    FAIL() << "claimed a run that a live process is writing";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("still being written (pid 1"), std::string::npos)
        << e.what();
  }
}

TEST(StoreRecovery, TelemetryOfAResumedRunIsAppendedAndFailuresAreCounted) {
  Store store(":memory:", Store::Mode::read_write_create);
  const std::string id = store.begin_run("", test_device(), Environment{});
  const auto reading_at = [](double t_s) {
    TelemetryReading r;
    r.t_s = t_s;
    return r;
  };
  store.save_telemetry(id, {reading_at(0), reading_at(1)});
  store.save_telemetry(id, {reading_at(0)});
  EXPECT_EQ(store.export_results()["runs"][0]["telemetry"].size(), 3u);
  store.save_experiment(id, experiment("good"));
  EXPECT_FALSE(store.run_has_failures(id));
  store.save_experiment(id, experiment("unverified", 5, false));
  EXPECT_TRUE(store.run_has_failures(id)) << "a failed point makes the run partial";
  const std::string other = store.begin_run("", test_device(), Environment{});
  ExperimentRecord failed = experiment("faulted");
  failed.status = "failed";
  failed.measurements.clear();
  store.save_experiment(other, failed);
  EXPECT_TRUE(store.run_has_failures(other)) << "a failed experiment makes the run partial";
}

// A full disk, simulated by a file-size limit (which works as root too): the failed write is
// reported as such, with exit code 2's InputError, and the database keeps what it had.
TEST(StoreRecovery, FileSizeLimitGivesAClearErrorAndKeepsTheDatabase) {
  TempDir dir;
  const std::string db = (dir.path / "full.db").string();
  std::string first;
  {
    Store store(db, Store::Mode::read_write_create);
    first = store.begin_run("before", test_device(), Environment{});
    store.save_experiment(first, experiment("kept", 50));
    store.finish_run(first, "complete");
  }
  std::string exported_before;
  {
    Store store(db, Store::Mode::read_only);
    exported_before = store.export_results().dump();
  }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) { // the limit applies to this process only
    signal(SIGXFSZ, SIG_IGN);
    const rlim_t limit =
        fs::file_size(db) + (fs::exists(db + "-wal") ? fs::file_size(db + "-wal") : 0) + 8192;
    rlimit rl{limit, limit};
    setrlimit(RLIMIT_FSIZE, &rl);
    int code = 10;
    try {
      Store store(db, Store::Mode::read_write_create);
      const std::string run = store.begin_run("after", test_device(), Environment{});
      store.save_experiment(run, experiment("too_big", 200000));
      code = 11; // the write went through: the limit did not bite
    } catch (const InputError& e) {
      const std::string what = e.what();
      code = what.find("disk is full or a file-size limit") != std::string::npos ||
                     what.find("a full disk, a file-size limit") != std::string::npos
                 ? 0
                 : 12;
      if (code)
        std::fprintf(stderr, "message: %s\n", e.what());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "wrong exception type: %s\n", e.what());
      code = 13;
    }
    _exit(code);
  }
  EXPECT_EQ(wait_for(child), 0) << "10/11: no error, 12: unclear message, 13: not an InputError";
  CheckDb check(db);
  EXPECT_EQ(check.value("PRAGMA integrity_check"), "ok");
  Store store(db, Store::Mode::read_write_create);
  json after = store.export_results();
  // The child's run row may have committed before its experiment failed; it is then a dead
  // writer's run, interrupted. Everything that was there before is unchanged.
  json kept = json::parse(exported_before);
  ASSERT_GE(after["runs"].size(), 1u);
  EXPECT_EQ(after["runs"][0], kept["runs"][0]);
  if (after["runs"].size() == 2) {
    EXPECT_EQ(after["runs"][1]["status"], "interrupted");
    EXPECT_EQ(after["runs"][1]["experiments"].size(), 0u)
        << "the experiment that did not fit is wholly absent";
  }
}
