#include "core/experiment.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

namespace apod {

namespace {

// Run functions by experiment name, as the .cu files register them (function-local: safe from
// init-order problems).
std::map<std::string, std::function<void(ExperimentContext&)>>& runs() {
  static std::map<std::string, std::function<void(ExperimentContext&)>> all;
  return all;
}

} // namespace

bool register_run(const std::string& name, std::function<void(ExperimentContext&)> run) {
  if (!runs().emplace(name, std::move(run)).second)
    throw std::logic_error("experiment registered twice: " + name);
  return true;
}

const std::vector<ExperimentInfo>& experiments() {
  // Joined once, after static initialisation has registered every declaration and run.
  static std::once_flag once;
  static std::vector<ExperimentInfo> joined;
  std::call_once(once, [] {
    for (const auto& [name, run] : runs())
      if (!find_declaration(name))
        throw std::logic_error("experiment " + name + " has a run function but no declaration");
    for (const Declaration& d : declarations()) {
      const auto run = runs().find(d.name);
      if (run == runs().end())
        continue; // a host-only binary: declared, nothing to run
      ExperimentInfo info;
      static_cast<Declaration&>(info) = d;
      info.run = run->second;
      joined.push_back(std::move(info));
    }
  });
  return joined;
}

const ExperimentInfo* find_experiment(const std::string& name) {
  for (const auto& e : experiments())
    if (e.name == name)
      return &e;
  return nullptr;
}

void ExperimentContext::record(Measurement m) {
  m.experiment = experiment;
  if (declaration) {
    if (const std::string mismatch = declaration_mismatch(*declaration, m); !mismatch.empty()) {
      if (m.error.empty())
        m.error = "the record does not match the experiment's declaration: " + mismatch;
    }
    m.metric_class = declared_class(*declaration, m);
  }
  recorder.record(std::move(m));
}

std::optional<double> ExperimentContext::earlier_median(const std::string& name,
                                                        const std::string& metric,
                                                        const json& params) const {
  if (!earlier)
    return std::nullopt;
  for (const Measurement& m : *earlier) {
    if ((!name.empty() && m.experiment != name) || m.metric != metric || !m.ok())
      continue;
    bool matches = true;
    for (const auto& [key, value] : params.items())
      matches = matches && m.params.contains(key) && m.params[key] == value;
    if (matches)
      return summarize(m.used_samples()).median;
  }
  return std::nullopt;
}

std::optional<double> ExperimentContext::achievable_peak_gbs(const std::string& access_type) const {
  if (auto peak = earlier_median("", keys::access_peak, {{keys::access_type, access_type}}))
    return peak;
  return earlier_median("", keys::achievable_peak);
}

} // namespace apod
