#include "analysis/verdict_word.hpp"

#include "analysis/compare.hpp"

namespace apod {

Decision decision_of(const PointVerdict& p) {
  if (p.regression)
    return Decision::regression;
  if (p.unconfirmed())
    return Decision::unconfirmed;
  if (p.inconclusive)
    return Decision::inconclusive;
  if (p.change == Change::faster)
    return Decision::faster;
  // A gated slowdown is a regression or unconfirmed: what is slower here is a derived figure.
  return p.change == Change::slower ? Decision::slower : Decision::same;
}

Wording wording(Decision d) {
  switch (d) {
  case Decision::regression:
    return {"regression", "slower beyond the threshold and the run-to-run noise (heavy-tailed, or "
                          "confirmed by re-measuring) on a gated figure the candidate measured "
                          "cleanly, or twice as slow; fails the compare"};
  case Decision::unconfirmed:
    return {"unconfirmed", "slower beyond the threshold, but only a re-measurement can tell a "
                           "regression from a transient (the candidate measured it as noisy, or "
                           "only the light-tailed test finds it); not gated: `apod confirm` "
                           "re-measures it"};
  case Decision::inconclusive:
    return {"inconclusive", "no significant change, but its noise could hide a change of its "
                            "threshold: not the same (what it needs is said with it)"};
  case Decision::faster:
    return {"faster", "faster beyond the threshold and the run-to-run noise"};
  case Decision::slower:
    return {"slower", "slower beyond the threshold and the noise on a derived figure; not gated"};
  case Decision::same:
    break;
  }
  return {"same", "no change beyond the threshold and the run-to-run noise"};
}

} // namespace apod
