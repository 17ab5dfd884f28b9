// Foreign databases are checked before use (issue 10): a file that carries anything apod did not
// create (a trigger, a view, a changed table, an index, an out-of-range schema version) is
// refused with InputError before any read or write, and nothing stored in it ever runs. Reads
// are bounded in time and in the size of a value.
#include "core/errors.hpp"
#include "core/limits.hpp"
#include "db_check.hpp"
#include "store/store.hpp"
#include "test_runs.hpp"

#include <chrono>

using namespace apod;
using namespace reliability;

namespace {

std::string make_database(const TempDir& dir, int runs = 2) {
  const std::string path = (dir.path / "h.db").string();
  Store store(path, Store::Mode::read_write_create);
  for (int i = 0; i < runs; ++i)
    store.import_run(test_run("a" + std::to_string(i)));
  return path;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// The message of the InputError that opening `path` in `mode` (and reading every run) threw,
/// or "(accepted)".
std::string refusal(const std::string& path, Store::Mode mode) {
  try {
    Store store(path, mode);
    store.read_runs();
    store.list_runs();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

/// Tampers with a real apod database as another program could, then expects every way in to
/// refuse it with `expected` in the message, and the file to be left as the tampering left it.
void expect_refused(const std::string& sql, const std::string& expected) {
  TempDir dir;
  const std::string path = make_database(dir);
  {
    CheckDb raw(path);
    raw.exec(sql);
  }
  const std::string before = file_bytes(path);
  for (const auto mode :
       {Store::Mode::read_only, Store::Mode::read_write, Store::Mode::read_write_create}) {
    const std::string why = refusal(path, mode);
    EXPECT_NE(why.find(expected), std::string::npos) << sql << "\n  gave: " << why;
  }
  EXPECT_THROW(Store::write_into(path, [](Store& s) { s.import_run(test_run("b1")); }), InputError);
  EXPECT_EQ(file_bytes(path), before) << "a refused file was changed: " << sql;
  CheckDb raw(path);
  EXPECT_EQ(raw.value("SELECT count(*) FROM run"), "2") << "a stored trigger ran: " << sql;
}

} // namespace

TEST(ForeignDatabase, TriggersAreRefusedAndNeverRun) {
  expect_refused("CREATE TRIGGER wipe AFTER INSERT ON run BEGIN DELETE FROM run; END",
                 "holds a trigger \"wipe\" that apod did not create");
  expect_refused("CREATE TRIGGER scale AFTER INSERT ON sample BEGIN "
                 "UPDATE sample SET value = value * 1.5; END",
                 "holds a trigger \"scale\"");
}

TEST(ForeignDatabase, ViewsAreRefusedWithoutBeingRead) {
  expect_refused("DROP TABLE telemetry; CREATE VIEW telemetry AS "
                 "SELECT 'a0' AS run_id, 0 AS seq, '{}' AS reading",
                 "holds a view \"telemetry\" where apod's schema has a table");
  const auto start = std::chrono::steady_clock::now();
  expect_refused("CREATE VIEW forever AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
                 "SELECT x + 1 FROM c) SELECT x FROM c",
                 "holds a view \"forever\"");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(ForeignDatabase, ChangedTablesAndExtraIndexesAreRefused) {
  expect_refused("ALTER TABLE run ADD COLUMN evil TEXT", "defines the table \"run\" differently");
  expect_refused("CREATE INDEX by_label ON run(label)", "holds a index \"by_label\"");
  expect_refused("CREATE TABLE notes(x)", "holds a table \"notes\"");
  expect_refused("DROP INDEX measurement_by_key", "lacks the index \"measurement_by_key\"");
}

// A negative version once indexed the migrations array out of range (SIGSEGV).
TEST(ForeignDatabase, SchemaVersionsOutOfRangeAreRefused) {
  expect_refused("PRAGMA user_version = -1", "has schema version -1, which no apod writes");
  expect_refused("PRAGMA user_version = 2147483647", "newer than this apod understands");
  expect_refused("PRAGMA user_version = 2", "differently from apod's schema version 2");
  // A file of version 4 that says 3 has a class column that version 3 lacks.
  expect_refused("PRAGMA user_version = 3",
                 "defines the table \"measurement\" differently from apod's schema version 3");
  expect_refused("PRAGMA application_id = 0", "is not an apod database");
}

// The CHECK on measurement.class holds only while SQLite enforces it: another program may turn
// it off. A class apod does not know is refused, never read as some other class.
TEST(ForeignDatabase, AnUnknownStoredClassIsRefused) {
  TempDir dir;
  const std::string path = make_database(dir);
  {
    CheckDb raw(path);
    raw.exec("PRAGMA ignore_check_constraints = ON; UPDATE measurement SET class = 'warp'");
    ASSERT_EQ(raw.value("SELECT count(*) FROM measurement WHERE class = 'warp'"), "2");
  }
  const std::string read = refusal(path, Store::Mode::read_only);
  EXPECT_NE(read.find("has the class \"warp\", which apod does not know"), std::string::npos)
      << read;
  // Before a write, quick_check finds the row that breaks its CHECK.
  const std::string write = refusal(path, Store::Mode::read_write);
  EXPECT_NE(write.find("CHECK constraint failed in measurement"), std::string::npos) << write;
}

TEST(ForeignDatabase, AStatementStepIsBoundedInTime) {
  sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  db.set_step_limit_ms(200);
  const auto start = std::chrono::steady_clock::now();
  try {
    sqlite::Statement forever(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                                  "SELECT count(*) FROM c");
    forever.step();
    ADD_FAILURE() << "an endless statement returned";
  } catch (const sqlite::Error& e) {
    EXPECT_EQ(e.code() & 0xff, SQLITE_INTERRUPT);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(ForeignDatabase, StoredValuesAreBoundedInSize) {
  TempDir dir;
  const std::string path = make_database(dir);
  {
    CheckDb raw(path);
    raw.exec("UPDATE run SET label = printf('%.*c', 20000000, 'x') WHERE id = 'a0'");
  }
  EXPECT_NE(refusal(path, Store::Mode::read_only).find("larger than"), std::string::npos)
      << refusal(path, Store::Mode::read_only);
  {
    CheckDb raw(path);
    raw.exec("UPDATE run SET label = printf('%.*c', 5000, 'x') WHERE id = 'a0'");
  }
  EXPECT_NE(refusal(path, Store::Mode::read_only).find("label: 5000 bytes, more than 4096"),
            std::string::npos)
      << refusal(path, Store::Mode::read_only);
}

// `merge` once dropped a run whose device row was missing, without a word.
TEST(ForeignDatabase, ARunWithoutItsDeviceRowIsListedNotDropped) {
  TempDir dir;
  const std::string path = make_database(dir);
  {
    CheckDb raw(path);
    raw.exec("PRAGMA foreign_keys = OFF; DELETE FROM device");
  }
  Store store(path, Store::Mode::read_only);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].device_name, "Test GPU");
  EXPECT_EQ(store.read_runs().size(), 2u);
}

TEST(ForeignDatabase, DatabasePathsThatStoreNothingAreRefused) {
  for (const std::string path : {"", ":memory:", "file:x?mode=memory", "file:h.db"})
    EXPECT_THROW(check_database_path(path), InputError) << path;
  EXPECT_NO_THROW(check_database_path("./file:h.db"));
  EXPECT_THROW(Store("", Store::Mode::read_write_create), InputError);
  EXPECT_THROW(Store("file:x?mode=memory", Store::Mode::read_write_create), InputError);
}
