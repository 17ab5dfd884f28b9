// Histories made of real runs for the verdict and change-point measurements: the committed runs of
// data/runs/, grouped by machine, and copies of them with a planted change scaled into their
// samples (never synthetic data).
#pragma once

#include "analysis/noise.hpp"
#include "core/results_json.hpp"
#include "core/run_record.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace apod::test {

/// Every run of the documents, in start order.
inline std::vector<RunRecord> load_runs(const std::vector<std::string>& paths) {
  std::vector<RunRecord> runs;
  for (const auto& path : paths)
    for (RunRecord& r : runs_from_document(read_results_file(path)))
      runs.push_back(std::move(r));
  std::stable_sort(runs.begin(), runs.end(), [](const RunRecord& a, const RunRecord& b) {
    return a.started_at < b.started_at;
  });
  return runs;
}

/// The runs of each machine, in start order.
inline std::map<std::string, std::vector<const RunRecord*>>
by_machine(const std::vector<RunRecord>& runs) {
  std::map<std::string, std::vector<const RunRecord*>> out;
  for (const RunRecord& r : runs)
    out[machine_of(r)].push_back(&r);
  return out;
}

using PointFilter = std::function<bool(const Measurement&)>;

/// A copy of `run` under a new id in which every point `filter` picks is `slowdown` times slower
/// (GB/s divided, times multiplied), every sample scaled alike.
inline RunRecord planted(const RunRecord& run, const PointFilter& filter, double slowdown,
                         const std::string& id) {
  RunRecord copy = run;
  copy.id = id;
  for (ExperimentRecord& e : copy.experiments)
    for (Measurement& m : e.measurements)
      if (filter(m))
        for (double& s : m.samples)
          s = m.direction == Direction::higher ? s / slowdown : s * slowdown;
  return copy;
}

} // namespace apod::test
