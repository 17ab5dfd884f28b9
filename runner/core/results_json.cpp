#include "core/results_json.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace apod {

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw InputError(fmt::format("not a valid apod-results document: {}: {}", where, what));
}

const json& require(const json& obj, const char* key, json::value_t type, const std::string& where) {
  if (!obj.contains(key)) bad(where, fmt::format("missing \"{}\"", key));
  const json& v = obj[key];
  const bool ok = type == json::value_t::number_float ? v.is_number() : v.type() == type ||
      (type == json::value_t::number_integer && v.is_number_integer());
  if (!ok) bad(where + "." + key, fmt::format("expected {}, found {}", json(type).type_name(), v.type_name()));
  return v;
}

void require_number_or_null(const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key)) return;
  const json& v = obj[key];
  if (!v.is_null() && !(v.is_number() && std::isfinite(v.get<double>())))
    bad(where + "." + key, "expected a finite number or null");
}

void require_one_of(const json& obj, const char* key, const std::set<std::string>& allowed,
                    const std::string& where, bool required) {
  if (!obj.contains(key)) {
    if (required) bad(where, fmt::format("missing \"{}\"", key));
    return;
  }
  if (!obj[key].is_string() || !allowed.count(obj[key].get<std::string>()))
    bad(where + "." + key, "unexpected value " + obj[key].dump());
}

void validate_measurement(const json& m, const std::string& where) {
  if (!m.is_object()) bad(where, "expected an object");
  require(m, "experiment", json::value_t::string, where);
  require(m, "params", json::value_t::object, where);
  require(m, "metric", json::value_t::string, where);
  require(m, "unit", json::value_t::string, where);
  const json& samples = require(m, "samples", json::value_t::array, where);
  for (size_t i = 0; i < samples.size(); ++i)
    if (!samples[i].is_number() || !std::isfinite(samples[i].get<double>()))
      bad(fmt::format("{}.samples[{}]", where, i), "not a finite number");
  for (const char* key : {"median", "min", "max", "mean", "stddev", "rsd", "q1", "q3", "iqr", "ci_low", "ci_high"})
    require_number_or_null(m, key, where);
  if (m.contains("sample_excluded")) {
    const json& ex = require(m, "sample_excluded", json::value_t::array, where);
    if (ex.size() != samples.size()) bad(where + ".sample_excluded", "length differs from samples");
    for (const json& e : ex)
      if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > 255)
        bad(where + ".sample_excluded", "expected integers 0..255");
  }
  if (m.contains("noisy") && !m["noisy"].is_boolean()) bad(where + ".noisy", "expected true or false");
  require_one_of(m, "stop_reason", {"converged", "time_cap", "max_samples", "fixed"}, where, false);
  if (m.contains("comparability_key") && !m["comparability_key"].is_null() && !m["comparability_key"].is_string())
    bad(where + ".comparability_key", "expected a string or null");
  if (m.contains("n") && !(m["n"].is_number_integer() && m["n"].get<int64_t>() == int64_t(samples.size())))
    bad(where + ".n", "does not equal the number of samples");
  if (m.contains("verified") && !m["verified"].is_boolean()) bad(where + ".verified", "expected true or false");
  require_one_of(m, "status", {"ok", "failed"}, where, false);
  require_one_of(m, "direction", {"higher", "lower"}, where, false);
  if (m.contains("extra") && !m["extra"].is_object()) bad(where + ".extra", "expected an object");
  if (m.contains("error") && !m["error"].is_null() && !m["error"].is_string()) bad(where + ".error", "expected a string or null");
}

void validate_run(const json& r, const std::string& where) {
  if (!r.is_object()) bad(where, "expected an object");
  const std::string id = require(r, "id", json::value_t::string, where).get<std::string>();
  if (id.empty() || id.size() > 64 || id.find_first_not_of("0123456789abcdef") != std::string::npos)
    bad(where + ".id", "expected 1 to 64 lowercase hex digits");
  require(r, "started_at", json::value_t::string, where);
  require_one_of(r, "status", {"running", "complete", "partial", "failed", "interrupted"}, where, true);
  if (r.contains("label") && !r["label"].is_string()) bad(where + ".label", "expected a string");
  if (r.contains("apod_version") && !r["apod_version"].is_string()) bad(where + ".apod_version", "expected a string");
  if (r.contains("finished_at") && !r["finished_at"].is_null() && !r["finished_at"].is_string())
    bad(where + ".finished_at", "expected a string or null");
  if (r.contains("environment") && !r["environment"].is_object()) bad(where + ".environment", "expected an object");
  const json& device = require(r, "device", json::value_t::object, where);
  require(device, "name", json::value_t::string, where + ".device");
  if (device.contains("uuid") && !device["uuid"].is_string()) bad(where + ".device.uuid", "expected a string");
  if (r.contains("experiments")) {
    const json& exps = require(r, "experiments", json::value_t::array, where);
    std::set<std::string> names;
    for (size_t i = 0; i < exps.size(); ++i) {
      const std::string w = fmt::format("{}.experiments[{}]", where, i);
      if (!exps[i].is_object()) bad(w, "expected an object");
      if (!names.insert(require(exps[i], "name", json::value_t::string, w).get<std::string>()).second)
        bad(w + ".name", "the run lists this experiment twice");
      require_one_of(exps[i], "status", {"complete", "failed"}, w, false);
      require_number_or_null(exps[i], "wall_s", w);
      if (exps[i].contains("version") && !(exps[i]["version"].is_number_integer() &&
                                           exps[i]["version"].get<int64_t>() >= 0 &&
                                           exps[i]["version"].get<int64_t>() <= 1000000))
        bad(w + ".version", "expected an integer 0..1000000");
      if (exps[i].contains("started_at") && !exps[i]["started_at"].is_string())
        bad(w + ".started_at", "expected a string");
      if (exps[i].contains("error") && !exps[i]["error"].is_null() && !exps[i]["error"].is_string())
        bad(w + ".error", "expected a string or null");
    }
  }
  if (r.contains("telemetry")) {
    const json& tel = require(r, "telemetry", json::value_t::array, where);
    for (size_t i = 0; i < tel.size(); ++i)
      if (!tel[i].is_object()) bad(fmt::format("{}.telemetry[{}]", where, i), "expected an object");
  }
  const json& ms = require(r, "measurements", json::value_t::array, where);
  for (size_t i = 0; i < ms.size(); ++i) validate_measurement(ms[i], fmt::format("{}.measurements[{}]", where, i));
}

}  // namespace

void validate_results(const json& doc) {
  if (!doc.is_object()) bad("document", "expected a JSON object");
  if (!doc.contains("format") || doc["format"] != "apod-results") bad("format", "expected \"apod-results\"");
  const json& version = require(doc, "schema_version", json::value_t::number_integer, "document");
  if (version.get<int64_t>() < 1 || version.get<int64_t>() > results_schema_version)
    throw InputError(fmt::format("apod-results schema_version {} is not supported (this apod reads 1..{})",
                                 version.dump(), results_schema_version));
  const json& runs = require(doc, "runs", json::value_t::array, "document");
  std::set<std::string> ids;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string where = fmt::format("runs[{}]", i);
    validate_run(runs[i], where);
    if (!ids.insert(runs[i]["id"].get<std::string>()).second) bad(where + ".id", "duplicate run id");
  }
}

json parse_results(const std::string& text, const std::string& source) {
  std::vector<std::set<std::string>> keys;  // of each object being parsed, innermost last
  const auto check = [&](int depth, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    if ((event == E::object_start || event == E::array_start) && depth + 1 > max_results_depth)
      throw InputError(fmt::format("'{}' nests arrays and objects deeper than {} levels; not an apod-results document",
                                   source, max_results_depth));
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      throw InputError(fmt::format("'{}' repeats the key {} in one object; not a valid apod-results document",
                                   source, parsed.dump()));
    return true;
  };
  json doc;
  try {
    doc = json::parse(text, check);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("'{}' is not valid JSON: {}", source, e.what()));
  }
  validate_results(doc);
  return doc;
}

json read_results_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  return parse_results(buffer.str(), path);
}

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  FILE* f = fdopen(fd, "wb");
  const bool written = f && std::fwrite(content.data(), 1, content.size(), f) == content.size() &&
                       std::fflush(f) == 0 && fsync(fd) == 0;
  const int saved = errno;
  if (f) std::fclose(f); else close(fd);
  if (!written) {
    std::remove(tmpl.c_str());
    throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(saved)));
  }
  std::error_code ec;
  fs::permissions(tmpl, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                            fs::perms::others_read, ec);
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmpl.c_str());
    throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  }
}

}  // namespace apod
