#include "store/run_conflict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace apod {

namespace {

bool unfinished(const RunRecord& r) {
  return r.status == "running" || r.status == "interrupted";
}

json field(const json& object, const char* key) {
  return object.is_object() && object.contains(key) ? object[key] : json();
}

std::size_t resumptions(const RunRecord& r) {
  const json resumed = field(r.environment, "resumed");
  return resumed.is_array() ? resumed.size() : 0;
}

// `later` was written by the writer of `earlier`, or by a process that took it over from it.
bool same_lineage(const RunRecord& later, const RunRecord& earlier) {
  const json writer = field(earlier.environment, "writer");
  if (field(later.environment, "writer") == writer)
    return true;
  const json resumed = field(later.environment, "resumed");
  return resumed.is_array() && std::any_of(resumed.begin(), resumed.end(), [&](const json& r) {
           return field(r, "previous_writer") == writer;
         });
}

bool supersedes(const RunRecord& later, const RunRecord& earlier) {
  if (!unfinished(earlier) || later.device_uuid() != earlier.device_uuid() ||
      later.started_at != earlier.started_at || !same_lineage(later, earlier))
    return false;
  std::set<std::string> names;
  for (const auto& e : later.experiments)
    names.insert(e.name);
  for (const auto& e : earlier.experiments)
    if (!names.count(e.name))
      return false;
  return !unfinished(later) || later.experiments.size() > earlier.experiments.size() ||
         resumptions(later) > resumptions(earlier);
}

std::string first_difference(const json& a, const json& b) {
  for (const auto& [key, value] : a.items())
    if (!b.contains(key) || b[key] != value)
      return fmt::format("its {} differ{}", key, key.back() == 's' ? "" : "s");
  return "its fields differ";
}

std::string state(const RunRecord& r) {
  return fmt::format("{}, {} experiment(s)", r.status, r.experiments.size());
}

} // namespace

RunConflict classify(const RunRecord& stored, const RunRecord& arriving) {
  const json a = to_json(stored), b = to_json(arriving);
  if (a == b)
    return {RunConflict::same, ""};
  if (supersedes(arriving, stored))
    return {RunConflict::later, first_difference(a, b)};
  if (supersedes(stored, arriving))
    return {RunConflict::earlier, first_difference(a, b)};
  return {RunConflict::different, first_difference(a, b)};
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
