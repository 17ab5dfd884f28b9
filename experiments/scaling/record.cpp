#include "record.hpp"

#include "core/theory.hpp"
#include "core/vocabulary.hpp"

#include <cmath>
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

// One least-squares fit per repetition: repetition r of every point forms one curve, left out
// when any of its points' samples was flagged.
Series fraction_per_repetition(ScalingLaw law, const std::vector<double>& n,
                               const std::vector<Series>& speedups) {
  Series fractions;
  for (size_t r = 0; r < speedups.front().size(); ++r) {
    std::vector<double> s;
    uint8_t flag = 0;
    for (const Series& point : speedups) {
      s.push_back(point.values().at(r));
      flag |= point.flag(r);
    }
    fractions.add(fit_parallel_fraction(law, n, s).parallel_fraction, flag);
  }
  return fractions;
}

void record_fraction(ExperimentContext& ctx, const LawInputs& in, const ScalingFit& fit,
                     const std::vector<Series>& speedups, const std::vector<double>& n,
                     bool verified) {
  const bool amdahl = in.law == ScalingLaw::amdahl;
  const std::string law = amdahl ? "amdahl" : "gustafson";
  json residuals = json::array();
  for (size_t i = 0; i < n.size(); ++i)
    residuals.push_back({{"sm_count", in.points[i].sm_count},
                         {"n", n[i]},
                         {"measured", fit.fitted[i] + fit.residuals[i]},
                         {"fitted", fit.fitted[i]},
                         {"residual", fit.residuals[i]}});
  const double base_parallel = median_of(in.points.front().ms);
  json extra = merged(
      in.facts,
      {{"model",
        amdahl
            ? "Amdahl (3.1.3.1): S = 1 / ((1 - P) + P / N), N = the parallel phase's own measured "
              "speed-up g(base) / g(N) (extra.n_fitted per point)"
            : "Gustafson (3.1.3.2): S = N + (1 - P)(1 - N)"},
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
       {"residual_trend", runs_test_json(fit.trend)}});
  const Series fractions = fraction_per_repetition(in.law, n, speedups);
  const Metric& fraction_metric =
      amdahl ? metric::amdahl_parallel_fraction : metric::gustafson_parallel_fraction;
  ctx.record(
      make_measurement({{param::law.key, law}}, fraction_metric, fractions, verified, extra));
  if (!amdahl)
    return;

  // 1 / (1 - P) is finite only below P = 1; a fit that lands on the bound has no limit.
  size_t left_out = 0;
  const Series limits =
      fractions.where([](double p) { return p < 1; }, &left_out).map([](double p) {
        return amdahl_limit(p);
      });
  extra["fit_of_medians"] =
      fit.parallel_fraction < 1 ? json(amdahl_limit(fit.parallel_fraction)) : json(nullptr);
  extra["fits_without_limit"] = left_out;
  // 1 / (1 - P) rises with P, so P's interval maps onto the limit's end to end.
  extra["ci95"] = {amdahl_limit(fit.ci_low),
                   fit.ci_high < 1 ? json(amdahl_limit(fit.ci_high)) : json(nullptr)};
  extra["ci95_is"] = "1 / (1 - P) at the ends of P's interval (null: no finite upper end)";
  extra.erase("standard_error");
  Measurement limit =
      make_measurement({{param::law.key, law}}, metric::amdahl_limit, limits, verified, extra);
  if (limits.empty())
    limit.error = "every fit gave P = 1: no finite Amdahl limit";
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

void record_law(ExperimentContext& ctx, const LawInputs& in) {
  if (in.points.empty() || in.base.size() != in.points.size())
    throw std::logic_error("record_law: one base series per point, at least one point");
  const std::string curve = in.law == ScalingLaw::amdahl ? "amdahl" : "gustafson";
  const double s = in.serial_ms;
  std::vector<Series> speedups;
  std::vector<double> n, medians;
  bool verified = true;
  for (size_t i = 0; i < in.points.size(); ++i) {
    speedups.push_back(Series::zip(in.base[i].ms, in.points[i].ms,
                                   [s](double b, double t) { return measured_speedup(s, b, t); }));
    // Amdahl's N is the processors' worth of speed-up the parallel phase itself got, its own
    // measured g(base) / g(N), not the SM ratio: the GPU phase scales slightly below the SM ratio
    // (partial last waves: 0.98 of it at 132 SMs on an H100), and fitting with the SM ratio
    // charges that to the serial fraction and leaves a trend in the residuals (seen on an H100:
    // runs test z = -3.5). What is left to fit is the serial fraction alone. Gustafson's N stays
    // the SM ratio: its grown problem is run on the base partition, so the numerator is measured.
    n.push_back(in.law == ScalingLaw::amdahl ? median_of(in.base[i].ms) / median_of(in.points[i].ms)
                                             : in.points[i].n);
    medians.push_back(median_of(speedups.back()));
    verified = verified && in.base[i].verified && in.points[i].verified;
  }
  const ScalingFit fit = fit_parallel_fraction(in.law, n, medians);
  for (size_t i = 0; i < in.points.size(); ++i) {
    const PartitionSeries &p = in.points[i], &base = in.base[i];
    const double parallel = median_of(p.ms);
    const json extra = merged(p.extra, {{"n", p.n},
                                        {"n_fitted", n[i]},
                                        {"serial_ms", s},
                                        {"base_parallel_ms", median_of(base.ms)},
                                        {"parallel_ms", parallel},
                                        {"parallel_share", parallel / (s + parallel)},
                                        {"model_speedup", fit.fitted[i]},
                                        {"model_efficiency", fit.fitted[i] / p.n},
                                        {"residual", fit.residuals[i]}});
    record_speedup_and_efficiency(ctx, curve, p, speedups[i], base.verified && p.verified, extra);
    if (in.law == ScalingLaw::gustafson) { // the weak-scaling times are this curve's own
      const json params = params_of(curve, p.sm_count);
      ctx.record(make_measurement(params, metric::kernel_ms, p.ms, p.verified,
                                  merged(p.extra, {{"n", p.n}})));
      ctx.record(
          make_measurement(params, metric::base_partition_ms, base.ms, base.verified,
                           merged(base.extra, {{"n", p.n}, {"ran_on_sm_count", base.sm_count}})));
    }
  }
  record_fraction(ctx, in, fit, speedups, n, verified);
}

void record_serial_phase(ExperimentContext& ctx, const Series& ms, size_t elements) {
  const json extra = {{"elements", elements},
                      {"held_fixed_ms", median_of(ms)},
                      {"timed", "alone, back to back, before any GPU phase"}};
  ctx.record(make_measurement({{param::phase.key, "host"}}, metric::serial_ms, ms, true, extra));
}

} // namespace apod::scaling
