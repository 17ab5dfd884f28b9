// math_functions' declaration (declaration.cpp registers it): its params and metrics as named
// constants, which math_functions.cu records under.
#pragma once

#include "core/catalog.hpp"

namespace apod::mathfn {

inline constexpr const char* experiment = "math_functions";

inline const Param pair{.key = "pair", .title = "the guide's advice (slow vs recommended form)"};
inline const Param form{.key = "form", .title = "code form"};
inline const Param role{.key = "role", .title = "role in the pair"};
inline const Param family{.key = "family", .title = "kind of form"};

inline const Metric results_rate{.name = "results_per_second",
                                 .unit = "results/s",
                                 .direction = Direction::higher,
                                 .metric_class = MetricClass::on_chip,
                                 .title = "results per second"};

/// A form's rate over its slow form's, sample by sample: a ratio of two on-chip rates.
inline const Metric speedup{.name = "speedup_vs_slow_form",
                            .unit = "1",
                            .direction = Direction::higher,
                            .metric_class = MetricClass::derived,
                            .title = "speed-up over the slow form"};

/// A function's rate on small arguments (|x| <= pi) over its rate on arguments that need
/// reduction, sample by sample: the guide's "about an order of magnitude slower" (11.1.6).
inline const Metric reduction_slowdown{.name = "slowdown_from_argument_reduction",
                                       .unit = "1",
                                       .direction = Direction::lower,
                                       .metric_class = MetricClass::derived,
                                       .title = "slowdown when the argument needs reduction"};

// The largest error of a form in ulp is fixed for a given toolkit and device: it does not vary
// from run to run as a rate does, so compare sees any change as beyond noise. It is declared
// on_chip (a property of the device's math library and special-function units, not a derived
// model) so that compare gates it: a toolkit or driver that changes an intrinsic's or
// -use_fast_math's accuracy is what nightly CI must catch (issue 21). An exactly rounded form
// measures 0 ulp, a value, not a failed timing (zero_is_a_value). A result beyond the
// Programming Guide's stated bound fails its point in the run itself as well.
inline const Metric max_ulp{.name = "max_ulp_error",
                            .unit = "ulp",
                            .direction = Direction::lower,
                            .metric_class = MetricClass::on_chip,
                            .title = "maximum error",
                            .zero_is_a_value = true};

} // namespace apod::mathfn
