#include "store/run_conflict.hpp"

#include "core/point_key.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace apod {

namespace {

bool unfinished(const RunRecord& r) {
  return r.status == "running" || r.status == "interrupted";
}

// A writer as stored (null for none): two records name the same process when these are equal.
json stored_writer(const std::optional<Writer>& writer) {
  return writer ? to_json(*writer) : json();
}

std::size_t resumptions(const RunRecord& r) {
  return r.environment.resumed.size();
}

// `later` was written by the writer of `earlier`, or by a process that took it over from it.
bool same_lineage(const RunRecord& later, const RunRecord& earlier) {
  const json writer = stored_writer(earlier.environment.writer);
  if (stored_writer(later.environment.writer) == writer)
    return true;
  const auto& resumed = later.environment.resumed;
  return std::any_of(resumed.begin(), resumed.end(), [&](const Resumption& r) {
    return stored_writer(r.previous_writer) == writer;
  });
}

// An experiment with its measurements, as a document holds it.
json whole(const ExperimentRecord& e) {
  json j = to_json(e);
  j["measurements"] = json::array();
  for (const Measurement& m : e.measurements)
    j["measurements"].push_back(to_json(m));
  return j;
}

// Everything `earlier` stored is in `later` unchanged: each of its experiments, whole, and its
// telemetry as the first readings of `later`'s (a resumed run appends to both, never rewrites).
bool extends(const RunRecord& later, const RunRecord& earlier) {
  for (const ExperimentRecord& e : earlier.experiments) {
    const auto it = std::find_if(later.experiments.begin(), later.experiments.end(),
                                 [&](const ExperimentRecord& l) { return l.name == e.name; });
    if (it == later.experiments.end() || whole(*it) != whole(e))
      return false;
  }
  if (later.telemetry.size() < earlier.telemetry.size())
    return false;
  for (size_t i = 0; i < earlier.telemetry.size(); ++i)
    if (to_json(later.telemetry[i]) != to_json(earlier.telemetry[i]))
      return false;
  return later.label == earlier.label && to_json(later.device) == to_json(earlier.device);
}

// Only an interrupted copy has a later state: a complete, partial or failed run is immutable,
// and a running one still has a writer that may add to it.
bool supersedes(const RunRecord& later, const RunRecord& earlier) {
  if (earlier.status != "interrupted" || later.started_at != earlier.started_at ||
      !same_lineage(later, earlier) || !extends(later, earlier))
    return false;
  return !unfinished(later) || later.experiments.size() > earlier.experiments.size() ||
         resumptions(later) > resumptions(earlier);
}

// The first part of `b` that differs from `a`, as words: a run field, or an experiment or point
// by name, so that the person who must choose with --on-conflict knows what they choose between.
std::string first_difference(const RunRecord& a, const RunRecord& b) {
  std::map<std::string, const ExperimentRecord*> theirs;
  for (const auto& e : b.experiments)
    theirs[e.name] = &e;
  for (const auto& e : a.experiments) {
    const auto it = theirs.find(e.name);
    if (it == theirs.end())
      return fmt::format("experiment {} is only in the stored copy", json(e.name).dump());
    const ExperimentRecord& f = *it->second;
    if (to_json(e) != to_json(f))
      return fmt::format("experiment {} differs", json(e.name).dump());
    if (e.measurements.size() != f.measurements.size())
      return fmt::format("experiment {} holds {} points against {}", json(e.name).dump(),
                         e.measurements.size(), f.measurements.size());
    for (size_t i = 0; i < e.measurements.size(); ++i) {
      const json x = to_json(e.measurements[i]), y = to_json(f.measurements[i]);
      if (x["samples"] != y["samples"]) // the statistics follow from them: say the cause
        return fmt::format("the samples of point {} differ",
                           PointKey::of(e.measurements[i]).text());
      for (const auto& [key, value] : x.items())
        if (!y.contains(key) || y[key] != value)
          return fmt::format("the {} of point {} differ{}", key,
                             PointKey::of(e.measurements[i]).text(), key.back() == 's' ? "" : "s");
    }
  }
  if (a.status != b.status)
    return fmt::format("its status differs ({} vs {})", a.status, b.status);
  if (a.experiments.size() != b.experiments.size())
    return "the arriving copy holds experiments the stored one does not";
  const json x = to_json(a), y = to_json(b);
  for (const auto& [key, value] : x.items())
    if (!y.contains(key) || y[key] != value)
      return fmt::format("its {} differ{}", key, key.back() == 's' ? "" : "s");
  return "its fields differ";
}

std::string state(const RunRecord& r) {
  return fmt::format("{}, {} experiment(s)", r.status, r.experiments.size());
}

} // namespace

RunConflict classify(const RunRecord& stored, const RunRecord& arriving) {
  if (to_json(stored) == to_json(arriving))
    return {RunConflict::same, ""};
  if (supersedes(arriving, stored))
    return {RunConflict::later, first_difference(stored, arriving)};
  if (supersedes(stored, arriving))
    return {RunConflict::earlier, first_difference(stored, arriving)};
  return {RunConflict::different, first_difference(stored, arriving)};
}

std::string conflict_note(const RunRecord& arriving, const RunRecord& stored,
                          const RunConflict& conflict, bool replaced, const std::string& source,
                          const std::string& there) {
  switch (conflict.kind) {
  case RunConflict::later:
    return fmt::format("run {}: replaced {} ({}) by its later state from '{}' ({})", arriving.id,
                       there, state(stored), source, state(arriving));
  case RunConflict::earlier:
    return fmt::format("run {}: kept {} ({}); the copy from '{}' ({}) is an earlier state of it",
                       arriving.id, there, state(stored), source, state(arriving));
  default:
    return replaced ? fmt::format("run {}: replaced {} by the copy from '{}' (--on-conflict "
                                  "replace; {})",
                                  arriving.id, there, source, conflict.difference)
                    : fmt::format("run {}: kept {}; the different copy from '{}' was not "
                                  "imported (--on-conflict keep; {})",
                                  arriving.id, there, source, conflict.difference);
  }
}

} // namespace apod
