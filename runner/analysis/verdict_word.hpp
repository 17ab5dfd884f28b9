// The word for what compare decided of a point, and what that word means, in one place. Compare's
// text, markdown and json and the report's first screen, history and markdown all write these, so
// that no page calls "slower" a point that compare calls "unconfirmed".
#pragma once

namespace apod {

struct PointVerdict;

/// What compare decided of one point or of an experiment taken whole; compare lists them in
/// this order. A point whose change stays within its noise is the same only where that noise
/// would have shown a change of its threshold; otherwise it is inconclusive (a point compare
/// cannot pair is left out, with the reason).
enum class Decision { regression, unconfirmed, inconclusive, faster, slower, same };

struct Wording {
  const char* word;    ///< "unconfirmed"
  const char* meaning; ///< what the word says of the point, in one line
};

/// The decision on `p`: regression, unconfirmed (a gated slowdown that needs re-measuring),
/// inconclusive (could not have seen its threshold), faster, slower (a derived figure, never
/// gated), or the same.
Decision decision_of(const PointVerdict& p);

/// The word every writer uses for `d`, and its one-line meaning.
Wording wording(Decision d);

} // namespace apod
