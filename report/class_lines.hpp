// Class lines: per workload class (report/workload.hpp), the geometric mean over the class's
// matched headline figures of one model's figure over the other's, with the same ratio per $ and
// per W measured during the work: the buyer's "memory-bound: NVIDIA H200 1.42x, per $ 1.11x".
#pragma once

#include "matched.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::report {

/// One workload class over the compared models: the geometric mean, over the class's headline
/// figures that every model measured, of each model's figure relative to the first model's.
struct ClassLine {
  Workload workload = Workload::other;
  std::string label;
  std::size_t figures = 0;
  std::string best, runner_up;   ///< the best model by that mean, and the next
  double ratio = 1;              ///< best over runner-up, >= 1
  std::optional<double> per_usd; ///< the same ratio per dollar, where both have a price
  std::string per_usd_missing;   ///< without it: why
  std::optional<double> per_w;   ///< per watt measured during the work, where both have one
  std::size_t per_w_figures = 0; ///< the figures per_w is over (may be fewer than `figures`)
  std::string per_w_missing;     ///< without it: why

  /// "memory-bound: NVIDIA H200 1.42× over NVIDIA H100 80GB HBM3, per $ 1.11×, per W n/a (...);
  /// geometric mean of 9 figures".
  std::string text() const;
  /// text()'s parts after the model and ratio: "per $ 1.11×, per W n/a (...)".
  std::string efficiency_text() const;
};

/// The class lines of `headline` (matched_figures(..., true)), in Workload order.
std::vector<ClassLine> class_lines(const std::vector<MatchedFigure>& headline,
                                   const std::vector<std::string>& models);

/// A workload class some model measured that no class line compares.
struct ClassNotCompared {
  std::string label;               ///< "GPU-GPU link"
  std::vector<std::string> models; ///< the models with a verified headline point of it
  /// "n/a (measured on NVIDIA H200 only)"; `name` writes each model name (markdown escapes it).
  std::string why(std::string (*name)(const std::string&) = nullptr) const;
};

/// The classes of `page` that `lines` leave out, in Workload order.
std::vector<ClassNotCompared> classes_not_compared(const PageModel& page,
                                                   const std::vector<ClassLine>& lines);

} // namespace apod::report
