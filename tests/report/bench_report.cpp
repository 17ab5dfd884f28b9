// Times the report and measures its page. Two sources of runs:
//   bench_report [RUNS] [--fleet] [--samples N] [--out FILE]
//     a synthetic history (default 100 runs, every 10th on a second device model; with --fleet
//     three machines, one run each a night on a real calendar: 1000 runs are a year) with the
//     synthetic catalog of tests/report/synthetic_history.hpp. --samples N gives every point N
//     samples instead of 10-59 (the page does not depend on them; memory does).
//   bench_report RUNS --from DOC [--from DOC]... [--out FILE]
//     real runs of the current matrix (apod-results documents, .json or .json.gz, e.g. the
//     committed data/runs/), with the catalog of the experiments linked into this binary. With
//     RUNS above the documents' count the runs are repeated in start order, each copy with a
//     new id and the next night's date (a year of nights on the documents' machines), so the
//     page has RUNS runs of the grown matrix, measured values and all.
// Renders three times from the runs as the store reads them, with the first run pinned as the
// baseline, and prints the time of each render and the page's size. A benchmark to rerun, not a
// test: the numbers depend on the machine (docs/performance.md records them;
// ci/bench_report_budget.sh runs it against the budgets). `meson test -C build --benchmark
// report_render` runs the synthetic form.
#include "report.hpp"
#include "synthetic_history.hpp"

#include "core/catalog.hpp"
#include "core/results_json.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// The documents' runs in start order, repeated to `count` runs: copy k of a run gets a new id
// (k in its last hex digits) and its date moved by one night per pass over the documents, so
// every copy is a distinct run of the same machine later in time.
std::vector<apod::RunRecord> real_runs(const std::vector<std::string>& documents, int count) {
  std::vector<apod::RunRecord> base;
  for (const auto& path : documents)
    for (auto& run : apod::runs_from_document(apod::read_results_file(path)))
      base.push_back(std::move(run));
  std::stable_sort(base.begin(), base.end(),
                   [](const auto& a, const auto& b) { return a.started_at < b.started_at; });
  if (base.empty() || count <= static_cast<int>(base.size()))
    return base;
  std::vector<apod::RunRecord> runs;
  runs.reserve(count);
  for (int i = 0; i < count; ++i) {
    apod::RunRecord run = base[i % base.size()];
    const int pass = i / static_cast<int>(base.size());
    if (pass > 0) {
      run.id = fmt::format("{:032x}", 0xbe0000 + i);
      // "2026-11-26T..." -> the same time of day, `pass` nights after 2026-01-01.
      const std::string day = apod::report::test::synthetic_date(pass);
      const auto time = run.started_at.size() > 10 ? run.started_at.substr(10) : "T00:00:00Z";
      run.started_at = day + time;
      if (run.finished_at)
        run.finished_at = day + (run.finished_at->size() > 10 ? run.finished_at->substr(10) : time);
      run.label = fmt::format("{} (copy {})", run.label, pass);
    }
    runs.push_back(std::move(run));
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [](const auto& a, const auto& b) { return a.started_at < b.started_at; });
  return runs;
}

} // namespace

int main(int argc, char** argv) {
  apod::report::test::SyntheticShape shape;
  shape.a100_every = 10;
  std::string out;
  std::vector<std::string> documents;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc)
      out = argv[++i];
    else if (arg == "--from" && i + 1 < argc)
      documents.push_back(argv[++i]);
    else if (arg == "--fleet")
      shape.machines = 3;
    else if (arg == "--samples" && i + 1 < argc)
      shape.min_samples = std::atoi(argv[++i]), shape.extra_samples = 1;
    else
      shape.runs = std::atoi(arg.c_str());
  }
  if (shape.runs < 1 || shape.min_samples < 1) {
    std::cerr
        << "usage: bench_report [RUNS] [--fleet] [--samples N] [--from DOC]... [--out FILE]\n";
    return 2;
  }
  const auto made = clock_type::now();
  std::vector<apod::RunRecord> runs;
  nlohmann::ordered_json catalog;
  std::string generator = "bench_report";
  if (documents.empty()) {
    const auto results = apod::report::test::synthetic_history(shape);
    catalog = apod::report::test::synthetic_matrix_catalog();
    generator = results["generator"].get<std::string>();
    // `apod report` renders the runs as the store reads them (Store::read_runs): the document
    // is read into runs once, outside the timing, as the store would.
    runs = apod::runs_from_document(results);
  } else {
    runs = real_runs(documents, shape.runs);
    catalog = apod::catalog_json();
  }
  std::size_t measurements = 0;
  for (const auto& run : runs)
    for (const auto& experiment : run.experiments)
      measurements += experiment.measurements.size();
  std::cout << fmt::format(
      "{} runs{}, {} measurements (made and read in {:.2f} s, not timed)\n", runs.size(),
      documents.empty() ? (shape.machines ? ", synthetic, three machines" : ", synthetic")
                        : ", real (repeated from the documents)",
      measurements, seconds_since(made));
  apod::report::RenderOptions options;
  options.baseline_run = runs.front().id; // so the verdict and its marks are drawn too
  options.packed = true;                  // the page `apod report` writes (report/pack.hpp)
  const auto references = apod::report::reference_figures();
  std::string html;
  for (int repetition = 1; repetition <= 3; ++repetition) {
    const auto start = clock_type::now();
    html = apod::report::render_html(runs, catalog, references, options, generator);
    std::cout << fmt::format("render {}: {:.3f} s\n", repetition, seconds_since(start));
  }
  std::cout << fmt::format("page: {} bytes ({:.2f} MiB)\n", html.size(), html.size() / 1048576.0);
  if (!out.empty())
    std::ofstream(out, std::ios::binary) << html;
  return 0;
}
