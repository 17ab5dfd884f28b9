// Readers, links and read-only media (issue 10): a database reached through a symbolic link
// while its WAL holds pages, and readers that start while another process creates the file,
// read correctly or wait; never "damaged" or "empty". (Read-only media: test_readonly_location.)
#include "core/errors.hpp"
#include "db_check.hpp"
#include "store/store.hpp"
#include "test_runs.hpp"

#include <atomic>
#include <thread>

using namespace apod;
using namespace reliability;

// The size check once looked for the WAL beside the link, not beside the file SQLite opened, and
// refused a healthy database as cut short.
TEST(Readers, ALinkedDatabaseWithALiveWalReads) {
  TempDir dir;
  fs::create_directories(dir.path / "real");
  const std::string real = (dir.path / "real" / "h.db").string();
  const std::string link = (dir.path / "h.db").string();
  { Store(real, Store::Mode::read_write_create).import_run(test_run("a0")); }
  fs::create_symlink(real, link);
  // A reader holding a snapshot keeps every later commit in the WAL: the main file stays short
  // of the pages its header counts.
  CheckDb holder(real);
  holder.exec("BEGIN; SELECT count(*) FROM run;");
  {
    Store writer(link, Store::Mode::read_write);
    for (int i = 1; i < 40; ++i)
      writer.import_run(test_run(std::string("a").append(std::to_string(i)), "complete", 20));
  }
  ASSERT_GT(fs::file_size(real + "-wal"), 0u) << "the WAL holds the new runs";
  try {
    Store reader(link, Store::Mode::read_only);
    EXPECT_EQ(reader.run_ids().size(), 40u);
    EXPECT_EQ(reader.read_runs().size(), 40u);
  } catch (const InputError& e) {
    ADD_FAILURE() << e.what();
  }
  holder.exec("COMMIT");
}

// Readers once failed with "is empty" when they came while `apod run` created the file.
TEST(Readers, ReadersRacingACreatingWriterReadOrWait) {
  TempDir dir;
  int failures = 0, reads = 0;
  for (int round = 0; round < 10; ++round) {
    const std::string db = (dir.path / ("race" + std::to_string(round) + ".db")).string();
    std::atomic<bool> stop = false;
    std::vector<std::thread> readers;
    std::vector<std::string> errors(4);
    for (int r = 0; r < 4; ++r)
      readers.emplace_back([&, r] {
        while (!fs::exists(db) && !stop)
          std::this_thread::yield();
        try {
          Store store(db, Store::Mode::read_only);
          store.list_runs();
        } catch (const std::exception& e) {
          errors[r] = e.what();
        }
      });
    const pid_t writer = spawn({writer_program(), "batch", db, "2", "3", std::to_string(round)});
    EXPECT_EQ(wait_for(writer), 0);
    stop = true;
    for (auto& t : readers)
      t.join();
    for (const auto& e : errors) {
      ++reads;
      if (!e.empty()) {
        ++failures;
        ADD_FAILURE() << "a reader failed: " << e;
      }
    }
  }
  std::printf("%d readers racing a creating writer, %d failed\n", reads, failures);
}

int main(int argc, char** argv) {
  return writer_test_main(argc, argv);
}
