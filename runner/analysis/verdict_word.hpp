// The word for what compare decided of a point, and what that word means, in one place. Compare's
// text, markdown and json and the report's first screen, history and markdown all write these, so
// that no page calls "slower" a point that compare calls "unconfirmed".
#pragma once

namespace apod {

struct PointVerdict;

/// What compare decided of one point or of an experiment taken whole; compare lists them in
/// this order. No point is inconclusive: compare tests every pair it can form (a point it
/// cannot pair is left out, with the reason), and one whose change stays within its noise is
/// the same.
enum class Decision { regression, unconfirmed, faster, slower, same };

struct Wording {
  const char* word;    ///< "unconfirmed"
  const char* meaning; ///< what the word says of the point, in one line
};

/// The decision on `p`: regression, unconfirmed (a gated slowdown the candidate measured as
/// noisy), faster, slower (a derived figure, never gated), or the same.
Decision decision_of(const PointVerdict& p);

/// The word every writer uses for `d`, and its one-line meaning.
Wording wording(Decision d);

} // namespace apod
