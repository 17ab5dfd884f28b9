// Validation of apod-results documents and atomic file writes (runner/results_json.cpp).
#include "core/errors.hpp"
#include "core/results_json.hpp"
#include "store/store.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace apod;
namespace fs = std::filesystem;

namespace {

json valid_doc() {
  return json::parse(R"({
    "format": "apod-results", "schema_version": 1, "generator": "test",
    "runs": [{
      "id": "00ff", "label": "l", "started_at": "2026-01-01T00:00:00.000Z", "finished_at": null,
      "status": "complete", "apod_version": "0", "environment": {},
      "device": {"name": "GPU", "uuid": "GPU-x"},
      "experiments": [{"name": "offset_copy", "version": 1, "status": "complete", "wall_s": 1.0}],
      "measurements": [{"experiment": "offset_copy", "params": {"offset": 0}, "metric": "effective_bandwidth",
        "unit": "GB/s", "direction": "higher", "median": 1.0, "min": 1.0, "max": 1.0, "n": 1,
        "samples": [1.0], "verified": true, "status": "ok", "error": null, "extra": {}}]
    }]})");
}

std::string error_of(const json& doc) {
  try {
    validate_results(doc);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(ResultsJson, AcceptsAValidDocument) {
  EXPECT_EQ(error_of(valid_doc()), "");
}

TEST(ResultsJson, NamesTheOffendingField) {
  json d = valid_doc();
  d["runs"][0]["measurements"][0]["samples"] = {1.0, "x"};
  d["runs"][0]["measurements"][0]["n"] = 2;
  EXPECT_NE(error_of(d).find("runs[0].measurements[0].samples[1]"), std::string::npos)
      << error_of(d);

  d = valid_doc();
  d["runs"][0]["measurements"][0]["n"] = 5;
  EXPECT_NE(error_of(d).find(".n"), std::string::npos);

  d = valid_doc();
  d["runs"][0].erase("device");
  EXPECT_NE(error_of(d).find("missing \"device\""), std::string::npos);

  d = valid_doc();
  d["runs"][0]["status"] = "weird";
  EXPECT_NE(error_of(d).find("status"), std::string::npos);

  d = valid_doc();
  d["runs"][0]["id"] = "../../etc";
  EXPECT_NE(error_of(d).find("hex"), std::string::npos);
}

TEST(ResultsJson, RefusesOtherFormatsAndNewerVersions) {
  json d = valid_doc();
  d["format"] = "something-else";
  EXPECT_NE(error_of(d), "");
  d = valid_doc();
  d["schema_version"] = results_schema_version + 1;
  EXPECT_NE(error_of(d).find("not supported"), std::string::npos);
  EXPECT_NE(error_of(json::array()), "");
  d = valid_doc();
  d["runs"].push_back(d["runs"][0]);
  EXPECT_NE(error_of(d).find("duplicate"), std::string::npos);
}

TEST(ResultsJson, ImportedDocumentExportsIdentically) {
  Store store(":memory:", Store::Mode::read_write_create);
  const json doc = valid_doc();
  ASSERT_TRUE(store.import_run(run_from_json(doc["runs"][0], "run")));
  const json back = store.export_results();
  const json& m = back["runs"][0]["measurements"][0];
  EXPECT_EQ(m["samples"], doc["runs"][0]["measurements"][0]["samples"]);
  EXPECT_EQ(m["params"], doc["runs"][0]["measurements"][0]["params"]);
  EXPECT_EQ(back["runs"][0]["device"], doc["runs"][0]["device"]);
  EXPECT_EQ(back["runs"][0]["label"], "l");
}

TEST(ResultsJson, ReadResultsFileRejectsBadJsonClearly) {
  const auto path = fs::temp_directory_path() / ("apod-bad-" + new_run_id() + ".json");
  std::ofstream(path) << "{\"format\": \"apod-results\", ";
  try {
    read_results_file(path.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
  fs::remove(path);
  EXPECT_THROW(read_results_file("/nonexistent/x.json"), InputError);
}

// `apod export` writes one run at a time (memory holds one run, however many the database
// stores), yet its bytes are those of the whole document dumped at once: export -> import ->
// export stays byte-identical.
TEST(ResultsJson, StreamedDocumentEqualsTheWholeDump) {
  const json doc = parse_results(R"({"format":"apod-results","schema_version":2,"runs":[
    {"id":"a1","started_at":"2026-01-01T00:00:00.000Z","status":"complete","device":{"name":"G"},"measurements":[
     {"experiment":"x","params":{"k":1},"metric":"m","unit":"u","samples":[1.5,2],"verified":true}]},
    {"id":"b2","started_at":"2026-01-01T00:00:00.000Z","status":"failed","device":{"name":"G"},"measurements":[]}]})",
                                 "doc");
  const std::vector<RunRecord> runs = runs_from_document(doc);
  for (size_t count = 0; count <= runs.size(); ++count) {
    const std::vector<RunRecord> some(runs.begin(), runs.begin() + count);
    const auto path = fs::temp_directory_path() / ("apod-stream-" + new_run_id() + ".json");
    OutputFile out(path.string(), {});
    write_results_json(out, [&](const auto& each) {
      for (const auto& r : some)
        each(r);
    });
    out.commit();
    std::ifstream in(path);
    const std::string written((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(written, results_document(some).dump(2) + "\n") << count << " run(s)";
    fs::remove(path);
  }
}
