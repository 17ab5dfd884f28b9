// Times the report on a synthetic history: `bench_report [RUNS] [--out FILE]` renders
// synthetic_history(RUNS) (default 100 runs, every 10th on a second device model) three times
// and prints the time of each render and the page's size. A benchmark to rerun, not a test: the
// numbers depend on the machine (docs/performance.md, "Report rendering", records them).
// `meson test -C build --benchmark report_render` runs it.
#include "report.hpp"
#include "synthetic_history.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  int runs = 100;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc)
      out = argv[++i];
    else
      runs = std::atoi(arg.c_str());
  }
  if (runs < 1) {
    std::cerr << "usage: bench_report [RUNS] [--out FILE]\n";
    return 2;
  }
  const auto made = clock::now();
  const auto results = apod::report::test::synthetic_history(runs, 10);
  const auto catalog = apod::report::test::synthetic_matrix_catalog();
  const auto references = apod::report::reference_figures();
  std::size_t measurements = 0;
  for (const auto& run : results["runs"])
    measurements += run["measurements"].size();
  const double document_mib = results.dump().size() / 1048576.0;
  std::cout << fmt::format("synthetic history: {} runs, {} measurements, {:.1f} MiB of JSON "
                           "(made in {:.2f} s)\n",
                           runs, measurements, document_mib,
                           std::chrono::duration<double>(clock::now() - made).count());
  std::string html;
  for (int repetition = 1; repetition <= 3; ++repetition) {
    const auto start = clock::now();
    html = apod::report::render_html(results, catalog, references);
    const double seconds = std::chrono::duration<double>(clock::now() - start).count();
    std::cout << fmt::format("render {}: {:.3f} s\n", repetition, seconds);
  }
  std::cout << fmt::format("page: {} bytes ({:.2f} MiB)\n", html.size(), html.size() / 1048576.0);
  if (!out.empty())
    std::ofstream(out, std::ios::binary) << html;
  return 0;
}
