// A verdict as a JUnit XML test report, the format CI systems show as tests (GitLab, Jenkins,
// Buildkite, GitHub test reporters): `apod compare --format junit`.
#pragma once

#include "analysis/compare.hpp"

#include <string>
#include <vector>

namespace apod {

/// The verdicts as one <testsuites> document, valid against the Jenkins JUnit schema (junit-4.xsd,
/// as shipped by npm's junit-processor; tests/cli/test_ci_formats.sh validates it): one <testsuite>
/// per verdict, named by the candidate run's id and label, its properties the baseline, the GPU,
/// the threshold and the error rate; one <testcase> per gated point (classname the experiment,
/// name the metric and its parameters), per experiment taken whole, and per point left out. A
/// regression is a <failure>; a point or whole whose decision is neither a regression nor a
/// result (unconfirmed, inconclusive) and a point left out are <skipped>, with the reason; a run
/// with nothing compared has one <error>. Every message carries the change, the noise, the Holm
/// p-value and the detectable change. Stored text is made visible as terminal_text does, then
/// escaped: no name can open an element or leave a character XML 1.0 forbids.
std::string format_junit(const std::vector<Verdict>& verdicts);

} // namespace apod
