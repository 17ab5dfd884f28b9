#include "store/run_conflict.hpp"

#include <fmt/format.h>

#include <algorithm>
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

bool supersedes(const RunRecord& later, const RunRecord& earlier) {
  if (!unfinished(earlier) || later.device.uuid != earlier.device.uuid ||
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
