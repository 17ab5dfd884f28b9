// Every run committed under data/runs/ (written by several apod versions) read into its types and
// written back: the device, the environment and each telemetry entry give back the very JSON they
// were read from, and a document taken through the store (import -> export -> import -> export)
// comes out byte for byte the same (core/stored_object.hpp, docs/results-format.md).
#include "core/results_json.hpp"
#include "store/store.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace apod;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> committed_documents() {
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(APOD_RUNS_DIR)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".json") || name.ends_with(".json.gz"))
      paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The document as `apod export` writes it after importing these runs into a new database.
std::string exported(const std::vector<RunRecord>& runs) {
  Store store(":memory:", Store::Mode::read_write_create);
  for (const RunRecord& run : runs)
    EXPECT_TRUE(store.import_run(run)) << run.id;
  return store.export_results().dump(2);
}

} // namespace

TEST(StoredRuns, TheCommittedDocumentsAreThere) {
  EXPECT_GE(committed_documents().size(), 9u) << APOD_RUNS_DIR;
}

TEST(StoredRuns, EachRunsDeviceEnvironmentAndTelemetryComeBackAsStored) {
  for (const std::string& path : committed_documents()) {
    const json doc = read_results_file(path);
    for (const json& run : doc["runs"]) {
      const std::string where = path + " run " + run["id"].get<std::string>();
      const DeviceInfo device = device_from_json(run["device"]);
      EXPECT_FALSE(device.name.empty()) << where;
      EXPECT_EQ(to_json(device).dump(), run["device"].dump()) << where;
      const Environment environment = environment_from_json(run["environment"]);
      EXPECT_FALSE(environment.host.empty()) << where;
      EXPECT_EQ(to_json(environment).dump(), run["environment"].dump()) << where;
      std::size_t readings = 0;
      const json telemetry = run.value("telemetry", json::array()); // none before schema 2
      for (const json& entry : telemetry) {
        const TelemetryReading reading = telemetry_from_json(entry, where);
        readings += reading.t_s.has_value();
        ASSERT_EQ(to_json(reading).dump(), entry.dump()) << where << " " << entry.dump();
      }
      EXPECT_EQ(readings, telemetry.size()) << where << ": every entry has its t_s";
    }
  }
}

// The limits a stored device states are the ones its facts give today: reading the recorded
// figure (DeviceInfo::recorded_bandwidth_gbs) changes no committed run's percentages.
TEST(StoredRuns, TheRecordedLimitsAreThoseTheFactsGive) {
  for (const std::string& path : committed_documents()) {
    const json doc = read_results_file(path);
    for (const json& run : doc["runs"]) {
      DeviceInfo facts = device_from_json(run["device"]);
      ASSERT_TRUE(facts.recorded_bandwidth_gbs && facts.recorded_pcie_gbs) << path;
      const double dram = *facts.recorded_bandwidth_gbs, pcie = *facts.recorded_pcie_gbs;
      facts.recorded_bandwidth_gbs = facts.recorded_pcie_gbs = std::nullopt;
      EXPECT_EQ(facts.theoretical_bandwidth_gbs(), dram) << path;
      EXPECT_EQ(facts.theoretical_pcie_gbs(), pcie) << path;
    }
  }
}

TEST(StoredRuns, TheDriverBranchIsReadWhereNvmlRecordedIt) {
  for (const std::string& path : committed_documents()) {
    const json doc = read_results_file(path);
    for (const json& run : doc["runs"]) {
      const Environment environment = environment_from_json(run["environment"]);
      const json& state = run["environment"].contains("gpu_state") ? run["environment"]["gpu_state"]
                                                                   : json::object();
      EXPECT_EQ(environment.driver_branch(), state.value("driver_branch", "")) << path;
    }
  }
}

TEST(StoredRuns, ImportExportImportExportIsByteIdentical) {
  for (const std::string& path : committed_documents()) {
    const json doc = read_results_file(path);
    const std::string first = exported(runs_from_document(doc));
    const json back = parse_results(first, "export");
    ASSERT_EQ(back["runs"].size(), doc["runs"].size()) << path;
    std::map<std::string, const json*> stored; // id -> the run as the document holds it
    for (const json& run : doc["runs"])
      stored[run["id"].get<std::string>()] = &run;
    for (const json& run : back["runs"]) {
      const json& original = *stored.at(run["id"].get<std::string>());
      for (const char* key : {"device", "environment", "telemetry"})
        EXPECT_EQ(run[key].dump(), original.value(key, json::array()).dump()) << path << " " << key;
    }
    EXPECT_EQ(exported(runs_from_document(back)), first) << path;
  }
}

// What a program changes is written in place; the rest of a stored object stays as it was.
TEST(StoredObject, ARecordWritesBackWhatItDoesNotReadAndWhatItChanged) {
  const json stored = json::parse(R"({"name": "G", "from_a_newer_apod": {"x": [1, 2]},
    "memory_clock_khz": 1000, "pcie_width": 16})");
  DeviceInfo device = device_from_json(stored);
  EXPECT_EQ(device.memory_clock_khz, 1000.0);
  EXPECT_EQ(to_json(device).dump(), stored.dump()) << "1000 stays 1000, not 1000.0";

  device.pcie_width = 8;
  device.sm_count = 132;
  EXPECT_EQ(to_json(device).dump(),
            R"({"name":"G","from_a_newer_apod":{"x":[1,2]},"memory_clock_khz":1000,)"
            R"("pcie_width":8,"sm_count":132})")
      << "a changed field in place, a field the object lacked at the end";
}

TEST(StoredObject, ARecordApodMadeIsWrittenWhole) {
  DeviceInfo device;
  device.name = "G";
  const json j = to_json(device);
  EXPECT_TRUE(j.contains("pcie_max_payload_bytes") && j["pcie_max_payload_bytes"].is_null())
      << "unknown facts are written as null";
  EXPECT_EQ(to_json(device_from_json(j)).dump(), j.dump());
}

TEST(StoredObject, AResumedRunKeepsTheEnvironmentItWasBegunWith) {
  const json stored = json::parse(R"({"host": "h", "note": "kept",
    "writer": {"host": "h", "pid": 7, "shell": "kept too"}})");
  Environment environment = environment_from_json(stored);
  ASSERT_TRUE(environment.writer);
  environment.resumed.push_back({"t", environment.writer, std::nullopt});
  Writer me;
  me.host = "h";
  me.pid = 8;
  environment.writer = me;
  const json j = to_json(environment);
  EXPECT_EQ(j.dump(), R"({"host":"h","note":"kept","writer":{"host":"h","boot_id":"",)"
                      R"("pid_namespace":"","pid":8,"start_ticks":-1},"resumed":[{"at":"t",)"
                      R"("previous_writer":{"host":"h","pid":7,"shell":"kept too"}}]})");
}
