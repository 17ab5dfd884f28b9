#include "aggregate.hpp"

#include "core/measurement.hpp"

namespace apod::report {

std::optional<double> median_of(const std::vector<double>& values) {
  if (values.empty())
    return std::nullopt;
  return apod::summarize(values).median;
}

} // namespace apod::report
