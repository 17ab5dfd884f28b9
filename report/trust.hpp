// Trust signals (issue 25): what makes a figure or a verdict worth less than it looks, said beside
// the figure it touches rather than in a provenance table three screens down. Each tag is a word
// a reader scans for and a sentence that says why; a tag is made only when its cause is present.
#pragma once

#include "model.hpp"

#include "analysis/compare.hpp"

#include <string>
#include <vector>

namespace apod::report {

struct TrustTag {
  std::string word; ///< "noisy", "low clocks", "dirty build"
  std::string why;  ///< one sentence, for a tooltip or a line
};

/// What weakens every figure of `run`: apod built from uncommitted changes (environment
/// apod_dirty), and low clocks (points with samples the clock monitor left out for a low SM clock
/// or a throttle reason, or NVML readings with a throttle reason while an experiment ran).
std::vector<TrustTag> run_trust(const RunView& run);

/// What weakens one figure: its point missed its precision target (Measurement::noisy), compare
/// could not confirm its change (unconfirmed) or its noise hid a change of twice its threshold
/// (inconclusive on the machine's history), or more than one sample in ten was taken under low
/// clocks or throttling and left out. `pair` may be null (no comparison).
std::vector<TrustTag> point_trust(const PointView& point, const PointVerdict* pair);

/// "noisy, low clocks": the words of `tags`, for a markdown cell.
std::string tag_words(const std::vector<TrustTag>& tags);

} // namespace apod::report
