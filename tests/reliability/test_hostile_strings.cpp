// Hostile strings through every writer (issue 19): runs whose every stored string (labels, dates,
// device, host, driver and batch names, experiment and metric names, units, parameter keys and
// values, extra values, error texts, the pinned baseline's text, compare --config's experiment
// names) carries terminal escapes, C1 controls, bidirectional overrides, bytes that are not
// UTF-8, HTML comments and elements, markdown links, images, headings and pipes, backticks, line
// breaks and spreadsheet formulas, written by compare (text, markdown, json), the report (HTML,
// markdown) and the CSV and JSON exports. Each output must keep the structure it has for the same
// runs with plain strings: as many lines, table cells, headings and elements, nothing a terminal
// would run, and every string still there as text. (tests/reliability/test_hostile_cli.sh covers
// the writers that live in the binary: `list`, `baseline show`, error messages.)
#include "analysis/compare.hpp"
#include "core/output_file.hpp"
#include "core/results_json.hpp"
#include "core/text.hpp"
#include "report.hpp"
#include "store/store.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

using namespace apod;

namespace {

// Each payload breaks one kind of output if written as it is.
const std::vector<std::string> payloads = {
    "=cmd|' /C calc'!A0",     // a spreadsheet formula (CSV)
    "@SUM(1)",                // another
    "\x1b]52;c;ZXZpbA==\x07", // OSC 52: writes the clipboard (terminal)
    "\x1b[2J",                // CSI: clears the screen
    "\xc2\x9b"                // C1 CSI, as UTF-8
    "31m",                    //
    "\xe2\x80\xae",           // U+202E right-to-left override
    "\xe2\x81\xa6",           // U+2066 left-to-right isolate
    "\xff\xfe",               // not UTF-8
    "<!--",                   // hides the rest of a job summary or page
    "-->",                    //
    "</script>",              // ends a script element
    "<img src=http://x>",     // a remote image (HTML, markdown)
    "[link](http://x)",       // a live link (markdown)
    "![img](http://x)",       // a remote image (markdown)
    "\n# heading",            // a heading from a new line (markdown)
    "| pipe |",               // a table cell (markdown)
    "`tick``",                // a code span (markdown)
    "\r\nline",               // a line break (terminal, CSV)
    "+1+1",                   // formulas again
    "-1-1",                   //
    "\"quote' &amp;",         // attribute and entity (HTML)
};

// Field `k`'s hostile text: every payload, starting with a different one per field so that each
// reaches the start of some field (where a formula or a heading begins).
std::string hostile(int k) {
  std::string text;
  for (std::size_t i = 0; i < payloads.size(); ++i)
    text += payloads[(k + i) % payloads.size()] + " ";
  return text + "f" + std::to_string(k);
}

// The same field, plain: the structure every hostile output must keep.
std::string plain(int k) {
  return "plain field " + std::to_string(k);
}

using Text = std::function<std::string(int)>;

// Field numbers (one per stored string, so that each starts with its own payload).
enum Field : int {
  label = 0, // + run index
  device_name = 20,
  uuid,
  host,
  os,
  kernel,
  cpu_model,
  compiler,
  driver_version,
  driver_branch,
  batch,
  writer_host,
  experiment_name, // + experiment index
  param_key = 40,
  param_value,
  metric,
  unit,
  extra_note,
  point_error,
  experiment_error,
  finished,
  apod_version,
  generator,
  pinned,
  config_experiment,
  lonely_experiment,
};

std::string replaced_invalid_utf8(const std::string& text) {
  return json::parse(json(text).dump(-1, ' ', false, json::error_handler_t::replace));
}

Measurement point(const Text& text, const std::string& experiment, int size, double level) {
  Measurement m;
  m.experiment = experiment;
  // JSON values hold UTF-8 only: every way in (import, the store's read-out) replaces the rest,
  // and compare's point identity (core/point_key.hpp) is their JSON text.
  m.params = {{replaced_invalid_utf8(text(param_key)), replaced_invalid_utf8(text(param_value))},
              {"size", size}};
  m.metric = text(metric);
  m.unit = text(unit);
  m.metric_class = MetricClass::device_memory; // gated, so that a slowdown is a regression
  m.samples = {level, level * 1.001, level * 0.999, level * 1.002, level * 0.998};
  m.verified = true;
  m.extra = {{"note", replaced_invalid_utf8(text(extra_note))}, {"bytes_moved", 1e9}};
  // The key pairs the point across runs (derive_keys() would hash the device name, which holds
  // bytes that are not UTF-8 here; exported() below derives them as import does).
  m.comparability_key = fmt::format("{}/{}", experiment == text(experiment_name + 1) ? 1 : 0, size);
  return m;
}

// A run of the one machine: two experiments of two points each (a third, failed point in the
// first), the second experiment failed as a whole; `level` scales every figure.
RunRecord run_of(const Text& text, const std::string& id, int index, double level,
                 const std::string& started_at, bool failed_point) {
  RunRecord r;
  r.id = id;
  r.label = text(label + index);
  r.started_at = started_at;
  r.finished_at = text(finished);
  r.status = "complete";
  r.apod_version = text(apod_version);
  r.device.name = text(device_name);
  r.device.uuid = text(uuid);
  r.environment.host = text(host);
  r.environment.os = text(os);
  r.environment.kernel = text(kernel);
  r.environment.cpu_model = text(cpu_model);
  r.environment.compiler = text(compiler);
  r.environment.gpu_state = GpuState{};
  r.environment.gpu_state->driver_version = text(driver_version);
  r.environment.gpu_state->driver_branch = text(driver_branch);
  r.environment.repeat = RepeatIndex{index + 1, 7, text(batch)};
  r.environment.writer = Writer{};
  r.environment.writer->host = text(writer_host);
  for (int e = 0; e < 2; ++e) {
    ExperimentRecord x;
    x.name = text(experiment_name + e);
    x.started_at = started_at;
    for (int size = 1; size <= 3; ++size) // 3: enough to be taken whole (min_whole_points)
      x.measurements.push_back(point(text, x.name, size, level * (100 + 10 * size + e)));
    if (e == 1) {
      x.status = "failed";
      x.error = text(experiment_error);
    }
    if (e == 0 && failed_point) {
      Measurement m = point(text, x.name, 4, level);
      m.error = text(point_error);
      m.verified = false;
      x.measurements.push_back(m);
    }
    r.experiments.push_back(x);
  }
  return r;
}

/// Not apod's shape (a space for the T): every writer shows it whole. It sorts as the dates
/// around it do, so that the plain twin's runs come in the same order.
std::string candidate_date(const Text& text) {
  return "2026-01-09 " + text(label + 15);
}

/// Five runs of one machine at one level (history), a candidate at half the bandwidth whose
/// failed point the others measured, and a run of another experiment that nothing compares with.
/// The baseline (first) and the history have dates of apod's shape followed by stored text; the
/// candidate's date is stored text alone.
std::vector<RunRecord> runs_of(const Text& text) {
  std::vector<RunRecord> runs;
  for (int i = 0; i < 5; ++i)
    runs.push_back(run_of(text, fmt::format("aa0{}", i), i, 1.0 + 0.001 * i,
                          fmt::format("2026-01-0{}T00:00:00.000 {}Z", i + 1, text(label + 10 + i)),
                          false));
  runs.push_back(run_of(text, "bb01", 5, 0.5, candidate_date(text), true));
  RunRecord lonely = run_of(text, "cc01", 6, 1.0, "2026-02-01T00:00:00.000Z", false);
  lonely.experiments.resize(1);
  lonely.experiments[0].name = text(lonely_experiment);
  for (Measurement& m : lonely.experiments[0].measurements) {
    m.experiment = lonely.experiments[0].name;
    m.comparability_key = "lonely/" + m.comparability_key;
  }
  runs.push_back(lonely);
  return runs;
}

// Compare's verdicts: the candidate and the lonely run, each against the baseline (a batch), with
// a per-experiment threshold for a hostile experiment name.
std::vector<Verdict> verdicts_of(const std::vector<RunRecord>& runs, const Text& text) {
  CompareOptions options;
  options.experiment_threshold[text(experiment_name)] = 0.2;
  options.experiment_threshold[text(config_experiment)] = 0.1;
  const std::set<std::string> judged = {"bb01", "cc01"};
  return {judge(runs[0], runs[5], NoiseModel::for_candidate(runs, "bb01", judged), options),
          judge(runs[0], runs[6], NoiseModel::for_candidate(runs, "cc01", judged), options)};
}

// ---- what each kind of output must look like -----------------------------------------------

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// The code points of `text`; false if it is not valid UTF-8.
bool decode_utf8(const std::string& text, std::vector<char32_t>* out) {
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t len = b < 0x80                 ? 1
                            : b >= 0xF0 && b <= 0xF4 ? 4
                            : b >= 0xE0              ? 3
                            : b >= 0xC2              ? 2
                                                     : 0;
    if (len == 0 || i + len > text.size())
      return false;
    char32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (std::size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80)
        return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    out->push_back(cp);
    i += len;
  }
  return true;
}

/// Nothing a terminal would act on: valid UTF-8 with no control character but the line feed,
/// no DEL, no C1 control and no bidirectional override or isolate.
void expect_terminal_safe(const std::string& text, const std::string& what) {
  std::vector<char32_t> cps;
  ASSERT_TRUE(decode_utf8(text, &cps)) << what << ": not UTF-8";
  for (const char32_t cp : cps) {
    const bool control = (cp < 0x20 && cp != '\n') || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
    const bool bidi = (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
    ASSERT_FALSE(control || bidi) << what << ": U+" << std::hex << static_cast<unsigned>(cp);
  }
}

// A markdown line with its code spans (` ... `, any fence length) taken out: what is left is
// what markdown parses as inline text.
std::string without_code_spans(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      out += line.substr(i, 2);
      i += 2;
      continue;
    }
    if (line[i] != '`') {
      out += line[i++];
      continue;
    }
    std::size_t fence = 0;
    while (i + fence < line.size() && line[i + fence] == '`')
      ++fence;
    const std::string ticks(fence, '`');
    std::size_t close = line.find(ticks, i + fence);
    while (close != std::string::npos && close + fence < line.size() && line[close + fence] == '`')
      close = line.find(ticks, close + fence + 1);
    if (close == std::string::npos) {
      out += ticks;
      i += fence;
      continue;
    }
    out += "CODE";
    i = close + fence;
  }
  return out;
}

// Whether line[i] is escaped by an odd run of backslashes before it.
bool escaped(const std::string& line, std::size_t i) {
  std::size_t slashes = 0;
  while (i > slashes && line[i - 1 - slashes] == '\\')
    ++slashes;
  return slashes % 2 == 1;
}

std::size_t table_cells(const std::string& line) {
  std::size_t cells = 0;
  for (std::size_t i = 0; i < line.size(); ++i)
    cells += line[i] == '|' && !escaped(line, i);
  return cells;
}

// What a markdown line is: a heading of its level ("###"), a table row of its cells ("|5"), or
// text ("").
std::string kind_of(const std::string& line) {
  if (line.rfind('#', 0) == 0)
    return line.substr(0, line.find_first_not_of('#'));
  const std::size_t cells = table_cells(without_code_spans(line));
  return cells ? "|" + std::to_string(cells) : "";
}

/// Markdown that says what its plain twin says and no more: as many lines, as many headings of
/// each level and table rows of each number of cells (the twin may list experiments in another
/// order: their names sort otherwise), and outside code spans no `<` but apod's own <details>
/// and <summary>, no unescaped `[`, `]` or `![`, and nothing a terminal would act on (a job
/// summary is also read in a terminal).
void expect_markdown_like(const std::string& md, const std::string& twin, const std::string& what) {
  expect_terminal_safe(md, what);
  const auto lines = lines_of(md), twin_lines = lines_of(twin);
  ASSERT_EQ(lines.size(), twin_lines.size()) << what << "\n" << md;
  std::vector<std::string> kinds, twin_kinds;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    kinds.push_back(kind_of(lines[i]));
    twin_kinds.push_back(kind_of(twin_lines[i]));
    std::string text = without_code_spans(lines[i]);
    for (const char* own : {"<details>", "</details>", "<summary>", "</summary>"})
      for (std::size_t at; (at = text.find(own)) != std::string::npos;)
        text.erase(at, std::string(own).size());
    EXPECT_EQ(text.find('<'), std::string::npos) << what << " line " << i << ": " << lines[i];
    for (std::size_t k = 0; k < text.size(); ++k)
      if (text[k] == '[' || text[k] == ']' ||
          (text[k] == '!' && k + 1 < text.size() && text[k + 1] == '['))
        EXPECT_TRUE(escaped(text, k)) << what << " line " << i << ": " << lines[i];
  }
  std::sort(kinds.begin(), kinds.end());
  std::sort(twin_kinds.begin(), twin_kinds.end());
  EXPECT_EQ(kinds, twin_kinds) << what << ": headings or table rows differ\n" << md;
}

// The tag names of `html` outside its script elements, with the script elements' own tags: the
// page's elements and comments.
std::vector<std::string> tags_of(const std::string& html, std::vector<std::string>* scripts) {
  std::vector<std::string> tags;
  static const std::regex tag(R"(<(/?[A-Za-z!][A-Za-z0-9-]*))");
  std::size_t at = 0;
  while (at < html.size()) {
    const std::size_t open = html.find("<script", at);
    const std::string markup = html.substr(at, open == std::string::npos ? open : open - at);
    for (std::sregex_iterator it(markup.begin(), markup.end(), tag), end; it != end; ++it)
      tags.push_back((*it)[1]);
    if (open == std::string::npos)
      break;
    const std::size_t open_end = html.find('>', open);
    const std::size_t close = html.find("</script", open_end); // where a browser ends it
    if (open_end == std::string::npos || close == std::string::npos) {
      ADD_FAILURE() << "a script element without its end";
      break;
    }
    tags.push_back("script");
    tags.push_back("/script");
    scripts->push_back(html.substr(open_end + 1, close - open_end - 1));
    at = html.find('>', close) + 1;
  }
  // Sorted: the twin may list experiments in another order (their names sort otherwise).
  std::sort(tags.begin(), tags.end());
  return tags;
}

// ---- the fixture ---------------------------------------------------------------------------

class HostileStrings : public ::testing::Test {
protected:
  std::vector<RunRecord> runs = runs_of(hostile), twins = runs_of(plain);
  std::vector<Verdict> verdicts = verdicts_of(runs, hostile),
                       twin_verdicts = verdicts_of(twins, plain);
};

TEST_F(HostileStrings, TheFixtureJudgesARegressionAndLeavesPointsOut) {
  // The writers below see every kind of line: a regression, a failed point left out, an
  // experiment taken whole, and nothing compared.
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_GT(verdicts[0].regressions(), 0);
  EXPECT_FALSE(verdicts[0].left_out.empty());
  EXPECT_FALSE(verdicts[0].wholes.empty());
  EXPECT_FALSE(verdicts[1].nothing_compared.empty());
  EXPECT_EQ(verdicts[0].regressions(), twin_verdicts[0].regressions());
}

TEST_F(HostileStrings, CompareTextRunsNothingAndKeepsItsLines) {
  const std::string text = format_text(verdicts), twin = format_text(twin_verdicts);
  expect_terminal_safe(text, "compare text");
  EXPECT_EQ(lines_of(text).size(), lines_of(twin).size()) << text;
  // The stored text is there, shown: the label, the candidate's date, an experiment's name.
  EXPECT_NE(text.find(terminal_text(hostile(label))), std::string::npos) << text;
  EXPECT_NE(text.find(terminal_text(candidate_date(hostile))), std::string::npos) << text;
  EXPECT_NE(text.find(terminal_text(hostile(experiment_name))), std::string::npos);
  EXPECT_NE(text.find(terminal_text(hostile(point_error))), std::string::npos) << "left-out detail";
  const std::string only_changed = format_text(verdicts, {true});
  expect_terminal_safe(only_changed, "compare text --only-changed");
}

TEST_F(HostileStrings, CompareMarkdownKeepsItsTablesAndHeadings) {
  const std::string md = format_markdown(verdicts), twin = format_markdown(twin_verdicts);
  expect_markdown_like(md, twin, "compare markdown");
  EXPECT_NE(md.find(markdown_text(hostile(label))), std::string::npos) << md;
  EXPECT_NE(md.find(markdown_text(candidate_date(hostile))), std::string::npos) << md;
  // A single verdict: the count line is the batch line.
  expect_markdown_like(format_markdown({verdicts[0]}), format_markdown({twin_verdicts[0]}),
                       "compare markdown, one verdict");
  expect_markdown_like(format_markdown({verdicts[1]}), format_markdown({twin_verdicts[1]}),
                       "compare markdown, nothing compared");
}

TEST_F(HostileStrings, CompareJsonCarriesEveryStringExactly) {
  const std::string text = to_json(verdicts).dump(2, ' ', false, json::error_handler_t::replace);
  const json doc = json::parse(text);
  const json& v = doc["verdicts"][0];
  EXPECT_EQ(v["baseline"]["label"], replaced_invalid_utf8(hostile(label)));
  EXPECT_EQ(v["candidate"]["started_at"], replaced_invalid_utf8(candidate_date(hostile)));
  EXPECT_EQ(v["candidate"]["device"], replaced_invalid_utf8(hostile(device_name)));
  EXPECT_EQ(v["points"][0]["metric"], replaced_invalid_utf8(hostile(metric)));
  EXPECT_EQ(v["points"][0]["params"][replaced_invalid_utf8(hostile(param_key))],
            replaced_invalid_utf8(hostile(param_value)));
  // The summary is apod's count line around the stored names, as it is (json escapes it).
  EXPECT_NE(v["summary"].get<std::string>().find(replaced_invalid_utf8(hostile(experiment_name))),
            std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

TEST_F(HostileStrings, ReportMarkdownKeepsItsTablesAndHeadings) {
  report::RenderOptions options, twin_options;
  options.baseline_run = runs[0].id;
  twin_options.baseline_run = twins[0].id;
  // The newest run is the lonely one: the verdict is on it.
  const std::string md = report::render_markdown(runs, json::array(), options);
  const std::string twin = report::render_markdown(twins, json::array(), twin_options);
  expect_markdown_like(md, twin, "report markdown");
  EXPECT_NE(md.find(markdown_text(hostile(device_name))), std::string::npos) << md;
  EXPECT_NE(md.find(markdown_text(hostile(point_error))), std::string::npos) << md;
  // A pinned baseline that is no run of the report: its stored text is named in the verdict.
  options.baseline_run = hostile(pinned);
  twin_options.baseline_run = plain(pinned);
  expect_markdown_like(report::render_markdown(runs, json::array(), options),
                       report::render_markdown(twins, json::array(), twin_options),
                       "report markdown, unknown pinned baseline");
}

TEST_F(HostileStrings, ReportHtmlHasTheSameElementsAndScriptsThatParse) {
  report::RenderOptions options, twin_options;
  options.baseline_run = runs[0].id;
  twin_options.baseline_run = twins[0].id;
  const std::string html =
      report::render_html(runs, json::array(), json::array(), options, hostile(generator));
  const std::string twin =
      report::render_html(twins, json::array(), json::array(), twin_options, plain(generator));
  std::vector<std::string> scripts, twin_scripts;
  const auto tags = tags_of(html, &scripts), twin_tags = tags_of(twin, &twin_scripts);
  EXPECT_EQ(tags, twin_tags) << "an element or comment came from stored text";
  ASSERT_EQ(scripts.size(), twin_scripts.size());
  // The label as JSON writes it, without its quotes: found inside longer strings too.
  const std::string label_json = json(replaced_invalid_utf8(hostile(label))).dump();
  const std::string label_text = label_json.substr(1, label_json.size() - 2);
  bool label_in_data = false;
  for (const std::string& script : scripts) {
    if (script.empty() || (script[0] != '{' && script[0] != '['))
      continue; // one of the libraries
    EXPECT_EQ(script.find("<!--"), std::string::npos);
    EXPECT_EQ(script.find("</"), std::string::npos);
    const json data = json::parse(script); // every JSON block parses
    label_in_data = label_in_data || data.dump().find(label_text) != std::string::npos;
  }
  EXPECT_TRUE(label_in_data) << "the chart data carries the label exactly";
  EXPECT_NE(html.find("&lt;img src=http://x&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<img src=http://x>"), std::string::npos);
  options.baseline_run = hostile(pinned);
  twin_options.baseline_run = plain(pinned);
  scripts.clear();
  twin_scripts.clear();
  EXPECT_EQ(tags_of(report::render_html(runs, json::array(), json::array(), options, ""), &scripts),
            tags_of(report::render_html(twins, json::array(), json::array(), twin_options, ""),
                    &twin_scripts))
      << "unknown pinned baseline";
}

// The page outside its script elements.
std::string markup_of(const std::string& html) {
  std::string markup;
  std::size_t at = 0;
  for (std::size_t open; (open = html.find("<script", at)) != std::string::npos;) {
    const std::size_t close = html.find("</script", open);
    markup += html.substr(at, open - at);
    at = close == std::string::npos ? html.size() : close;
  }
  return markup + html.substr(at);
}

// Enable once report/report.cpp renders its templates through render_mustache (report/html.hpp),
// which writes every {{var}} with html_text: kainjow's own escaper lets ESC, C1 and the
// bidirectional overrides through (nothing structural: they cannot open an element).
TEST_F(HostileStrings, ReportHtmlShowsControlsAndBidiOverrides) {
  report::RenderOptions options;
  options.baseline_run = runs[0].id;
  std::string markup = markup_of(
      report::render_html(runs, json::array(), json::array(), options, hostile(generator)));
  markup.erase(std::remove(markup.begin(), markup.end(), '\t'), markup.end());
  expect_terminal_safe(markup, "report HTML outside scripts");
}

// The CSV rules Python's csv module reads by (RFC 4180): quoted fields with doubled quotes, rows
// ended by CRLF outside quotes.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"') {
      EXPECT_TRUE(field.empty()) << "a quote inside an unquoted field";
      quoted = was_quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field), field.clear(), was_quoted = false;
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.back().push_back(field), field.clear(), was_quoted = false;
      rows.emplace_back();
      ++i;
    } else {
      EXPECT_TRUE(c != '\r' && c != '\n') << "a line break outside quotes";
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "an unclosed quote";
  if (rows.back().empty() && field.empty() && !was_quoted)
    rows.pop_back();
  return rows;
}

class HostileExports : public HostileStrings {
protected:
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("apod_hostile_" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  // The runs as `apod import` and `apod export` read them: from JSON (where bytes that are
  // not UTF-8 are U+FFFD), with dates of apod's shape (the only ones import takes,
  // core/run_dates.hpp) and keys derived from the content, through the store.
  std::string exported(const std::vector<RunRecord>& records, bool csv) {
    Store store(":memory:", Store::Mode::read_write_create);
    for (std::size_t i = 0; i < records.size(); ++i) {
      json doc =
          json::parse(to_json(records[i]).dump(-1, ' ', false, json::error_handler_t::replace));
      doc["started_at"] = fmt::format("2026-01-{:02}T00:00:00.000Z", i + 1);
      doc["finished_at"] = fmt::format("2026-01-{:02}T00:01:00.000Z", i + 1);
      for (json& e : doc["experiments"])
        e["started_at"] = doc["started_at"];
      for (json& m : doc["measurements"])
        m.erase("comparability_key");
      store.import_run(run_from_json(doc, "runs[" + std::to_string(i) + "]"));
    }
    const std::string path = (dir / (csv ? "runs.csv" : "runs.json")).string();
    OutputFile out(path, {});
    const RunSource source = [&](const auto& each) { store.for_each_run({}, each); };
    csv ? write_results_csv(out, source) : write_results_json(out, source);
    out.commit();
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
};

TEST_F(HostileExports, CsvKeepsItsColumnsAndRunsNoFormula) {
  const auto rows = parse_csv(exported(runs, true));
  ASSERT_GT(rows.size(), 20u);
  std::size_t quoted_formulas = 0;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), rows[0].size());
    for (const std::string& field : row) {
      EXPECT_TRUE(field.empty() || std::string_view("=+-@\t\r").find(field[0]) == std::string::npos)
          << field;
      quoted_formulas += field.rfind("'=cmd", 0) == 0 || field.rfind("'@SUM", 0) == 0;
      std::vector<char32_t> cps;
      EXPECT_TRUE(decode_utf8(field, &cps)) << "not UTF-8: " << field;
    }
  }
  EXPECT_GT(quoted_formulas, 0u) << "no field began with a formula: the test tests nothing";
  const auto labels = std::find(rows[0].begin(), rows[0].end(), "run_label") - rows[0].begin();
  EXPECT_EQ(rows[1][labels], "'" + replaced_invalid_utf8(hostile(label)));
}

TEST_F(HostileExports, JsonExportRoundTripsEveryString) {
  const json doc = json::parse(exported(runs, false));
  const json& run = doc["runs"][0];
  EXPECT_EQ(run["label"], replaced_invalid_utf8(hostile(label)));
  EXPECT_EQ(run["device"]["name"], replaced_invalid_utf8(hostile(device_name)));
  EXPECT_EQ(run["environment"]["host"], replaced_invalid_utf8(hostile(host)));
  EXPECT_EQ(run["measurements"][0]["metric"], replaced_invalid_utf8(hostile(metric)));
  EXPECT_EQ(run["experiments"][1]["error"], replaced_invalid_utf8(hostile(experiment_error)));
}

} // namespace
