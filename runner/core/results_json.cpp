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

std::vector<RunRecord> runs_from_document(const json& doc) {
  const auto bad = [](const std::string& where, const std::string& what) {
    return InputError(fmt::format("not a valid apod-results document: {}: {}", where, what));
  };
  if (!doc.is_object()) throw bad("document", "expected a JSON object");
  if (!doc.contains("format") || doc["format"] != "apod-results") throw bad("format", "expected \"apod-results\"");
  if (!doc.contains("schema_version")) throw bad("document", "missing \"schema_version\"");
  const json& version = doc["schema_version"];
  if (!version.is_number_integer())
    throw bad("document.schema_version", fmt::format("expected integer, found {}", version.type_name()));
  if (version.get<int64_t>() < 1 || version.get<int64_t>() > results_schema_version)
    throw InputError(fmt::format("apod-results schema_version {} is not supported (this apod reads 1..{})",
                                 version.dump(), results_schema_version));
  if (!doc.contains("runs")) throw bad("document", "missing \"runs\"");
  if (!doc["runs"].is_array()) throw bad("document.runs", fmt::format("expected array, found {}", doc["runs"].type_name()));
  std::vector<RunRecord> runs;
  std::set<std::string> ids;
  for (size_t i = 0; i < doc["runs"].size(); ++i) {
    const std::string where = fmt::format("runs[{}]", i);
    runs.push_back(run_from_json(doc["runs"][i], where));
    if (!ids.insert(runs.back().id).second) throw bad(where + ".id", "duplicate run id");
  }
  return runs;
}

void validate_results(const json& doc) { (void)runs_from_document(doc); }

json results_document(const std::vector<RunRecord>& runs) {
  json doc = {{"format", "apod-results"}, {"schema_version", results_schema_version},
              {"generator", std::string("apod ") + APOD_VERSION}, {"runs", json::array()}};
  for (const RunRecord& r : runs) doc["runs"].push_back(to_json(r));
  return doc;
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
