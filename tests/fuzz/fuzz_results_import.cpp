// libFuzzer target: the importer as `apod import` runs it. The text is parsed and validated
// (parse_results); each run of an accepted document is imported into a new in-memory store,
// which is then exported. Refusal with InputError is the right answer to bad input; any other
// exception (uncaught: abort), a crash or a sanitizer report is a bug, and so is a document that
// validation accepts and the import then rejects. The one refusal that depends on the clock and
// not on the document, a date beyond this machine's clock (run_dates.hpp), is not validation's:
// such a run must be refused with InputError, and one that is imported anyway is a bug too.
#include "core/errors.hpp"
#include "core/results_json.hpp"
#include "core/run_dates.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  apod::json doc;
  try {
    doc = apod::parse_results(std::string(reinterpret_cast<const char*>(data), size), "fuzz input");
  } catch (const apod::InputError&) {
    return 0;
  }
  apod::Store store(":memory:", apod::Store::Mode::read_write_create);
  for (const apod::RunRecord& run : apod::runs_from_document(doc)) {
    if (!apod::date_from_the_future(run, apod::utc_now())) {
      store.import_run(run);
      continue;
    }
    try {
      store.import_run(run);
    } catch (const apod::InputError&) {
      continue; // refused, as it must be
    }
    if (apod::date_from_the_future(run, apod::utc_now()))
      std::abort(); // a run from the future was imported
  }
  // What the store holds must read back and import again: a merge of it never fails.
  apod::Store again(":memory:", apod::Store::Mode::read_write_create);
  for (const apod::RunRecord& run : store.read_runs())
    again.import_run(run);
  store.export_results().dump();
  return 0;
}
