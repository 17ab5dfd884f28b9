// The SQLite store (runner/store/): schema, transactions, identity checks, round trips, and the
// statements bound and read by name (store/sqlite.hpp).
#include "core/catalog.hpp"
#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "core/results_json.hpp"
#include "store/schema.hpp"
#include "store/sqlite.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

// No experiment's declaration is linked into this test, but this one: its metric is on_chip,
// so a point stored without a class can be seen to take its declared class rather than the
// derived that a Measurement holds by default.
APOD_DECLARE(Declaration{
    .name = "store_test_declared",
    .hidden = true,
    .metrics = {Metric{.name = "rate", .unit = "GB/s", .metric_class = MetricClass::on_chip}}});

// One point of each class, in an experiment that no declaration names: the class read back can
// only come from the store.
ExperimentRecord one_point_per_class() {
  ExperimentRecord r = test_experiment();
  r.name = "undeclared";
  r.measurements.clear();
  for (const MetricClass c : metric_classes) {
    Measurement m = test_experiment().measurements[0];
    m.experiment = r.name;
    m.params = {{"point", r.measurements.size()}};
    m.metric_class = c;
    r.measurements.push_back(m);
  }
  return r;
}

// A run holding one_point_per_class() as its only experiment, read back.
void expect_one_point_per_class(const RunRecord& run) {
  ASSERT_EQ(run.experiments.size(), 1u);
  const auto& points = run.experiments[0].measurements;
  ASSERT_EQ(points.size(), std::size(metric_classes));
  for (size_t i = 0; i < points.size(); ++i)
    EXPECT_STREQ(class_name(points[i].metric_class), class_name(metric_classes[i]));
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A file as apod left it at schema version 3, before points kept their class: built by the
// first three migrations, with a run written through SQL as that apod wrote it.
void write_version3_database(const std::string& path) {
  sqlite::Database db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  for (int version = 0; version < 3; ++version)
    db.exec(schema_migration(version));
  db.exec(
      fmt::format("PRAGMA user_version = 3; PRAGMA application_id = {}", Store::application_id));
  db.exec(R"sql(
INSERT INTO device(id, uuid, name) VALUES (1, 'GPU-old', 'Old GPU');
INSERT INTO run(id, label, started_at, finished_at, status, apod_version, device_id, device_facts)
  VALUES ('a3', 'v3', '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z', 'complete', '0.1.0',
          1, '{"name":"Old GPU","uuid":"GPU-old"}');
INSERT INTO experiment_run(id, run_id, name, version, status, started_at)
  VALUES (1, 'a3', 'store_test_declared', 1, 'complete', '2026-01-01T00:00:00.000Z'),
         (2, 'a3', 'offset_copy', 1, 'complete', '2026-01-01T00:00:30.000Z');
INSERT INTO measurement(id, experiment_run_id, params, metric, unit, direction, n, verified, status)
  VALUES (1, 1, '{}', 'rate', 'GB/s', 'higher', 2, 1, 'ok'),
         (2, 2, '{"offset":0}', 'effective_bandwidth', 'GB/s', 'higher', 2, 1, 'ok');
INSERT INTO sample(measurement_id, seq, value)
  VALUES (1, 0, 10), (1, 1, 11), (2, 0, 20), (2, 1, 21);
)sql");
}

// The points of write_version3_database's run, read back: the declared experiment's point takes
// its metric's class. offset_copy is not declared in this test binary (no experiment is linked
// into it), so declared_class finds no declaration and its point reads as derived.
void expect_declared_classes(const RunRecord& run) {
  ASSERT_EQ(run.experiments.size(), 2u);
  ASSERT_EQ(run.experiments[0].measurements.size(), 1u);
  ASSERT_EQ(run.experiments[1].measurements.size(), 1u);
  EXPECT_STREQ(class_name(run.experiments[0].measurements[0].metric_class), "on_chip");
  EXPECT_STREQ(class_name(run.experiments[1].measurements[0].metric_class), "derived");
  EXPECT_EQ(run.experiments[1].measurements[0].samples, (std::vector<double>{20, 21}));
}

int64_t stored_version(const std::string& path) {
  sqlite::Database db(path, SQLITE_OPEN_READONLY);
  sqlite::Statement st(db, "PRAGMA user_version");
  return st.step() ? st.get_int("user_version") : -1;
}

} // namespace

TEST(Store, InMemoryRunRoundTripKeepsEverySample) {
  Store store(":memory:", Store::Mode::read_write_create);
  const std::string id = store.begin_run("label '; DROP TABLE run; --", test_device(),
                                         environment_from_json({{"host", "h"}}));
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
    id = store.begin_run("", test_device(), Environment{});
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
  std::ofstream(path)
      << "this is not a database, it is a text file with enough bytes to have a header";
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
  sqlite3_exec(db, "CREATE TABLE customers(id INTEGER); INSERT INTO customers VALUES (1);", nullptr,
               nullptr, nullptr);
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
  for (const int version : {Store::schema_version + 1, 99}) {
    sqlite::Database(path, SQLITE_OPEN_READWRITE)
        .exec(fmt::format("PRAGMA user_version = {}", version));
    for (const auto mode : {Store::Mode::read_only, Store::Mode::read_write_create}) {
      try {
        Store(path, mode);
        FAIL() << "accepted schema version " << version;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(fmt::format("has schema version {}, newer", version)),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

TEST(Store, FailedSaveRollsBackTheWholeExperiment) {
  Store store(":memory:", Store::Mode::read_write_create);
  // A run id that does not exist violates the foreign key: nothing of the experiment may remain.
  EXPECT_THROW(store.save_experiment("0123", test_experiment()), std::exception);
  const std::string id = store.begin_run("", test_device(), Environment{});
  EXPECT_EQ(store.export_results()["runs"][0]["measurements"].size(), 0u);
  store.save_experiment(id, test_experiment());
  EXPECT_THROW(store.save_experiment(id, test_experiment()), std::exception)
      << "same experiment twice in a run";
  EXPECT_EQ(store.export_results()["runs"][0]["measurements"].size(), 2u);
}

TEST(Store, EachPointKeepsItsClass) {
  Store store(":memory:", Store::Mode::read_write_create);
  const std::string id = store.begin_run("", test_device(), Environment{});
  store.save_experiment(id, one_point_per_class());
  expect_one_point_per_class(store.read_run(id));
}

TEST(Store, ExportImportExportIsByteIdentical) {
  Store a(":memory:", Store::Mode::read_write_create);
  const std::string id = a.begin_run("x", test_device(), environment_from_json({{"k", "v"}}));
  a.save_experiment(id, test_experiment());
  a.save_experiment(id, one_point_per_class());
  a.finish_run(id, "complete");
  const std::string exported = a.export_results().dump(2);
  for (const MetricClass c : metric_classes)
    EXPECT_NE(exported.find(fmt::format("\"class\": \"{}\"", class_name(c))), std::string::npos);

  Store b(":memory:", Store::Mode::read_write_create);
  ASSERT_TRUE(b.import_run(run_from_json(json::parse(exported)["runs"][0], "run")));
  EXPECT_EQ(b.export_results().dump(2), exported);
}

TEST(Store, CsvExportOfStoredPointsHasTheirClassAfterDirection) {
  TempDir dir;
  Store store(":memory:", Store::Mode::read_write_create);
  const std::string id = store.begin_run("", test_device(), Environment{});
  store.save_experiment(id, one_point_per_class());
  const std::string path = (dir.path / "points.csv").string();
  OutputFile out(path, {});
  write_results_csv(out, [&](const auto& each) { store.for_each_run({}, each); });
  out.commit();
  std::istringstream csv(file_bytes(path));
  std::string line;
  std::getline(csv, line);
  EXPECT_NE(line.find(",metric,unit,direction,class,status,"), std::string::npos) << line;
  for (const MetricClass c : metric_classes) {
    std::getline(csv, line);
    EXPECT_NE(line.find(fmt::format(",GB/s,higher,{},ok,", class_name(c))), std::string::npos)
        << line;
  }
}

TEST(Store, AVersion3FileIsReadOnlyAsItIsWithItsPointsOfTheirDeclaredClass) {
  TempDir dir;
  const std::string path = (dir.path / "v3.db").string();
  write_version3_database(path);
  const std::string before = file_bytes(path);
  {
    Store store(path, Store::Mode::read_only);
    expect_declared_classes(store.read_run("a3"));
  }
  EXPECT_EQ(file_bytes(path), before) << "opened read-only, the file is not migrated";
  EXPECT_EQ(stored_version(path), 3);
}

TEST(Store, AVersion3FileOpenedForWritingIsMigratedTo4) {
  TempDir dir;
  const std::string path = (dir.path / "v3.db").string();
  write_version3_database(path);
  std::string id;
  {
    Store store(path, Store::Mode::read_write);
    expect_declared_classes(store.read_run("a3"));
    id = store.begin_run("", test_device(), Environment{});
    store.save_experiment(id, one_point_per_class());
  }
  EXPECT_EQ(stored_version(path), 4);
  {
    sqlite::Database db(path, SQLITE_OPEN_READONLY);
    sqlite::Statement st(db, "SELECT count(*) AS points, count(class) AS classed FROM measurement");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.get_int("points"), 2 + int64_t(std::size(metric_classes)));
    EXPECT_EQ(st.get_int("classed"), int64_t(std::size(metric_classes)))
        << "rows stored before the migration keep no class; new ones store theirs";
  }
  Store again(path, Store::Mode::read_only);
  expect_declared_classes(again.read_run("a3"));
  expect_one_point_per_class(again.read_run(id));
}

TEST(Store, ImportIsIdempotentAndLossless) {
  Store a(":memory:", Store::Mode::read_write_create);
  const std::string id = a.begin_run("x", test_device(), environment_from_json({{"k", "v"}}));
  a.save_experiment(id, test_experiment());
  a.finish_run(id, "complete");
  const json exported = a.export_results();

  Store b(":memory:", Store::Mode::read_write_create);
  EXPECT_TRUE(b.import_run(run_from_json(exported["runs"][0], "run")));
  EXPECT_FALSE(b.import_run(run_from_json(exported["runs"][0], "run")))
      << "importing the same run twice changes nothing";
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

// Runs `f`, which must throw a std::logic_error (a bug in apod's SQL) whose message holds `words`.
template <typename F> void expect_logic_error(F&& f, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "no logic_error naming " << words;
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(Statement, AnUnknownParameterOrColumnIsALogicErrorNamingIt) {
  sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite::Statement st(db, "SELECT :median AS median, 2 AS n, 3 AS n");
  expect_logic_error([&] { st.bind(":medain", 1.0); }, "no parameter :medain");
  st.bind(":median", 1.0);
  ASSERT_TRUE(st.step());
  expect_logic_error([&] { st.get_int("metric"); }, "no column \"metric\"");
  expect_logic_error([&] { st.get_int("n"); }, "two columns are named \"n\"");
  EXPECT_EQ(st.get_double("median"), 1.0);
}

TEST(Statement, AStepWithAParameterLeftUnboundIsALogicError) {
  sqlite::Database db(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  db.exec("CREATE TABLE t(a, b)");
  sqlite::Statement st(db, "INSERT INTO t(a, b) VALUES (:a, :b)");
  st.bind(":a", 1);
  // SQLite would have stored NULL in b.
  expect_logic_error([&] { st.run(); }, "parameter :b is not bound");
  st.reset();
  st.bind(":a", 1).bind(":b", 2).run();
  st.reset();
  expect_logic_error([&] { st.run(); }, "parameter :a is not bound"); // reset unbinds them all
}
