// Renders a results document to an HTML file with the report library alone, so the report's
// tests (tests/browser) need neither a GPU nor the rest of apod.
// Usage: render_fixture RESULTS.json CATALOG.json REFERENCES.json OUT.html [PRICES.json]
#include "report.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

namespace {
nlohmann::ordered_json read_json(const char* path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(std::string("cannot read ") + path);
  return nlohmann::ordered_json::parse(in);
}
} // namespace

int main(int argc, char** argv) {
  if (argc < 5 || argc > 7) {
    std::cerr << "usage: render_fixture RESULTS.json CATALOG.json REFERENCES.json OUT.html "
                 "[PRICES.json [BASELINE_RUN_ID]]\n";
    return 2;
  }
  try {
    apod::report::RenderOptions options;
    options.packed = true; // the page `apod report` writes (report/pack.hpp)
    if (argc >= 6)
      options.prices = apod::report::load_prices(argv[5]);
    if (argc == 7)
      options.baseline_run = argv[6]; // as `apod baseline set` pins it
    const std::string html = apod::report::render_html(read_json(argv[1]), read_json(argv[2]),
                                                       read_json(argv[3]), options);
    std::ofstream out(argv[4], std::ios::binary);
    out << html;
    if (!out.flush())
      throw std::runtime_error(std::string("cannot write ") + argv[4]);
  } catch (const std::exception& error) {
    std::cerr << "render_fixture: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
