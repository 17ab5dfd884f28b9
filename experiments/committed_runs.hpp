// The committed runner output each experiment's model is tested on: the full-matrix `--repeat`
// batches of both GPU models in data/runs/ (an experiment's test_*.cpp reads them through this
// header; tests/meson.build passes APOD_RUNS_DIR). A model test takes every run of the batch,
// never one picked run, and states its bound before it is checked: when a model misses, the
// test and docs/method.md say by how much rather than the model being tuned to the batch.
//
// Developing a model before its batch is committed: APOD_MODEL_RUNS_H100 / APOD_MODEL_RUNS_H200
// name another results file (the device's output) for that GPU model.
#pragma once

#include "core/measurement.hpp"
#include "core/results_json.hpp"
#include "core/run_record.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#ifndef APOD_RUNS_DIR
#error "APOD_RUNS_DIR names data/runs (tests/meson.build passes it)"
#endif

namespace apod::committed {

/// The GPU models every model is tested on, and the batch of each (data/runs/).
struct Batch {
  const char* gpu;    ///< "H100", "H200": the test's name for it
  const char* file;   ///< under data/runs/
  const char* env;    ///< the variable naming another file while a model is developed
  const char* device; ///< the device name the runs must carry
};
inline constexpr Batch batches[] = {
    {"H100", "nvidia-h100-20261126-memory.json.gz", "APOD_MODEL_RUNS_H100",
     "NVIDIA H100 80GB HBM3"},
    {"H200", "nvidia-h200-20261126-memory.json.gz", "APOD_MODEL_RUNS_H200", "NVIDIA H200"},
};

inline std::string path_of(const Batch& b) {
  if (const char* other = std::getenv(b.env); other && *other)
    return other;
  return std::string(APOD_RUNS_DIR) + "/" + b.file;
}

/// Every run of the batch (throws when the file is missing or unreadable: a model test never
/// passes on no data).
inline std::vector<RunRecord> runs(const Batch& b) {
  return runs_from_document(read_results_file(path_of(b)));
}

/// The points of `experiment` (and `metric`, if given) in `run` that carry a figure.
inline std::vector<const Measurement*> points(const RunRecord& run, const std::string& experiment,
                                              const std::string& metric = "") {
  std::vector<const Measurement*> out;
  for (const ExperimentRecord& e : run.experiments)
    if (e.name == experiment)
      for (const Measurement& m : e.measurements)
        if ((metric.empty() || m.metric == metric) && m.ok())
          out.push_back(&m);
  return out;
}

/// The median of the point's used samples.
inline double median(const Measurement& m) {
  return summarize(m.used_samples()).median;
}

} // namespace apod::committed
