#include "record.hpp"

#include "core/theory.hpp"
#include "core/vocabulary.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace apod::scaling {
namespace {

// The share of the base time that is parallel: the guide's P read off the parts (3.1.3.1).
constexpr const char* share_rule = "parallel_ms / (serial_ms + parallel_ms) on the point";
constexpr const char* interval_rule =
    "fit of the medians -/+ t(0.975, dof) x its least-squares standard error (linearised, "
    "conditional on the serial time held fixed); samples: one fit per repetition";
constexpr double knee_fraction = 0.95;

json params_of(const std::string& curve, int sm_count) {
  return {{param::curve.key, curve}, {param::sm_count.key, sm_count}};
}

double median_of(const Series& s) {
  return s.summary().median;
}

void record_speedup_and_efficiency(ExperimentContext& ctx, const std::string& curve,
                                   const PartitionSeries& p, const Series& speedup, bool verified,
                                   const json& extra) {
  const json params = params_of(curve, p.sm_count);
  ctx.record(make_measurement(params, metric::speedup, speedup, verified, extra));
  const Series efficiency = speedup.map([n = p.n](double s) { return parallel_efficiency(s, n); });
  ctx.record(make_measurement(params, metric::efficiency, efficiency, verified, extra));
}

json runs_test_json(const RunsTest& t) {
  return {{"test", "Wald-Wolfowitz runs test of the residuals' signs in order of N"},
          {"tested", t.tested},
          {"residuals", t.residuals},
          {"runs", t.runs},
          {"expected_runs", t.expected_runs},
          {"z", t.z},
          {"trend", t.trend}};
}

json identity_json(const IdentityCheck& c) {
  return {{"identity", c.identity},
          {"no_freedom", c.no_freedom},
          {"exact", c.exact},
          {"free_quantities", c.free_quantities},
          {"informative_points", c.informative_points},
          {"max_relative_residual", c.max_relative_residual},
          {"standard_error", c.standard_error},
          {"rule", "identity when free quantities >= points with N != 1, or every relative "
                   "residual and the standard error within 1e-9 (fit.hpp identity_check)"}};
}

// Every curve of one law, fitted together: the points in order (serial level, then N).
struct LawCurves {
  std::vector<std::string> curve; // per point
  std::vector<const PartitionSeries*> point, base;
  std::vector<double> serial_ms, ratio, n;
  std::vector<Series> speedups;
};

ScalingFit fit_curves(ScalingLaw law, const LawCurves& c, const std::vector<double>& speedup) {
  return law == ScalingLaw::amdahl ? fit_amdahl_across_serial(c.n, speedup, c.ratio)
                                   : fit_parallel_fraction(law, c.n, speedup);
}

// One least-squares fit per repetition: repetition r of every point forms one set of curves,
// left out when any of its points' samples was flagged.
Series fraction_per_repetition(ScalingLaw law, const LawCurves& c) {
  Series fractions;
  for (size_t r = 0; r < c.speedups.front().size(); ++r) {
    std::vector<double> s;
    uint8_t flag = 0;
    for (const Series& point : c.speedups) {
      s.push_back(point.values().at(r));
      flag |= point.flag(r);
    }
    fractions.add(fit_curves(law, c, s).parallel_fraction, flag);
  }
  return fractions;
}

void record_fraction(ExperimentContext& ctx, const LawInputs& in, const LawCurves& c,
                     const ScalingFit& fit, bool verified) {
  const bool amdahl = in.law == ScalingLaw::amdahl;
  const std::string law = amdahl ? "amdahl" : "gustafson";
  json residuals = json::array();
  for (size_t i = 0; i < c.n.size(); ++i)
    residuals.push_back({{"curve", c.curve[i]},
                         {"sm_count", c.point[i]->sm_count},
                         {"n", c.n[i]},
                         {"measured", fit.fitted[i] + fit.residuals[i]},
                         {"fitted", fit.fitted[i]},
                         {"residual", fit.residuals[i]}});
  const double base_parallel = median_of(in.points.front().ms);
  json levels = json::array();
  if (amdahl)
    for (size_t i = 0; i < c.n.size(); ++i)
      if (i == 0 || c.curve[i] != c.curve[i - 1]) {
        const double p_level = fit.parallel_fraction /
                               (fit.parallel_fraction + c.ratio[i] * (1 - fit.parallel_fraction));
        levels.push_back({{"curve", c.curve[i]},
                          {"serial_ms", c.serial_ms[i]},
                          {"serial_ratio", c.ratio[i]},
                          {"p_fitted", p_level},
                          {"p_from_parts", base_parallel / (c.serial_ms[i] + base_parallel)}});
      }
  // One fitted parameter; N is the SM ratio, not read from the times.
  const IdentityCheck identity = identity_check(fit, 1);
  json extra =
      merged(in.facts,
             {{"model",
               amdahl ? "Amdahl (3.1.3.1): S = 1 / ((1 - P_m) + P_m / N), N = SMs / base SMs, "
                        "P_m = P / (P + m (1 - P)) for serial work m times the reference's; one P "
                        "fitted over every serial level"
                      : "Gustafson (3.1.3.2): S = N + (1 - P)(1 - N), N = SMs / base SMs"},
              {"samples_are", "one least-squares fit per repetition"},
              {"serial_ms", in.serial_ms},
              {"p_from_parts", base_parallel / (in.serial_ms + base_parallel)},
              {"p_from_parts_is", "the base point's " + std::string(share_rule)},
              {"fit_of_medians", fit.parallel_fraction},
              {"standard_error", fit.standard_error ? json(*fit.standard_error) : json(nullptr)},
              {"ci95", {fit.ci_low, fit.ci_high}},
              {"ci95_is", interval_rule},
              {"degrees_of_freedom", fit.degrees_of_freedom},
              {"rms_residual", fit.rms_residual},
              {"residuals", residuals},
              {"residual_trend", runs_test_json(fit.trend)},
              {"identity_check", identity_json(identity)}});
  if (amdahl)
    extra["serial_levels"] = levels;
  const Series fractions = fraction_per_repetition(in.law, c);
  const Metric& fraction_metric =
      amdahl ? metric::amdahl_parallel_fraction : metric::gustafson_parallel_fraction;
  Measurement fraction =
      make_measurement({{param::law.key, law}}, fraction_metric, fractions, verified, extra);
  if (identity.identity)
    fraction.error = "the fit is an identity of its inputs (extra.identity_check)";
  ctx.record(std::move(fraction));
  if (!amdahl)
    return;

  // 1 / (1 - P) is finite only below P = 1; a fit that lands on the bound has no limit.
  size_t left_out = 0;
  const Series limits =
      fractions.where([](double p) { return p < 1; }, &left_out).map([](double p) {
        return amdahl_limit(p);
      });
  const double p = fit.parallel_fraction;
  extra["fit_of_medians"] = p < 1 ? json(amdahl_limit(p)) : json(nullptr);
  extra["fits_without_limit"] = left_out;
  // 1 / (1 - P) rises with P, so P's interval maps onto the limit's end to end; its standard
  // error is P's times the slope 1 / (1 - P)^2.
  extra["ci95"] = {amdahl_limit(fit.ci_low),
                   fit.ci_high < 1 ? json(amdahl_limit(fit.ci_high)) : json(nullptr)};
  extra["ci95_is"] = "1 / (1 - P) at the ends of P's interval (null: no finite upper end)";
  extra["standard_error"] =
      fit.standard_error && p < 1 ? json(*fit.standard_error / ((1 - p) * (1 - p))) : json(nullptr);
  Measurement limit =
      make_measurement({{param::law.key, law}}, metric::amdahl_limit, limits, verified, extra);
  if (limits.empty())
    limit.error = "every fit gave P = 1: no finite Amdahl limit";
  else if (identity.identity)
    limit.error = "the fit is an identity of its inputs (extra.identity_check)";
  ctx.record(std::move(limit));
}

} // namespace

json merged(json base, const json& more) {
  for (const auto& [key, value] : more.items())
    base[key] = value;
  return base;
}

void record_phase_curve(ExperimentContext& ctx, const std::string& curve,
                        const std::vector<PartitionSeries>& points,
                        const std::vector<double>& model_speedup) {
  if (points.empty() || model_speedup.size() != points.size())
    throw std::logic_error("record_phase_curve: one model value per point, at least one point");
  const PartitionSeries& base = points.front();
  for (size_t i = 0; i < points.size(); ++i) {
    const PartitionSeries& p = points[i];
    ctx.record(make_measurement(params_of(curve, p.sm_count), metric::kernel_ms, p.ms, p.verified,
                                merged(p.extra, {{"n", p.n}})));
    const Series speedup = Series::zip(base.ms, p.ms, [](double b, double t) { return b / t; });
    const json extra = merged(p.extra, {{"n", p.n},
                                        {"model_speedup", model_speedup[i]},
                                        {"model_efficiency", model_speedup[i] / p.n}});
    record_speedup_and_efficiency(ctx, curve, p, speedup, p.verified && base.verified, extra);
  }
}

BandwidthModel memory_model(const PartitionSeries& base, double bytes_moved, DramLimit limit) {
  return {median_of(bandwidth_gbs(base.ms, bytes_moved)), base.sm_count, limit.gbs};
}

void record_memory_bandwidth(ExperimentContext& ctx, const std::vector<PartitionSeries>& points,
                             double bytes_moved, DramLimit limit, double theoretical_gbs) {
  const PartitionSeries& base = points.front();
  const BandwidthModel model = memory_model(base, bytes_moved, limit);
  const json model_facts = {{"model", "min(SMs x per-SM bandwidth, limit)"},
                            {"per_sm_gbs", model.per_sm_gbs()},
                            {"base_sm_count", base.sm_count},
                            {"model_limit_gbs", limit.gbs},
                            {"model_limit_source", limit.source},
                            {"predicted_knee_sm_count", model.knee_sm_count()}};
  std::vector<int> sm_counts;
  std::vector<double> medians;
  for (const PartitionSeries& p : points) {
    const json extra =
        merged(merged(p.extra, model_facts), {{"n", p.n},
                                              {"model_gbs", model.gbs(p.sm_count)},
                                              {keys::limit_gbs, theoretical_gbs},
                                              {keys::limit_label, limit_phrase(LimitKind::dram)}});
    sm_counts.push_back(p.sm_count);
    medians.push_back(median_of(bandwidth_gbs(p.ms, bytes_moved)));
    ctx.record(bandwidth_measurement(params_of("memory", p.sm_count), bytes_moved, p.ms, p.verified,
                                     extra));
  }
  // One knee per repetition, from that repetition's base bandwidth.
  const Series knee = bandwidth_gbs(base.ms, bytes_moved).map([&](double gbs) {
    return bandwidth_knee_sm_count(gbs / base.sm_count, limit.gbs);
  });
  const auto measured = measured_knee_sm_count(sm_counts, medians, knee_fraction);
  const json extra =
      merged(model_facts, {{"measured_knee_sm_count", measured ? json(*measured) : json(nullptr)},
                           {"measured_knee_is", "the first SM count whose median bandwidth reaches "
                                                "95% of the largest median"}});
  ctx.record(make_measurement({{param::curve.key, "memory"}}, metric::predicted_knee, knee,
                              base.verified, extra));
}

static json merge_scale(json extra, double scale) {
  extra["serial_scale"] = scale;
  return extra;
}

std::string amdahl_curve(double scale) {
  if (scale == 1.0)
    return "amdahl";
  std::ostringstream name;
  name << "amdahl_serial_x" << scale;
  return name.str();
}

void record_law(ExperimentContext& ctx, const LawInputs& in) {
  if (in.points.empty() || in.base.size() != in.points.size())
    throw std::logic_error("record_law: one base series per point, at least one point");
  const bool amdahl = in.law == ScalingLaw::amdahl;
  std::vector<SerialLevel> levels = {{1.0, in.serial_ms}};
  if (amdahl)
    levels.insert(levels.end(), in.other_serial.begin(), in.other_serial.end());
  std::sort(levels.begin(), levels.end(),
            [](const SerialLevel& a, const SerialLevel& b) { return a.scale < b.scale; });
  LawCurves c;
  bool verified = true;
  for (const SerialLevel& level : levels)
    for (size_t i = 0; i < in.points.size(); ++i) {
      const double s = level.ms;
      c.curve.push_back(amdahl ? amdahl_curve(level.scale) : "gustafson");
      c.point.push_back(&in.points[i]);
      c.base.push_back(&in.base[i]);
      c.serial_ms.push_back(s);
      c.ratio.push_back(s / in.serial_ms); // measured, not the nominal scale
      c.n.push_back(in.points[i].n);
      c.speedups.push_back(Series::zip(in.base[i].ms, in.points[i].ms, [s](double b, double t) {
        return measured_speedup(s, b, t);
      }));
      verified = verified && in.base[i].verified && in.points[i].verified;
    }
  std::vector<double> medians;
  for (const Series& speedup : c.speedups)
    medians.push_back(median_of(speedup));
  const ScalingFit fit = fit_curves(in.law, c, medians);
  for (size_t i = 0; i < c.n.size(); ++i) {
    const PartitionSeries &p = *c.point[i], &base = *c.base[i];
    const double parallel = median_of(p.ms), s = c.serial_ms[i];
    const json extra = merged(p.extra, {{"n", p.n},
                                        {"serial_ms", s},
                                        {"serial_ratio", c.ratio[i]},
                                        {"base_parallel_ms", median_of(base.ms)},
                                        {"parallel_ms", parallel},
                                        {"parallel_share", parallel / (s + parallel)},
                                        {"model_speedup", fit.fitted[i]},
                                        {"model_efficiency", fit.fitted[i] / p.n},
                                        {"residual", fit.residuals[i]}});
    record_speedup_and_efficiency(ctx, c.curve[i], p, c.speedups[i], base.verified && p.verified,
                                  extra);
    if (!amdahl) { // the weak-scaling times are this curve's own
      const json params = params_of(c.curve[i], p.sm_count);
      ctx.record(make_measurement(params, metric::kernel_ms, p.ms, p.verified,
                                  merged(p.extra, {{"n", p.n}})));
      ctx.record(
          make_measurement(params, metric::base_partition_ms, base.ms, base.verified,
                           merged(base.extra, {{"n", p.n}, {"ran_on_sm_count", base.sm_count}})));
    }
  }
  record_fraction(ctx, in, c, fit, verified);
}

void record_serial_phase(ExperimentContext& ctx, const Series& ms, size_t elements, double scale) {
  const json extra = {{"elements", elements},
                      {"held_fixed_ms", median_of(ms)},
                      {"timed", "alone, back to back, before any GPU phase"}};
  std::ostringstream phase;
  phase << "host";
  if (scale != 1.0)
    phase << "_x" << scale;
  ctx.record(make_measurement({{param::phase.key, phase.str()}}, metric::serial_ms, ms, true,
                              merge_scale(extra, scale)));
}

} // namespace apod::scaling
