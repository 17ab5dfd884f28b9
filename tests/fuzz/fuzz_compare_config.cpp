// libFuzzer target: `apod compare --config FILE`, the one configuration file apod reads. JSON
// that does not parse, and a config that parse_compare_config refuses with InputError, are the
// right answers to bad input; any other exception, a crash or a sanitizer report is a bug.
#include "analysis/compare.hpp"
#include "core/errors.hpp"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  apod::json doc;
  try {
    doc = apod::json::parse(data, data + size);
  } catch (const apod::json::exception&) {
    return 0;
  }
  try {
    const apod::CompareOptions config = apod::parse_compare_config(doc);
    for (const auto& [name, threshold] : config.experiment_threshold)
      (void)config.threshold_for(name, apod::MetricClass::device_memory);
  } catch (const apod::InputError&) {
  }
  return 0;
}
