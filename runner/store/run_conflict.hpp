// Two copies of one run id, one stored and one arriving (import, merge): the same, a later or an
// earlier state of one run, or a conflict that a person must resolve (--on-conflict). Decided
// here once, so that which copy survives never depends on the order of the arguments.
#pragma once

#include "core/run_record.hpp"

#include <string>

namespace apod {

struct RunConflict {
  enum Kind {
    same,      ///< field for field the same run (its wire form, to_json, is equal)
    later,     ///< the arriving copy is a later state of the stored one: it replaces it
    earlier,   ///< the arriving copy is an earlier state of the stored one: it is not imported
    different, ///< anything else: refused unless --on-conflict chooses
  } kind;
  std::string difference; ///< which part differs, e.g. "its label differs"; empty when same
};

/// How `arriving` relates to `stored` (both with the same id). A run is immutable once it is
/// complete, partial or failed, and while it is running (its writer may add to it): only an
/// interrupted copy has a later state. One copy is a later state of an interrupted one when it
/// has the same start time, label and device facts, was written by the same process or by one
/// that resumed it (environment.resumed[].previous_writer), holds every experiment the
/// interrupted one holds unchanged (every sample and flag) and its telemetry as its first
/// readings, and has gone further: it finished, or holds more experiments or more resumptions.
RunConflict classify(const RunRecord& stored, const RunRecord& arriving);

/// The sentence an import or merge prints for a run it replaced or kept (not for `same`).
/// `replaced`: the arriving copy now stands; `there` names the stored copy ("the copy already
/// in 'h.db'"); `source` the arriving copy's file.
std::string conflict_note(const RunRecord& arriving, const RunRecord& stored,
                          const RunConflict& conflict, bool replaced, const std::string& source,
                          const std::string& there);

} // namespace apod
