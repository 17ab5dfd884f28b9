// apod's SQLite store: runs, devices, experiments, measurements and every sample. All of apod's
// SQL lives in runner/store/: schema.cpp (the migrations and the checks of a file's identity and
// schema), store.cpp (opening), store_read.cpp, store_write.cpp, store_recovery.cpp (crash and
// fault handling, resume). The schema is versioned with PRAGMA user_version and migrated
// forward; PRAGMA application_id marks the file as apod's so another program's database is never
// touched, and a file whose schema is not exactly apod's is never used (verify_schema).
#pragma once

#include "core/device.hpp"
#include "core/errors.hpp"
#include "core/measurement.hpp"
#include "core/run_record.hpp"
#include "store/sqlite.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace apod {

/// What `apod run --resume` needs of a run it takes over (Store::claim_run).
struct ResumableRun {
  std::string id;
  DeviceInfo device;               ///< the device facts stored with the run
  Environment environment;         ///< provenance, with the run's plan and sampling settings
  std::vector<std::string> stored; ///< experiments already stored, in the order they were
};

/// A database file holding nothing yet (no schema, no application id): a reader waits a moment
/// for the process that is creating it (Store's constructor) before refusing it.
struct EmptyDatabase : InputError {
  using InputError::InputError;
};

/// Which copy wins when a run arrives with the id of a stored run whose content differs and
/// neither copy is a later state of the other (`--on-conflict`).
enum class OnConflict { refuse, keep, replace };

/// What an import or merge did; the command prints it, so that no run is dropped unsaid.
struct ImportSummary {
  int added = 0;
  int already_present = 0;        ///< the same run, field for field, was already stored
  std::vector<std::string> notes; ///< one sentence per run replaced or kept, naming it and why
};

/// Supplies the runs of an import or merge one at a time: fills `run` and `source` (the file it
/// comes from, for messages) and returns true, or returns false when there are no more.
using RunFeed = std::function<bool(RunRecord& run, std::string& source)>;

/// Refuses (InputError) a database path SQLite would not take as a plain file: "" (a temporary
/// database), ":memory:" and "file:" URIs, which would store nothing where the user looks. A
/// file whose name starts with "file:" is named "./file:...".
void check_database_path(const std::string& path);

/// One line of `apod list --runs`: what tells apart runs that share a label (concurrent runs of
/// one machine's GPUs, the runs of a --repeat batch). Host and batch are "" where the run's
/// environment does not say (an older record, a run outside any batch).
struct RunSummary {
  std::string id, label, started_at, status, device_name;
  std::optional<std::string> finished_at;
  int64_t measurements = 0;
  std::string device_uuid, host, batch;
};

class Store {
public:
  static constexpr int schema_version = 4;
  static constexpr int application_id = 0x41504F44; // "APOD"

  enum class Mode { read_only, read_write, read_write_create };

  /// Opens (and with read_write_create, creates or migrates) an apod database. Throws
  /// InputError with a clear message when the file is missing (read_only, read_write), is not
  /// SQLite, is damaged, is another program's database, has a newer schema than this apod
  /// knows, or holds any schema object apod did not create (verify_schema). Opened for writing,
  /// it first marks runs whose writer process has died on this host 'interrupted'; opened
  /// read-only, it reports them so without writing. Read-only, a file another process is
  /// creating is waited for, and a WAL database on read-only media is read as immutable.
  /// `shown` names the file in messages (default: `path`).
  Store(const std::string& path, Mode mode, const std::string& shown = "");
  ~Store();

  /// Inserts a run in status "running" and returns its new id. The environment is stored with
  /// this process added as the run's "writer" (writer.hpp), so a killed runner is recognised.
  std::string begin_run(const std::string& label, const DeviceInfo& device,
                        const Environment& environment);
  /// Takes over a run for `apod run --resume`: it must be 'interrupted', or 'running' under this
  /// very process (a runner that re-executed itself). Records this process as its writer, sets
  /// it 'running' and returns what was stored. Throws InputError saying why it cannot resume.
  ResumableRun claim_run(const std::string& run_id);
  /// Marks a run that stopped before its end (a full disk, a fatal error) 'interrupted'.
  void mark_interrupted(const std::string& run_id);
  /// True when one of the run's experiments, or one of its points, failed.
  bool run_has_failures(const std::string& run_id);
  /// Stores one experiment and all its measurements and samples atomically.
  void save_experiment(const std::string& run_id, const ExperimentRecord& record);
  /// Appends the telemetry readings sampled during a run (NVML) to those stored (a resumed run
  /// adds the readings of its second part to those of its first).
  void save_telemetry(const std::string& run_id, const std::vector<TelemetryReading>& readings);
  /// Sets the run's final status and finish time.
  void finish_run(const std::string& run_id, const std::string& status);

  std::vector<RunSummary> list_runs();
  /// A stored run, read back whole and checked by validate() (run_record.hpp), the rules every
  /// run that comes in must meet: a run this store holds can always be imported elsewhere.
  RunRecord read_run(const std::string& run_id);
  /// The ids of every stored run, in start order.
  std::vector<std::string> run_ids();
  /// The given runs (ids or unique prefixes), or all runs in start order if empty.
  std::vector<RunRecord> read_runs(const std::vector<std::string>& run_ids = {});
  /// Calls `each` with the given runs (as read_runs), read one at a time from one snapshot, so
  /// that memory holds one run however many the file stores.
  void for_each_run(const std::vector<std::string>& run_ids,
                    const std::function<void(const RunRecord&)>& each);
  /// The apod-results document (docs/results-format.md) for the given runs, or all runs if empty.
  json export_results(const std::vector<std::string>& run_ids = {});
  /// Imports every run `next` supplies in one transaction: all of them, or none when one is
  /// refused. A run already stored unchanged is counted, not written again; a run that is a
  /// later state of its stored copy (the same id, device, start and writer or its resumer; the
  /// stored copy running or interrupted) replaces it, and an earlier state is not imported;
  /// both are noted. Any other difference is a conflict: InputError naming the run, unless
  /// `on_conflict` says which copy wins (noted too).
  ImportSummary import_runs(const RunFeed& next, OnConflict on_conflict = OnConflict::refuse);
  /// Imports one run (import_runs). Returns false when it was already stored unchanged.
  bool import_run(const RunRecord& run);

  /// Runs `fill` on the database at `path` opened for writing (read_write_create). Where no
  /// file exists, the new database is built under a temporary name in the same folder and put
  /// in place only after `fill` returned (never over a file another process created meanwhile:
  /// `fill` then runs again on that one): a refused or failed import or merge leaves no file.
  static void write_into(const std::string& path, const std::function<void(Store&)>& fill);

  /// How long a reader waits for a file another process is creating (default 5 s). The fuzz
  /// targets set 0: they write a file and open it at once, as no creator would leave it.
  static inline std::chrono::milliseconds creator_wait{5000};

  /// A named setting (e.g. "baseline_run"), or nothing.
  std::optional<std::string> setting(const std::string& name);
  void set_setting(const std::string& name, const std::string& value);

  /// Resolves a full id or a unique prefix of one; throws InputError otherwise.
  std::string resolve_run_id(const std::string& id_or_prefix);

private:
  void open(const std::string& path, Mode mode, const std::string& shown);
  void check_identity(bool may_initialise);
  void verify_schema(int64_t version);
  void check_intact(bool before_writing);
  void enable_wal();
  void migrate();
  void settle_dead_writers(bool may_write);
  std::string status_shown(const std::string& run_id, const std::string& stored) const;
  /// Parses JSON stored in the file, refusing nesting deeper than apod writes (InputError).
  static json parse_stored(const std::string& text);
  /// Throws InputError for resource faults and damaged files (store_recovery.cpp); rethrows the
  /// rest.
  [[noreturn]] static void storage_failure(const std::string& path, const std::exception& e,
                                           bool writing);
  int64_t device_id(const std::string& uuid, const std::string& name);
  void insert_experiment(const std::string& run_id, const ExperimentRecord& record);
  void insert_run(const RunRecord& run);
  void delete_run(const std::string& run_id);
  std::optional<RunRecord> stored_copy(const std::string& run_id);
  void insert_measurement(int64_t experiment_run_id, const Measurement& m);
  std::unique_ptr<sqlite::Database> db_;
  /// The file's schema version: as found on opening (read-only: an older one is read as it
  /// is, never migrated), schema_version once migrated.
  int64_t version_ = 0;
  std::set<std::string> dead_writer_runs_; ///< read-only: 'running' runs shown as interrupted
};

/// Current UTC time as ISO 8601 with milliseconds, e.g. "2026-11-22T06:01:02.345Z".
std::string now_iso8601();

/// 32 random hex digits.
std::string new_run_id();

} // namespace apod
