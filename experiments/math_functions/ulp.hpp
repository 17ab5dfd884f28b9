// Error of a single-precision result in ulp, as the CUDA C++ Programming Guide states its bounds
// (Mathematical Functions appendix, 17.1 Standard Functions, Table 17): "the absolute value of
// the difference in ulps between the result returned by the CUDA library function and a
// correctly rounded single-precision result obtained according to the round-to-nearest
// ties-to-even rounding mode". The correctly rounded result is the double-precision reference
// rounded to float; the difference is the number of floats between the two, so a correctly
// rounded result is 0 ulp and the next float 1 ulp.
#pragma once

#include <cstdint>
#include <limits>

namespace apod::mathfn {

/// The count of floats from `got` to `reference` rounded to float (round to nearest even),
/// across zero and the subnormals (+0 and -0 are the same point; the largest finite float and
/// infinity are one apart). NaN against NaN is 0; NaN against a number (or a number against
/// NaN) is nan_mismatch.
uint64_t ulp_distance(float got, double reference);
inline constexpr uint64_t nan_mismatch = std::numeric_limits<uint64_t>::max();

/// The float's position on the integer line where consecutive floats are consecutive integers
/// (-0 and +0 both 0).
int64_t ordered_position(float x);

} // namespace apod::mathfn
