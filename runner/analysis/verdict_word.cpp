#include "analysis/verdict_word.hpp"

#include "analysis/compare.hpp"

namespace apod {

Decision decision_of(const PointVerdict& p) {
  if (p.regression)
    return Decision::regression;
  if (p.unconfirmed())
    return Decision::unconfirmed;
  if (p.change == Change::faster)
    return Decision::faster;
  // A gated slowdown is a regression or unconfirmed: what is slower here is a derived figure.
  return p.change == Change::slower ? Decision::slower : Decision::same;
}

Wording wording(Decision d) {
  switch (d) {
  case Decision::regression:
    return {"regression", "slower beyond the threshold and the run-to-run noise on a gated "
                          "figure the candidate measured cleanly; fails the compare"};
  case Decision::unconfirmed:
    return {"unconfirmed", "slower, but the candidate measured the point as noisy; not gated: "
                           "rerun, or --pool repeats, to confirm"};
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
