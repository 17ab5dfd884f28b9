// JUnit XML has no formal standard; the schema CI tools agree on is Jenkins' junit-4.xsd, whose
// order of children (properties, then test cases; in a test case skipped, error, failure,
// system-out) and attributes this writer keeps. A suite's counts are taken from the test cases
// it writes, so that they agree whatever compare decided.
#include "analysis/verdict_junit.hpp"

#include "core/point_key.hpp"
#include "core/text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

namespace apod {

namespace {

/// `text` (apod's own, or stored text already through terminal_text) as XML character data or a
/// quoted attribute value: html_text's escapes (&, <, >, " and ' as references, which XML shares),
/// and the two code points XML 1.0 forbids that it keeps, U+FFFE and U+FFFF, as U+FFFD.
std::string xml_escape(std::string_view text) {
  std::string allowed(text);
  for (std::size_t at = allowed.find("\xEF\xBF"); at != std::string::npos;
       at = allowed.find("\xEF\xBF", at + 1))
    if (at + 2 < allowed.size() && (allowed[at + 2] == '\xBE' || allowed[at + 2] == '\xBF'))
      allowed[at + 2] = '\xBD';
  return html_text(allowed);
}

/// Stored text for XML: control characters, DEL, C1 and bidirectional overrides made visible and
/// bytes that are not UTF-8 replaced (terminal_text), then escaped.
std::string xml_text(std::string_view stored) {
  return xml_escape(terminal_text(stored));
}

/// "word_bytes=4 offset=3": the parameters with their keys sorted, so that a test case keeps its
/// name whatever order a run wrote them in (CI tools follow a test's history by its name).
std::string sorted_params(const json& params) {
  const json sorted = json::parse(canonical_params(params));
  std::string words;
  for (auto it = sorted.begin(); it != sorted.end(); ++it) {
    const json& v = it.value();
    words += (words.empty() ? "" : " ") + it.key() + "=" +
             (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return words;
}

std::string case_name(const std::string& metric, const json& params) {
  const std::string words = params.is_object() ? sorted_params(params) : params.dump();
  return words.empty() ? metric : metric + " " + words;
}

std::string threshold_text(double threshold) {
  return fmt::format("{:g}%", 100 * threshold);
}

/// The verdict's threshold: one for every class when the options set one, else each class's own.
std::string threshold_text(const std::optional<double>& threshold) {
  return threshold ? threshold_text(*threshold) : "per class (docs/ci.md)";
}

/// What a point says it would need to become conclusive ("needs 4 more runs of history"), where
/// compare's PointVerdict has that field (the three-outcome verdict model); else nothing.
template <class Point> std::string needs_of(const Point& p) {
  if constexpr (requires { p.needs; })
    return p.needs;
  else
    return "";
}

/// The figures behind a decision, for a message and the test case's output.
std::string numbers(const PointVerdict& p) {
  const bool whole = p.points_taken_whole > 0;
  const std::string values =
      whole ? fmt::format("the median change of {} points", p.points_taken_whole)
            : fmt::format("baseline {:.6g} {}, candidate {:.6g} {}", p.baseline,
                          terminal_text(p.unit), p.candidate, terminal_text(p.unit));
  return fmt::format("{} ({}); noise ±{:.2g}%; p (Holm) {:.2g}; detectable change {:.3g}%",
                     change_text(p), values, 100 * p.noise, p.p_adjusted, 100 * p.detectable);
}

enum class CaseResult { passed, failure, skipped, error };

/// What one <testsuite> wrote and its counts, for the totals of <testsuites>.
struct Suite {
  std::string xml;
  std::size_t tests = 0;
  int failures = 0, errors = 0;
};

struct TestCase {
  std::string classname, name; ///< escaped
  CaseResult outcome = CaseResult::passed;
  std::string type, message, output; ///< escaped
};

/// A gated point or an experiment taken whole, by compare's decision: a regression fails; a
/// point the same, faster or (derived) slower passed; any other decision (unconfirmed,
/// inconclusive) is skipped with its word, its meaning and what it needs.
TestCase point_case(const PointVerdict& p) {
  TestCase t;
  t.classname = xml_text(p.experiment);
  t.name = p.points_taken_whole > 0
               ? xml_escape(fmt::format("{} taken whole ({} points)", class_phrase(p.metric_class),
                                        p.points_taken_whole))
               : xml_text(case_name(p.metric, p.params));
  const Decision d = decision_of(p);
  const Wording w = wording(d);
  const std::string figures = numbers(p);
  t.output = xml_escape(figures.starts_with(w.word) ? figures : w.word + (": " + figures));
  if (d == Decision::regression) {
    t.outcome = CaseResult::failure;
    t.type = w.word;
    t.message = t.output;
  } else if (d != Decision::same && d != Decision::faster && d != Decision::slower) {
    const std::string needs = needs_of(p);
    t.outcome = CaseResult::skipped;
    t.message =
        xml_escape(fmt::format("{}: {}{}; {}", w.word, w.meaning,
                               needs.empty() ? "" : " (" + terminal_text(needs) + ")", numbers(p)));
  }
  return t;
}

TestCase left_out_case(const LeftOut& l) {
  TestCase t;
  t.classname = xml_text(l.experiment);
  t.name = xml_text(case_name(l.metric, l.params));
  t.outcome = CaseResult::skipped;
  t.message = xml_escape(fmt::format("left out ({}){}", reason_name(l.reason),
                                     l.detail.empty() ? "" : ": " + terminal_text(l.detail)));
  return t;
}

std::string run_text(const RunFacts& r) {
  return xml_text(fmt::format("{}{}{}", r.id, r.label.empty() ? "" : " \"" + r.label + "\"",
                              r.started_at.empty() ? "" : " started " + r.started_at));
}

Suite suite(const Verdict& v, int id) {
  std::vector<TestCase> cases;
  if (!v.nothing_compared.empty())
    cases.push_back({"apod.compare", "compare", CaseResult::error, "nothing_compared",
                     xml_text("nothing compared: " + v.nothing_compared), ""});
  for (const PointVerdict& p : v.points)
    if (p.gated)
      cases.push_back(point_case(p));
  for (const PointVerdict& w : v.wholes)
    cases.push_back(point_case(w));
  for (const LeftOut& l : v.left_out)
    cases.push_back(left_out_case(l));
  int failures = 0, skipped = 0, errors = 0;
  for (const TestCase& t : cases) {
    failures += t.outcome == CaseResult::failure;
    skipped += t.outcome == CaseResult::skipped;
    errors += t.outcome == CaseResult::error;
  }
  const RunFacts& c = v.candidate;
  std::string out = fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
      "id=\"{}\" package=\"apod.compare\" hostname=\"{}\">\n    <properties>\n",
      xml_text(c.label.empty() ? c.id : c.id + " " + c.label), cases.size(), failures, errors,
      skipped, id, xml_text(c.host));
  const std::pair<const char*, std::string> properties[] = {
      {"baseline", run_text(v.baseline)},
      {"candidate", run_text(c)},
      {"gpu", xml_text(fmt::format("{} {} on {}", c.device, c.uuid, c.host))},
      {"same_machine", v.same_machine ? "true" : "false"},
      {"threshold", xml_escape(threshold_text(v.threshold))},
      {"fwer", fmt::format("{:g}%", 100 * v.fwer)},
      {"gated_points", std::to_string(v.gated_points)},
      {"exit_code", std::to_string(v.exit_code())}};
  for (const auto& [name, value] : properties)
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, value);
  out += "    </properties>\n";
  for (const TestCase& t : cases) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", t.classname, t.name);
    if (t.outcome == CaseResult::skipped)
      out += fmt::format("      <skipped>{}</skipped>\n", t.message);
    else if (t.outcome == CaseResult::error)
      out += fmt::format("      <error type=\"{}\" message=\"{}\">{}</error>\n", t.type, t.message,
                         t.message);
    else if (t.outcome == CaseResult::failure)
      out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", t.type,
                         t.message, t.message);
    if (!t.output.empty())
      out += fmt::format("      <system-out>{}</system-out>\n", t.output);
    out += "    </testcase>\n";
  }
  return {out + "  </testsuite>\n", cases.size(), failures, errors};
}

} // namespace

std::string format_junit(const std::vector<Verdict>& verdicts) {
  std::string suites;
  std::size_t tests = 0;
  int failures = 0, errors = 0, id = 0;
  for (const Verdict& v : verdicts) {
    const Suite s = suite(v, id++);
    suites += s.xml;
    tests += s.tests;
    failures += s.failures;
    errors += s.errors;
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"apod "
                     "compare\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n{}</testsuites>\n",
                     tests, failures, errors, suites);
}

} // namespace apod
