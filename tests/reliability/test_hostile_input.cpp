// Hostile input to the importer and the store: every document and file below must be refused
// with InputError (exit code 2 at the command line) or accepted whole; nothing may escape as
// another exception, crash, or change a file it refused. (tests/unit covers the single cases
// of a text file, a foreign database and a newer schema; tests/fuzz throws random input at the
// same entry points.)
#include "core/errors.hpp"
#include "core/limits.hpp"
#include "core/results_json.hpp"
#include "db_check.hpp"
#include "store/store.hpp"

#include <iterator>

using namespace apod;
using namespace reliability;

namespace {

// A document that uses every field the importer reads.
const char* const full_document = R"({
 "format": "apod-results", "schema_version": 2, "generator": "apod test",
 "runs": [{
  "id": "ab12cd", "label": "nightly", "started_at": "2026-01-01T00:00:00.000Z",
  "finished_at": "2026-01-01T00:01:00.000Z", "status": "partial", "apod_version": "0.1.0",
  "environment": {"host": "h", "gpu_state": {"driver_branch": "r580"}},
  "device": {"name": "GPU", "uuid": "GPU-1", "memory_clock_khz": 1000000, "memory_bus_width_bits": 1024},
  "experiments": [
   {"name": "offset_copy", "version": 1, "status": "complete", "error": null,
    "started_at": "2026-01-01T00:00:01.000Z", "wall_s": 1.5},
   {"name": "fault_injection", "version": 1, "status": "failed", "error": "cudaErrorIllegalAddress",
    "started_at": "2026-01-01T00:00:02.000Z", "wall_s": 0.1}],
  "measurements": [{
   "experiment": "offset_copy", "params": {"word_bytes": 4, "offset": 0}, "metric": "effective_bandwidth",
   "unit": "GB/s", "direction": "higher", "median": 200.0, "min": 190.0, "max": 210.0, "mean": 200.0,
   "stddev": 10.0, "rsd": 0.05, "q1": 195.0, "q3": 205.0, "iqr": 10.0, "ci_low": 190.0, "ci_high": 210.0,
   "n": 3, "samples": [190.0, 200.0, 210.0], "sample_excluded": [0, 0, 1], "dropped": 1,
   "stop_reason": "converged", "noisy": false, "comparability_key": null,
   "verified": true, "status": "ok", "error": null, "extra": {"bytes_moved": 1000}}],
  "telemetry": [{"t_s": 0.0, "sm_clock_mhz": 1980}]
 }]})";

/// Import the text's runs into a new in-memory store, as `apod import` does. Returns true when
/// accepted, false when refused with InputError; any other outcome fails the test.
bool import_text(const std::string& text, std::string* why = nullptr) {
  json doc;
  try {
    doc = parse_results(text, "input");
  } catch (const InputError& e) {
    if (why)
      *why = e.what();
    return false;
  }
  Store store(":memory:", Store::Mode::read_write_create);
  for (const RunRecord& run : runs_from_document(doc)) {
    try {
      store.import_run(run);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "validated, then the import threw: " << e.what()
                    << "\n  input: " << text.substr(0, 400);
      return false;
    }
  }
  store.export_results();
  return true;
}

/// The JSON pointer of every node of `j` but the root.
void every_pointer(const json& j, const json::json_pointer& at,
                   std::vector<json::json_pointer>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      out.push_back(at / key);
      every_pointer(value, at / key, out);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      out.push_back(at / i);
      every_pointer(j[i], at / i, out);
    }
  }
}

} // namespace

TEST(HostileJson, TheFullDocumentImports) {
  EXPECT_TRUE(import_text(full_document));
}

// Wrong types everywhere: each value of the document in turn replaced by each JSON type, and
// each key removed. The importer must refuse or accept every one, never fail in between.
TEST(HostileJson, EveryFieldReplacedByEveryTypeOrRemoved) {
  const json original = json::parse(full_document);
  const std::vector<json> replacements = {nullptr,
                                          true,
                                          0,
                                          -1,
                                          1.5,
                                          1e308,
                                          "",
                                          "x",
                                          json::array(),
                                          json::object(),
                                          json::array({1, "a"}),
                                          "NaN",
                                          -0.0};
  std::vector<json::json_pointer> pointers;
  every_pointer(original, json::json_pointer(), pointers);
  int cases = 0, refused = 0;
  for (const auto& pointer : pointers) {
    for (size_t r = 0; r <= replacements.size(); ++r) { // the last one: remove the key
      json doc = original;
      if (r < replacements.size()) {
        doc[pointer] = replacements[r];
      } else {
        json& parent = doc[pointer.parent_pointer()];
        if (parent.is_object())
          parent.erase(pointer.back());
        else
          doc[pointer] = nullptr;
      }
      ++cases;
      if (!import_text(doc.dump()))
        ++refused;
      if (HasFailure())
        return;
    }
  }
  std::printf("%d mutated documents: %d refused with a message, %d imported\n", cases, refused,
              cases - refused);
  EXPECT_GT(cases, 500);
  EXPECT_GT(refused, 0);
}

TEST(HostileJson, AdversarialDocumentsAreRefusedWithAMessage) {
  const std::string deep_array = std::string(200000, '[') + std::string(200000, ']');
  std::string deep_environment = full_document;
  const std::string environment = R"({"host": "h", "gpu_state": {"driver_branch": "r580"}})";
  std::string nested;
  for (int i = 0; i < 100000; ++i)
    nested += R"({"a": )";
  nested += "1" + std::string(100000, '}');
  deep_environment.replace(deep_environment.find(environment), environment.size(), nested);
  std::string ten_mb_id = full_document;
  ten_mb_id.replace(ten_mb_id.find("ab12cd"), 6, std::string(10 << 20, 'a'));
  std::string nan_sample = full_document;
  nan_sample.replace(nan_sample.find("[190.0, 200.0, 210.0]"), 21, R"([190.0, "NaN", 210.0])");
  std::string huge_number = full_document;
  huge_number.replace(huge_number.find("190.0"), 5, "1e400");
  std::string duplicate_key = full_document;
  duplicate_key.replace(duplicate_key.find(R"("label": "nightly")"), 0, R"("label": "first", )");
  std::string duplicate_experiment = full_document;
  duplicate_experiment.replace(duplicate_experiment.find("fault_injection"), 15, "offset_copy");
  std::string huge_integer = full_document;
  huge_integer.replace(huge_integer.find(R"("version": 1)"), 12,
                       R"("version": 99999999999999999999)");

  const std::vector<std::pair<std::string, std::string>> cases = {
      {deep_array, "deeper than 64"},
      {deep_environment, "deeper than 64"},
      {ten_mb_id, "holds a string of 10485760 bytes, more than 65536"},
      {nan_sample, "samples[1]"},
      {huge_number, "number overflow"},
      {duplicate_key, "repeats the key \"label\""},
      {duplicate_experiment, "lists this experiment twice"},
      {huge_integer, "experiments[0].version"},
      {"", "not valid JSON"},
      {std::string("\x00\xff\xfe{", 4), "not valid JSON"},
      {R"({"format": "apod-results", "schema_version": 2, "runs": [)", "not valid JSON"},
      {R"({"format": "apod-results", "schema_version": 1e3, "runs": []})", "schema_version"},
      {R"({"format": "apod-results", "schema_version": 2, "runs": {}})", "runs"},
      {R"([{"format": "apod-results"}])", "expected a JSON object"},
      {"\"" + std::string(10 << 20, 'x') + "\"", "holds a string of"},
      {"[" + std::string(2'000'000, '1') + "]", "number overflow"},
  };
  for (const auto& [text, expected] : cases) {
    std::string why;
    EXPECT_FALSE(import_text(text, &why)) << "accepted: " << text.substr(0, 120);
    EXPECT_NE(why.find(expected), std::string::npos)
        << "message '" << why.substr(0, 300) << "' lacks '" << expected << "'";
  }
}

// A label is free text and may hold markup or SQL: stored and exported verbatim up to its limit
// (limits.hpp), refused beyond it, so that no label can blow up the report built from it.
TEST(HostileJson, LabelIsStoredVerbatimUpToItsLimitAndRefusedBeyond) {
  const std::string tail = "<script>'; DROP TABLE run; --";
  const std::string label = std::string(limits::max_label_bytes - tail.size(), 'L') + tail;
  std::string doc = full_document;
  doc.replace(doc.find("\"nightly\""), 9, json(label).dump());
  Store store(":memory:", Store::Mode::read_write_create);
  EXPECT_TRUE(store.import_run(runs_from_document(parse_results(doc, "doc"))[0]));
  EXPECT_EQ(store.export_results()["runs"][0]["label"], label);
  std::string why;
  doc = full_document;
  doc.replace(doc.find("\"nightly\""), 9, json(label + "x").dump());
  EXPECT_FALSE(import_text(doc, &why));
  EXPECT_NE(why.find("runs[0].label: 4097 bytes, more than 4096"), std::string::npos) << why;
  doc = full_document;
  doc.replace(doc.find("\"nightly\""), 9, json(std::string(10 << 20, 'L')).dump());
  EXPECT_FALSE(import_text(doc, &why));
  EXPECT_NE(why.find("holds a string of 10485760 bytes"), std::string::npos) << why;
}

namespace {

/// Writes `bytes` as a database file and opens it every way; returns how it went.
void expect_refused_and_untouched(const fs::path& path, const std::string& bytes,
                                  const std::string& what) {
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; }
  for (const auto mode : {Store::Mode::read_write_create, Store::Mode::read_write}) {
    try {
      Store store(path.string(), mode);
      ADD_FAILURE() << what << ": opened for writing";
    } catch (const InputError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": not an InputError: " << e.what();
    }
  }
  try { // reading may get further; whatever it cannot read must be an InputError too
    Store store(path.string(), Store::Mode::read_only);
    store.list_runs();
    store.export_results();
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not an InputError: " << e.what();
  }
  std::ifstream in(path, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), bytes)
      << what << ": the file was changed";
  EXPECT_FALSE(fs::exists(path.string() + "-wal") && fs::file_size(path.string() + "-wal") > 0)
      << what;
}

} // namespace

TEST(HostileDatabase, TruncatedRandomAndOverwrittenFilesAreRefusedUnchanged) {
  TempDir dir;
  const fs::path good = dir.path / "good.db";
  {
    Store store(good.string(), Store::Mode::read_write_create);
    Store source(":memory:", Store::Mode::read_write_create);
    for (int r = 0; r < 3; ++r) {
      json doc = json::parse(full_document);
      doc["runs"][0]["id"] = "ab12cd" + std::to_string(r);
      doc["runs"][0]["measurements"][0]["samples"] = std::vector<double>(3000, 200.0);
      doc["runs"][0]["measurements"][0].erase("sample_excluded");
      doc["runs"][0]["measurements"][0].erase("n");
      store.import_run(run_from_json(doc["runs"][0], "run"));
    }
  }
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 8 * 4096u);
  std::mt19937_64 rng(42);
  int files = 0;
  for (size_t size : {size_t(50), size_t(100), size_t(4096), size_t(4096 + 100), bytes.size() / 2,
                      bytes.size() - 4096, bytes.size() - 1}) {
    expect_refused_and_untouched(dir.path / "cut.db", bytes.substr(0, size),
                                 "truncated to " + std::to_string(size));
    ++files;
  }
  for (size_t size : {size_t(1), size_t(100), size_t(4096), size_t(65536)}) {
    std::string noise(size, '\0');
    for (auto& c : noise)
      c = static_cast<char>(rng());
    expect_refused_and_untouched(dir.path / "noise.db", noise,
                                 "random bytes " + std::to_string(size));
    ++files;
  }
  for (size_t page : {1, 2, 4}) { // a valid header, then one page overwritten with noise
    std::string damaged = bytes;
    for (size_t i = page * 4096; i < (page + 1) * 4096 && i < damaged.size(); ++i)
      damaged[i] = static_cast<char>(rng());
    expect_refused_and_untouched(dir.path / "damaged.db", damaged,
                                 "page " + std::to_string(page) + " overwritten");
    ++files;
  }
  std::printf("%d damaged database files refused, none changed\n", files);
}

// Found by fuzz_store_open: text that is not UTF-8 (a label written by another program, or a
// damaged byte) made every export of the database fail. It now exports with U+FFFD in its place.
TEST(HostileDatabase, TextThatIsNotUtf8StillExports) {
  TempDir dir;
  const std::string db = (dir.path / "latin1.db").string();
  {
    Store store(db, Store::Mode::read_write_create);
    store.import_run(runs_from_document(parse_results(full_document, "doc"))[0]);
  }
  {
    CheckDb check(db);
    check.rows("UPDATE run SET label = CAST(X'6e6967687419ff' AS TEXT)");
    check.rows("UPDATE experiment_run SET error = CAST(X'c3' AS TEXT)");
  }
  Store store(db, Store::Mode::read_only);
  json doc;
  ASSERT_NO_THROW(doc = store.export_results());
  std::string text;
  ASSERT_NO_THROW(text = doc.dump());
  EXPECT_EQ(doc["runs"][0]["label"], std::string("night\x19\xef\xbf\xbd")) << "0xff became U+FFFD";
}
