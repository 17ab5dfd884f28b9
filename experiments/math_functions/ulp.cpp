// The ulp distance of ulp.hpp: floats mapped onto a line of integers on which neighbours differ
// by one (sign and magnitude bits to two's-complement order), the distance read off it.
#include "ulp.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace apod::mathfn {

int64_t ordered_position(float x) {
  uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  const int64_t magnitude = bits & 0x7FFFFFFFu; // positive floats are ordered by their bits
  return (bits & 0x80000000u) ? -magnitude : magnitude;
}

uint64_t ulp_distance(float got, double reference) {
  const bool got_nan = std::isnan(got), reference_nan = std::isnan(reference);
  if (got_nan || reference_nan)
    return got_nan && reference_nan ? 0 : nan_mismatch;
  // The conversion rounds to nearest even, to a subnormal or to infinity where it must.
  const float rounded = static_cast<float>(reference);
  return uint64_t(std::llabs(ordered_position(got) - ordered_position(rounded)));
}

} // namespace apod::mathfn
