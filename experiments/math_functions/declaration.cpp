// math_functions' declaration: each piece of the Best Practices Guide's instruction advice
// (11.1) as a measured pair, its speed and its accuracy beside the Programming Guide's bounds.
#include "declaration.hpp"

#include "forms.hpp"

namespace apod::mathfn {

namespace {

json params_of(const Form& f) {
  return {{pair.key, f.pair}, {form.key, f.form}, {role.key, f.role}, {family.key, f.family}};
}

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  for (const Form& f : forms()) {
    PlannedPoint p{params_of(f), {results_rate.name}};
    if (f.role != role_slow)
      p.metrics.push_back(speedup.name);
    if (has_ulp(f))
      p.metrics.push_back(max_ulp.name);
    if (small_argument_form_of(f))
      p.metrics.push_back(reduction_slowdown.name);
    points.push_back(std::move(p));
  }
  return points;
}

Chart rate_chart() {
  Chart c = Chart::sweep_of(results_rate).along(pair).colour(role);
  c.mark = "point"; // a log axis: bars would start at zero
  c.log_y = true;
  c.limits = false;
  c.y_title = "results per second (log)";
  c.says("Results per second of each form of the guide's advice, the slow form beside the "
         "recommended one, on the same inputs",
         {"Each form runs over one resident wave of threads, each thread evaluating it many times "
          "on arguments derived from its input, every result summed and stored."});
  return c;
}

Chart speedup_chart() {
  Chart c = Chart::sweep_of(speedup).along(pair).colour(role);
  c.mark = "point"; // a log axis: bars would start at zero
  c.log_y = true;
  c.limits = false;
  c.y_title = "speed-up over the slow form (×, log)";
  c.rules.push_back({.value = 1.0, .label = "as fast as the slow form"});
  c.says(
      "Speed-up of each recommended form over the slow form of its pair, sample by sample",
      {"Dotted: what the Best Practices Guide says (11.1.6): exp2f and exp10f \"can be as much as "
       "ten times faster\" than powf."});
  return c;
}

Chart reduction_chart() {
  Chart c = Chart::sweep_of(reduction_slowdown).along(form);
  c.mark = "bar";
  c.limits = false;
  c.y_title = "rate at |x| <= pi over rate here (×)";
  c.rules.push_back({.value = 1.0, .label = "no slower"});
  c.says("How much slower each function runs when its argument needs reduction: its rate on "
         "|x| <= pi over its rate on |x| <= 1e6 (sinf, cosf) or |x| <= 80 (expf)",
         {"Dotted: the Best Practices Guide (11.1.6): sinf, cosf and expf become \"about an "
          "order of magnitude slower\" when the magnitude of the argument needs to be reduced."});
  return c;
}

Chart ulp_chart(const char* which, bool log) {
  Chart c = Chart::sweep_of(max_ulp).along(form).colour(role).only_where(family, which);
  c.mark = log ? "point" : "bar"; // bars start at zero, which a log axis cannot show
  c.log_y = log;
  c.y_title = log ? "maximum error (ulp, log)" : "maximum error (ulp)";
  c.says(std::string("Maximum error in ulp of each form against a double-precision host "
                     "reference, ") +
             which,
         {"Ticks: the bound the CUDA C++ Programming Guide states (17.1 Table 17, 17.2 Table 21) "
          "where it is a bound in ulp against the same function; a form beyond its bound fails "
          "its point. Near a zero of the function (sinf(pi x) at whole x, __sinf near multiples "
          "of pi) the correctly rounded result is tiny and the count of floats to it runs into "
          "the millions."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "The guide's instruction advice, measured in pairs",
    .description =
        "Each piece of the Best Practices Guide's instruction advice (11.1) as a pair of code "
        "forms on the same inputs: integer / and % by a run-time power of two against shift and "
        "mask and against the literal; unsigned against signed loop counters in the guide's "
        "strided loop (its body read as a sum, stored per thread); 1.0f/sqrtf against rsqrtf; "
        "powf(x, 1/3.f) against cbrtf, powf(x, -1/3.f) against rcbrtf, powf(2, x) against "
        "exp2f, powf(10, x) against exp10f, powf(x, 3) against x*x*x; sinf(pi*x) against "
        "sinpif; sinf and cosf against sincosf; sinf, cosf and expf against __sinf, __cosf and "
        "__expf on small arguments and on arguments that need reduction; one kernel built "
        "without and with -use_fast_math; a polynomial with double against float constants. "
        "Speed: one resident wave of 256-thread blocks, each thread evaluating its form many "
        "times on arguments derived from its input (x, x(1+2^-22), ...), every result summed and "
        "stored; results per second per form and the speed-up over the pair's slow form, sample "
        "by sample; for sinf, cosf, expf and their intrinsics on arguments that need reduction, "
        "the rate "
        "on |x| <= pi over the rate there (the guide's \"about an order of magnitude\"). Accuracy: "
        "the first result of every thread (2^18 inputs per form over its "
        "range) against a double-precision host reference, in ulp from the correctly rounded "
        "result as the CUDA C++ Programming Guide states its bounds (17.1 Table 17, 17.2 Table "
        "21), the results of three launches each one sample; a result beyond the stated bound "
        "fails the point. Integer forms are checked exactly on 4096 sampled threads.",
    .citation = "CUDA C++ Best Practices Guide 11.1 (11.1.1-11.1.6); CUDA C++ Programming Guide "
                "17.1 Standard Functions (Table 17), 17.2 Intrinsic Functions (Table 21)",
    .version = 1,
    .order = 105,
    .chapter = Chapter::compute,
    .params = {pair, form, role, family},
    .metrics = {results_rate, speedup, max_ulp, reduction_slowdown},
    .extras = {{"inputs", "inputs (threads) per launch"},
               {"range", "the inputs' range, [lo, hi]"},
               {"reps_per_thread", "evaluations per thread per launch"},
               {"results_per_launch", "results computed per launch"},
               {"advice", "what the guide advises for the pair"},
               {"slow_form", "the pair's slow form"},
               {"slow_results_per_second", "the slow form's median rate"},
               {"speedup_vs_slow_form", "this form's median rate over the slow form's"},
               {"small_argument_form", "the same function on |x| <= pi"},
               {"small_argument_results_per_second", "its median rate"},
               {"mean_ulp_error", "mean error in ulp against the intended value"},
               {"max_ulp_error_own_arguments", "maximum ulp error against the form's own float "
                                               "arguments (what the stated bound is read against)"},
               {"max_abs_error_own_arguments", "maximum absolute error against the same"},
               {"worst_input", "an input where the maximum error was reached"},
               {"results_checked", "results read against the reference"},
               {"nan_mismatches", "NaN results where the reference is a number, or the reverse"},
               {"results_over_bound", "results beyond the stated bound"},
               {"stated_bound", "the Programming Guide's bound for the form, in words"},
               {"threads_checked", "threads whose integer result the host recomputed"},
               {"accuracy_failure", "why the form failed its bound, in words"}},
    .headline = speedup.name,
    .charts = {rate_chart(), speedup_chart(), reduction_chart(), ulp_chart(family_accurate, false),
               ulp_chart(family_approximate, true)},
    .plan = plan,
});

} // namespace apod::mathfn
