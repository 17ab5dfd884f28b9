// peak_copy's peaks, chosen from its measured points (host code, tested without a GPU): one
// achievable peak per access type, and the run's achievable peak, the best of them.
#pragma once

#include "core/measurement.hpp"

#include <vector>

namespace apod {

/// One keys::access_peak point per access type among the effective_bandwidth points of
/// `points` (params[keys::access_type]), in the order the types first appear: the samples and
/// extra of that type's verified point with the highest median, extra.winner naming its params.
/// A type none of whose points is ok gets a failed point saying so.
std::vector<Measurement> access_peaks(const std::vector<Measurement>& points);

/// The keys::achievable_peak point (params {"method": "best"}): the access peak with the highest
/// median, its extra[keys::access_type] naming the type; failed when no type has a verified
/// point.
Measurement achievable_peak(const std::vector<Measurement>& peaks);

} // namespace apod
