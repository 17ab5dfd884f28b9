// Times the report on a synthetic history: `bench_report [RUNS] [--fleet] [--samples N] [--out
// FILE]` renders synthetic_history (default 100 runs, every 10th on a second device model; with
// --fleet three machines, one run each a night on a real calendar: 1000 runs are a year) three
// times from the runs as the store reads them, with the first run pinned as the baseline, and
// prints the time of each render and the page's size. --samples N gives every point N
// samples instead of 10-59 (the page does not depend on them; memory does). A benchmark to rerun,
// not a test: the numbers depend on the machine (docs/performance.md, "Report rendering",
// records them). `meson test -C build --benchmark report_render` runs it.
#include "report.hpp"
#include "synthetic_history.hpp"

#include "core/results_json.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  apod::report::test::SyntheticShape shape;
  shape.a100_every = 10;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc)
      out = argv[++i];
    else if (arg == "--fleet")
      shape.machines = 3;
    else if (arg == "--samples" && i + 1 < argc)
      shape.min_samples = std::atoi(argv[++i]), shape.extra_samples = 1;
    else
      shape.runs = std::atoi(arg.c_str());
  }
  if (shape.runs < 1 || shape.min_samples < 1) {
    std::cerr << "usage: bench_report [RUNS] [--fleet] [--samples N] [--out FILE]\n";
    return 2;
  }
  const auto made = clock::now();
  const auto results = apod::report::test::synthetic_history(shape);
  const auto catalog = apod::report::test::synthetic_matrix_catalog();
  const auto references = apod::report::reference_figures();
  std::size_t measurements = 0;
  for (const auto& run : results["runs"])
    measurements += run["measurements"].size();
  std::cout << fmt::format("synthetic history: {} runs{}, {} measurements (made in {:.2f} s)\n",
                           shape.runs, shape.machines ? " on three machines" : "", measurements,
                           std::chrono::duration<double>(clock::now() - made).count());
  apod::report::RenderOptions options;
  options.baseline_run = results["runs"][0]["id"]; // so the verdict and its marks are drawn too
  // `apod report` renders the runs as the store reads them (Store::read_runs): the document is
  // read into runs once, outside the timing, as the store would.
  const auto read = clock::now();
  const std::vector<apod::RunRecord> runs = apod::runs_from_document(results);
  std::cout << fmt::format("read into runs in {:.2f} s (not timed below)\n",
                           std::chrono::duration<double>(clock::now() - read).count());
  std::string html;
  for (int repetition = 1; repetition <= 3; ++repetition) {
    const auto start = clock::now();
    html = apod::report::render_html(runs, catalog, references, options,
                                     results["generator"].get<std::string>());
    const double seconds = std::chrono::duration<double>(clock::now() - start).count();
    std::cout << fmt::format("render {}: {:.3f} s\n", repetition, seconds);
  }
  std::cout << fmt::format("page: {} bytes ({:.2f} MiB)\n", html.size(), html.size() / 1048576.0);
  if (!out.empty())
    std::ofstream(out, std::ios::binary) << html;
  return 0;
}
