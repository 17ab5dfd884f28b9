// libFuzzer target: the importer as `apod import` runs it. The text is parsed and validated
// (parse_results); each run of an accepted document is imported into a new in-memory store,
// which is then exported. Refusal with InputError is the right answer to bad input; any other
// exception (uncaught: abort), a crash or a sanitizer report is a bug, and so is a document that
// validation accepts and the import then rejects.
#include "core/errors.hpp"
#include "core/results_json.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  apod::json doc;
  try {
    doc = apod::parse_results(std::string(reinterpret_cast<const char*>(data), size), "fuzz input");
  } catch (const apod::InputError&) {
    return 0;
  }
  apod::Store store(":memory:", apod::Store::Mode::read_write_create);
  for (const apod::RunRecord& run : apod::runs_from_document(doc))
    store.import_run(run);
  // What the store holds must read back and import again: a merge of it never fails.
  apod::Store again(":memory:", apod::Store::Mode::read_write_create);
  for (const apod::RunRecord& run : store.read_runs())
    again.import_run(run);
  store.export_results().dump();
  return 0;
}
