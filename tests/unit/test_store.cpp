// The SQLite store (runner/store/): schema, transactions, identity checks, round trips, and the
// statements bound and read by name (store/sqlite.hpp).
#include "core/errors.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

using namespace apod;
namespace fs = std::filesystem;

namespace {

DeviceInfo test_device() {
  DeviceInfo d;
  d.name = "Test GPU <b>&\"'";
  d.uuid = "GPU-test";
  d.memory_clock_khz = 1000000;
  d.memory_bus_width_bits = 1024;
  return d;
}

ExperimentRecord test_experiment() {
  ExperimentRecord r;
  r.name = "offset_copy";
  r.started_at = now_iso8601();
  r.wall_s = 1.5;
  Measurement ok;
  ok.experiment = "offset_copy";
  ok.params = {{"word_bytes", 4}, {"offset", 1}};
  ok.metric = "effective_bandwidth";
  ok.unit = "GB/s";
  ok.samples = {100.0, 300.0, 200.0, 0.1 + 0.2};
  ok.verified = true;
  Measurement bad = ok;
  bad.params = {{"word_bytes", 4}, {"offset", 2}};
  bad.verified = false;
  r.measurements = {ok, bad};
  return r;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("apod-test-" + new_run_id());
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST(Store, InMemoryRunRoundTripKeepsEverySample) {
  Store store(":memory:", Store::Mode::read_write_create);
  const std::string id = store.begin_run("label '; DROP TABLE run; --", test_device(), {{"host", "h"}});
  store.save_experiment(id, test_experiment());
  store.finish_run(id, "partial");

  const json doc = store.export_results();
  ASSERT_EQ(doc["runs"].size(), 1u);
  const json& run = doc["runs"][0];
  EXPECT_EQ(run["id"], id);
  EXPECT_EQ(run["label"], "label '; DROP TABLE run; --") << "labels are stored verbatim";
  EXPECT_EQ(run["status"], "partial");
  EXPECT_FALSE(run["finished_at"].is_null());
  EXPECT_EQ(run["device"]["name"], "Test GPU <b>&\"'");
  EXPECT_NEAR(run["device"]["theoretical_bandwidth_gbs"].get<double>(), 256.0, 1e-9);
  ASSERT_EQ(run["measurements"].size(), 2u);
  const json& m = run["measurements"][0];
  EXPECT_EQ(m["params"]["offset"], 1);
  EXPECT_EQ(m["samples"].size(), 4u);
  EXPECT_EQ(m["samples"][3].get<double>(), 0.1 + 0.2) << "samples are stored bit-exactly";
  EXPECT_DOUBLE_EQ(m["median"].get<double>(), 150.0);
  EXPECT_DOUBLE_EQ(m["min"].get<double>(), 0.1 + 0.2);
  EXPECT_EQ(m["status"], "ok");
  const json& failed = run["measurements"][1];
  EXPECT_EQ(failed["status"], "failed") << "an unverified point is stored as failed";
  EXPECT_EQ(failed["verified"], false);
  EXPECT_FALSE(failed["error"].is_null());
  EXPECT_EQ(run["experiments"][0]["wall_s"], 1.5);
}

TEST(Store, FileDatabaseIsWalVersionedAndReopens) {
  TempDir dir;
  const std::string path = (dir.path / "apod.db").string();
  std::string id;
  {
    Store store(path, Store::Mode::read_write_create);
    id = store.begin_run("", test_device(), json::object());
    store.save_experiment(id, test_experiment());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  auto pragma = [&](const char* sql) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
    sqlite3_step(st);
    std::string v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
  };
  EXPECT_EQ(pragma("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(pragma("PRAGMA user_version"), std::to_string(Store::schema_version));
  EXPECT_EQ(pragma("PRAGMA application_id"), std::to_string(Store::application_id));
  sqlite3_close(db);

  Store again(path, Store::Mode::read_only);
  const auto runs = again.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, "running") << "a run that never finished stays visible as such";
  EXPECT_EQ(runs[0].measurements, 2);
  EXPECT_EQ(again.resolve_run_id(id.substr(0, 6)), id);
}

TEST(Store, ReadOnlyOpenOfMissingFileFailsWithoutCreatingIt) {
  TempDir dir;
  const auto path = dir.path / "missing.db";
  EXPECT_THROW(Store(path.string(), Store::Mode::read_only), InputError);
  EXPECT_FALSE(fs::exists(path));
}

TEST(Store, RefusesFileThatIsNotSqliteAndLeavesItAlone) {
  TempDir dir;
  const auto path = dir.path / "notes.db";
  std::ofstream(path) << "this is not a database, it is a text file with enough bytes to have a header";
  const auto before = fs::file_size(path);
  try {
    Store(path.string(), Store::Mode::read_write_create);
    FAIL() << "opened a text file as a database";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a SQLite database"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fs::file_size(path), before);
}

TEST(Store, RefusesAnotherProgramsDatabase) {
  TempDir dir;
  const auto path = (dir.path / "other.db").string();
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE customers(id INTEGER); INSERT INTO customers VALUES (1);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    Store(path, Store::Mode::read_write_create);
    FAIL() << "accepted a foreign database";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not an apod database"), std::string::npos) << e.what();
  }
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, nullptr);
  sqlite3_step(st);
  EXPECT_EQ(sqlite3_column_int(st, 0), 1) << "no apod table was added to the foreign database";
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(Store, RefusesNewerSchemaVersion) {
  TempDir dir;
  const auto path = (dir.path / "future.db").string();
  { Store s(path, Store::Mode::read_write_create); }
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    Store(path, Store::Mode::read_write_create);
    FAIL() << "accepted a newer schema";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

TEST(Store, FailedSaveRollsBackTheWholeExperiment) {
  Store store(":memory:", Store::Mode::read_write_create);
  // A run id that does not exist violates the foreign key: nothing of the experiment may remain.
  EXPECT_THROW(store.save_experiment("0123", test_experiment()), std::exception);
  const std::string id = store.begin_run("", test_device(), json::object());
  EXPECT_EQ(store.export_results()["runs"][0]["measurements"].size(), 0u);
  store.save_experiment(id, test_experiment());
  EXPECT_THROW(store.save_experiment(id, test_experiment()), std::exception) << "same experiment twice in a run";
  EXPECT_EQ(store.export_results()["runs"][0]["measurements"].size(), 2u);
}

TEST(Store, ImportIsIdempotentAndLossless) {
  Store a(":memory:", Store::Mode::read_write_create);
  const std::string id = a.begin_run("x", test_device(), {{"k", "v"}});
  a.save_experiment(id, test_experiment());
  a.finish_run(id, "complete");
  const json exported = a.export_results();

  Store b(":memory:", Store::Mode::read_write_create);
  EXPECT_TRUE(b.import_run(run_from_json(exported["runs"][0], "run")));
  EXPECT_FALSE(b.import_run(run_from_json(exported["runs"][0], "run"))) << "importing the same run twice changes nothing";
  EXPECT_EQ(b.export_results(), exported);
}

TEST(Statement, BindsAndReadsByName) {
  sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite::Statement st(db, "SELECT :text AS word, :number * 2 AS twice, :none AS absent, "
                           ":number AS again");
  st.bind(":text", "median").bind(":number", 21).bind(":none", nullptr);
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.get_text("word"), "median");
  EXPECT_EQ(st.get_int("twice"), 42) << "a parameter used twice is bound once";
  EXPECT_EQ(st.get_int("again"), 21);
  EXPECT_TRUE(st.is_null("absent"));
  EXPECT_EQ(st.get_optional_text("absent"), std::nullopt);
  EXPECT_EQ(st.get_optional_double("twice"), 42.0);
}

TEST(Statement, AnUnknownParameterIsALogicErrorNamingIt) {
  sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite::Statement st(db, "SELECT :median AS median");
  try {
    st.bind(":medain", 1.0);
    FAIL() << "bound a parameter the SQL lacks";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find(":medain"), std::string::npos) << e.what();
  }
}

TEST(Statement, AnUnknownColumnIsALogicErrorNamingIt) {
  sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite::Statement st(db, "SELECT 1 AS noisy, 2 AS n, 3 AS n");
  ASSERT_TRUE(st.step());
  for (const char* name : {"metric", "n"}) {
    try {
      st.get_int(name);
      FAIL() << "read a column by a name that is not one: " << name;
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("\"") + name + "\""), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(st.get_int("noisy"), 1);
}

TEST(Statement, AStepWithAParameterLeftUnboundIsALogicError) {
  sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  db.exec("CREATE TABLE t(a, b)");
  sqlite::Statement st(db, "INSERT INTO t(a, b) VALUES (:a, :b)");
  st.bind(":a", 1);
  try {
    st.run();
    FAIL() << "stepped with :b unbound (SQLite would have stored NULL)";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find(":b"), std::string::npos) << e.what();
  }
  st.reset();
  st.bind(":a", 1).bind(":b", 2).run();
  st.reset();
  EXPECT_THROW(st.run(), std::logic_error) << "reset unbinds every parameter";
}
