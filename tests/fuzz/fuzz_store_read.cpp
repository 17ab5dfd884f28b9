// libFuzzer target: the database read path on mutated apod databases. The input is SQL that
// another program runs on a copy of a real apod database (any statement: UPDATE a value, DELETE
// a device row, CREATE a trigger or view, set user_version), bounded in time and size; then apod
// reads it every way a command does: list, every run read back and serialised, opened for
// writing and imported into, and its runs merged into another store. Refusal with InputError is
// the right answer to a file changed outside apod; any other exception, a crash, a sanitizer
// report or a hang is a bug.
#include "core/errors.hpp"
#include "store/store.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

using namespace apod;

std::string scratch(const char* what) {
  const char* dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/apod-fuzz-read-" + what + "-" + std::to_string(getpid()) + ".db";
}

RunRecord sample_run(const std::string& id, const std::string& status, int experiments) {
  RunRecord r;
  r.id = id;
  r.label = "fuzz";
  r.started_at = "2026-01-01T00:00:00.000Z";
  r.status = status;
  r.environment =
      environment_from_json({{"writer", {{"host", "h"}, {"pid", 1}}}, {"plan", {"e0", "e1"}}});
  r.device = device_from_json({{"name", "GPU"}, {"uuid", "GPU-1"}, {"memory_clock_khz", 1000}});
  r.telemetry = {telemetry_from_json({{"t_s", 0.5}, {"sm_clock_mhz", 1980}}, "telemetry")};
  for (int k = 0; k < experiments; ++k) {
    ExperimentRecord e{"e" + std::to_string(k), 1, "complete", "", r.started_at, 1.5, {}};
    Measurement m;
    m.experiment = e.name;
    m.params = {{"offset", k}, {"mode", "a"}};
    m.metric = "effective_bandwidth";
    m.unit = "GB/s";
    m.samples = {100.0, 101.0, 99.5};
    m.excluded = {0, 1, 0};
    m.verified = true;
    m.extra = {{"limit_gbs", 200.0}};
    e.measurements = {m, m};
    r.experiments.push_back(e);
  }
  return r;
}

// A real apod database, written once: the bytes every input starts from.
const std::string& template_bytes() {
  static const std::string bytes = [] {
    const std::string path = scratch("template");
    std::remove(path.c_str());
    {
      Store store(path, Store::Mode::read_write_create);
      store.import_run(sample_run("aa01", "complete", 2));
      store.import_run(sample_run("bb02", "interrupted", 1));
      store.set_setting("baseline_run", "aa01");
    }
    std::ifstream in(path, std::ios::binary);
    std::string b((std::istreambuf_iterator<char>(in)), {});
    for (const char* suffix : {"", "-wal", "-shm"})
      std::remove((path + suffix).c_str());
    return b;
  }();
  return bytes;
}

// The other program may run anything but ATTACH and PRAGMAs other than the schema version and
// application id (which would only slow the target down, e.g. max_page_count).
int authorise(void*, int action, const char* a, const char*, const char*, const char*) {
  if (action == SQLITE_ATTACH)
    return SQLITE_DENY;
  if (action == SQLITE_PRAGMA)
    return a && (std::string(a) == "user_version" || std::string(a) == "application_id")
               ? SQLITE_OK
               : SQLITE_DENY;
  return SQLITE_OK;
}

int stop_after_deadline(void* deadline) {
  return std::chrono::steady_clock::now() >
         *static_cast<std::chrono::steady_clock::time_point*>(deadline);
}

void tamper(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    sqlite3_progress_handler(db, 1000, stop_after_deadline, &deadline);
    sqlite3_set_authorizer(db, authorise, nullptr);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr); // whatever fails, fails
  }
  sqlite3_close(db);
}

template <typename F> void refused_or_fine(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  apod::Store::creator_wait = std::chrono::milliseconds(0); // no other process creates it
  static const std::string path = scratch("input");
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::remove((path + suffix).c_str());
  { std::ofstream(path, std::ios::binary) << template_bytes(); }
  tamper(path, std::string(reinterpret_cast<const char*>(data), size));
  refused_or_fine([&] {
    Store store(path, Store::Mode::read_only);
    for (const auto& run : store.list_runs())
      store.resolve_run_id(run.id);
    Store merged(":memory:", Store::Mode::read_write_create);
    std::vector<RunRecord> runs;
    store.for_each_run({}, [&](const RunRecord& run) {
      (void)to_json(run).dump();
      runs.push_back(run);
    });
    size_t next = 0;
    merged.import_runs([&](RunRecord& run, std::string& source) {
      if (next == runs.size())
        return false;
      run = runs[next++];
      source = "input";
      return true;
    });
    (void)store.setting("baseline_run");
  });
  refused_or_fine([&] {
    Store store(path, Store::Mode::read_write);
    store.import_run(sample_run("cc03", "complete", 1));
    store.import_runs(
        [done = false](RunRecord& run, std::string& source) mutable {
          if (done)
            return false;
          done = true;
          run = sample_run("bb02", "complete", 2); // a later state of the interrupted run
          source = "input";
          return true;
        },
        OnConflict::replace);
    (void)store.export_results().dump();
  });
  return 0;
}
