#include "core/results_json.hpp"

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <set>

namespace apod {

std::vector<RunRecord> runs_from_document(const json& doc) {
  const auto bad = [](const std::string& where, const std::string& what) {
    return InputError(fmt::format("not a valid apod-results document: {}: {}", where, what));
  };
  if (!doc.is_object())
    throw bad("document", "expected a JSON object");
  if (!doc.contains("format") || doc["format"] != "apod-results")
    throw bad("format", "expected \"apod-results\"");
  if (!doc.contains("schema_version"))
    throw bad("document", "missing \"schema_version\"");
  const json& version = doc["schema_version"];
  if (!version.is_number_integer())
    throw bad("document.schema_version",
              fmt::format("expected integer, found {}", version.type_name()));
  if (version.get<int64_t>() < 1 || version.get<int64_t>() > results_schema_version)
    throw InputError(
        fmt::format("apod-results schema_version {} is not supported (this apod reads 1..{})",
                    version.dump(), results_schema_version));
  if (!doc.contains("runs"))
    throw bad("document", "missing \"runs\"");
  if (!doc["runs"].is_array())
    throw bad("document.runs", fmt::format("expected array, found {}", doc["runs"].type_name()));
  std::vector<RunRecord> runs;
  std::set<std::string> ids;
  for (size_t i = 0; i < doc["runs"].size(); ++i) {
    const std::string where = fmt::format("runs[{}]", i);
    runs.push_back(run_from_json(doc["runs"][i], where));
    if (!ids.insert(runs.back().id).second)
      throw bad(where + ".id", "duplicate run id");
  }
  return runs;
}

void validate_results(const json& doc) {
  (void)runs_from_document(doc);
}

namespace {

json document_head() {
  return {{"format", "apod-results"},
          {"schema_version", results_schema_version},
          {"generator", std::string("apod ") + APOD_VERSION},
          {"runs", json::array()}};
}

} // namespace

json results_document(const std::vector<RunRecord>& runs) {
  json doc = document_head();
  for (const RunRecord& r : runs)
    doc["runs"].push_back(to_json(r));
  return doc;
}

namespace {

// Counts that validate() bounds, checked on the parsed tree before any record is built from it:
// a document of a million measurements is refused without a second copy in memory.
void check_counts(const json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array())
    return;
  for (const json& run : doc["runs"])
    if (run.is_object() && run.contains("measurements") && run["measurements"].is_array() &&
        run["measurements"].size() > limits::max_measurements_per_run)
      throw InputError(fmt::format("'{}' holds a run of {} measurements, more than {}", source,
                                   run["measurements"].size(), limits::max_measurements_per_run));
}

} // namespace

json parse_results(const std::string& text, const std::string& source) {
  json doc = parse_bounded_json(text, source, limits::results_document);
  check_counts(doc, source);
  validate_results(doc);
  return doc;
}

json read_results_file(const std::string& path) {
  return parse_results(read_input_file(path, limits::results_document), path);
}

// dump(2) of the whole document puts each run at an indent of 4: the same text is the run's own
// dump(2) with 4 spaces after each line break (JSON strings hold no raw line break).
std::size_t write_results_json(OutputFile& out, const RunSource& source) {
  const std::string head = document_head().dump(2);
  const std::size_t open = head.rfind("[]");
  out.write(std::string_view(head).substr(0, open + 1));
  std::size_t runs = 0;
  source([&](const RunRecord& run) {
    // Text that is not UTF-8 is U+FFFD: the store replaces it as it reads, so this only
    // guards a record built in memory from throwing halfway through an output.
    std::string text = to_json(run).dump(2, ' ', false, json::error_handler_t::replace);
    std::string indented = runs ? ",\n    " : "\n    ";
    for (const char c : text)
      indented += c == '\n' ? std::string_view("\n    ") : std::string_view(&c, 1);
    out.write(indented);
    ++runs;
  });
  out.write(runs ? "\n  ]\n}\n" : "]\n}\n");
  return runs;
}

namespace {

constexpr const char* csv_columns[] = {"run_id",
                                       "run_label",
                                       "run_started_at",
                                       "run_status",
                                       "device_name",
                                       "device_uuid",
                                       "experiment",
                                       "experiment_version",
                                       "params",
                                       "metric",
                                       "unit",
                                       "direction",
                                       "class",
                                       "status",
                                       "error",
                                       "verified",
                                       "n",
                                       "used",
                                       "median",
                                       "min",
                                       "max",
                                       "mean",
                                       "stddev",
                                       "q1",
                                       "q3",
                                       "ci_low",
                                       "ci_high",
                                       "noisy",
                                       "stop_reason",
                                       "comparability_key"};

std::string number(double v) {
  return fmt::format("{:.17g}", v);
}

std::string csv_row(const RunRecord& run, const ExperimentRecord& e, const Measurement& m) {
  const Summary s = summarize(m.used_samples());
  const SampleCounts counts = sample_counts(m);
  const PointStatus status = point_status(m);
  const auto stat = [&](double v) { return s.n ? number(v) : std::string(); };
  const std::string params = m.params.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::string fields[] = {csv_field(run.id),
                                csv_field(run.label),
                                csv_field(run.started_at),
                                csv_field(run.status),
                                csv_field(run.device.name),
                                csv_field(run.device.uuid),
                                csv_field(e.name),
                                std::to_string(e.version),
                                csv_field(params),
                                csv_field(m.metric),
                                csv_field(m.unit),
                                to_string(m.direction),
                                class_name(m.metric_class),
                                status.word(),
                                csv_field(status.reason),
                                m.verified ? "true" : "false",
                                std::to_string(counts.taken()),
                                std::to_string(counts.used),
                                stat(s.median),
                                stat(s.min),
                                stat(s.max),
                                stat(s.mean),
                                stat(s.stddev),
                                stat(s.q1),
                                stat(s.q3),
                                stat(s.ci_low),
                                stat(s.ci_high),
                                m.noisy ? "true" : "false",
                                csv_field(m.stop_reason),
                                csv_field(m.comparability_key)};
  static_assert(std::size(fields) == std::size(csv_columns));
  std::string row;
  for (const auto& f : fields)
    row.append(row.empty() ? "" : ",").append(f);
  return row + "\r\n"; // RFC 4180, 2.1
}

} // namespace

std::size_t write_results_csv(OutputFile& out, const RunSource& source) {
  std::string header;
  for (const char* column : csv_columns)
    header.append(header.empty() ? "" : ",").append(column);
  out.write(header + "\r\n");
  std::size_t runs = 0;
  source([&](const RunRecord& run) {
    ++runs;
    for (const ExperimentRecord& e : run.experiments)
      for (const Measurement& m : e.measurements)
        out.write(csv_row(run, e, m));
  });
  return runs;
}

} // namespace apod
