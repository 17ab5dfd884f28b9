// Eight processes write one database at once, released together on a file that does not exist
// yet (so they also race to create and migrate it): every process must succeed, and every run,
// experiment, measurement and sample must be there. APOD_WRITERS and APOD_WRITER_RUNS override
// the 8 processes and 20 runs each.
#include "db_check.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

using namespace reliability;

namespace {
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::max(1, std::atoi(v)) : fallback;
}
} // namespace

TEST(ConcurrentWriters, EightProcessesLoseNoRowAndReportNoError) {
  ASSERT_FALSE(writer_program().empty());
  const int writers = env_int("APOD_WRITERS", 8), runs = env_int("APOD_WRITER_RUNS", 20),
            experiments = 5;
  TempDir dir;
  const std::string db = (dir.path / "shared.db").string();
  const std::string go = (dir.path / "go").string();
  std::vector<pid_t> pids;
  for (int w = 0; w < writers; ++w) {
    pids.push_back(spawn({writer_program(), "batch", db, std::to_string(runs),
                          std::to_string(experiments), std::to_string(1000 + w), go}));
    ASSERT_GT(pids.back(), 0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100)); // all started and waiting
  std::ofstream{go};
  for (pid_t pid : pids)
    EXPECT_EQ(wait_for(pid), 0) << "a writer reported an error (see its stderr above)";

  CheckDb check(db);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check.value("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(check.value("SELECT count(*) FROM run"), std::to_string(writers * runs));
  EXPECT_EQ(
      check.value("SELECT count(*) FROM run WHERE status = 'complete' AND finished_at IS NOT NULL"),
      std::to_string(writers * runs));
  EXPECT_EQ(
      check.value("SELECT count(DISTINCT json_extract(environment, '$.writer.pid')) FROM run"),
      std::to_string(writers))
      << "each run records the process that wrote it";
  EXPECT_EQ(check.value("SELECT count(*) FROM experiment_run"),
            std::to_string(writers * runs * experiments));
  const Contents c = check_whole_experiments(check);
  EXPECT_EQ(c.experiments, writers * runs * experiments);
  EXPECT_EQ(c.torn, 0);
  std::printf("%d writers x %d runs x %d experiments: %d experiments, %s measurements, %ld "
              "samples, all present\n",
              writers, runs, experiments, c.experiments,
              check.value("SELECT count(*) FROM measurement").c_str(), c.samples);
}

int main(int argc, char** argv) {
  return writer_test_main(argc, argv);
}
