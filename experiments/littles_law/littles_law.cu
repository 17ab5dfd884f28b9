// Little's law for device memory: throughput = bytes in flight / latency (Notes on CUDA's table
// "latency x throughput", shared/seeds/002_...; Tuning CUDA Applications for Pascal 1.4.3.1: at
// HBM bandwidth more loads must be in flight, 003_...). A copy kernel whose threads each issue
// `loads` independent loads of `width` bytes before their stores runs on a persistent grid that
// keeps a chosen number of threads resident per SM (shapes.cu); its effective bandwidth (bytes
// read plus written, guide 8.2.2) is set against the bytes of loads each SM keeps in flight.
// The latency in the law is the one the loads see under load, measured here first (loaded.cu,
// the Intel Memory Latency Checker's loaded-latency method): the idle latency under-counts the
// queueing of a loaded memory system 3-4x. The guide's offsetCopy launch (9.2.1.3) is one more
// point, marked by its `launch`.
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/theory.hpp"
#include "declaration.hpp"
#include "in_flight.hpp"
#include "loaded.cuh"
#include "loaded.hpp"
#include "shapes.cuh"

#include <algorithm>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr uint64_t seed = 0x11771E5;
constexpr double moved_per_loaded_byte = 2.0; // a copy writes every byte it loads

using littles::device_in_flight;
using littles::in_flight_per_sm;
using littles::target_fraction;

/// The model's inputs: the loaded-latency curve, the sweep's plateau, and peak_copy's figure
/// beside it.
struct ModelInputs {
  std::vector<LoadedPoint> curve;
  std::vector<LoadedPoint> iteration_curve; ///< the background copy's own iteration times
  double idle_ns = 0;
  double plateau_gbs = 0;
  std::optional<double> peak_copy_gbs;
};

/// Each level as two points (latency and the background's bandwidth); the curve from the
/// medians of the verified ones.
std::vector<LoadedPoint> record_levels(ExperimentContext& ctx, const std::vector<LoadedLevel>& all,
                                       const json& facts, ModelInputs& in) {
  std::vector<LoadedPoint> points, iterations;
  for (const LoadedLevel& level : all) {
    const json params = {{littles::background.key,
                          level.background ? littles::copy_background : littles::no_background},
                         {littles::delay.key, level.delay_cycles}};
    json extra = facts;
    extra[keys::words_wrong] = level.wrong;
    extra["cycles_per_load"] = level.cycles.summary().median;
    extra["background_gbs"] = level.gbs.summary().median;
    if (!level.iteration_ns.used().empty())
      extra["copy_iteration_ns"] = level.iteration_ns.summary().median;
    const bool ok = level.wrong == 0 && level.error.empty();
    Measurement latency = make_measurement(params, littles::loaded_latency, level.ns, ok, extra);
    extra["latency_ns"] = level.ns.summary().median;
    extra.erase("background_gbs");
    Measurement bandwidth =
        make_measurement(params, littles::background_bandwidth, level.gbs, ok, extra);
    latency.error = bandwidth.error = level.error;
    if (ok && !level.ns.used().empty()) {
      points.push_back(
          {level.background ? level.gbs.summary().median : 0.0, level.ns.summary().median});
      if (!level.background)
        in.idle_ns = points.back().ns;
      if (!level.iteration_ns.used().empty())
        iterations.push_back({points.back().gbs, level.iteration_ns.summary().median});
    }
    ctx.record(std::move(latency));
    if (level.background) // the idle level copies nothing: no bandwidth of 0 is stored
      ctx.record(std::move(bandwidth));
  }
  in.iteration_curve = loaded_curve(iterations);
  return loaded_curve(points);
}

/// The sweep's plateau: the best median of a verified persistent shape. The 90% point is of it,
/// not of peak_copy's figure, which other kernels reach and these shapes may not (an H200's
/// shapes top out at ~91% of it: the 90% point sat on the plateau's noise).
double plateau_gbs(const std::vector<ShapePoint>& points, double bytes_moved) {
  double best = 0;
  for (const ShapePoint& p : points)
    if (p.persistent && p.wrong == 0 && !p.ms.used().empty())
      best = std::max(best, bandwidth_gbs(p.ms, bytes_moved).summary().median);
  return best;
}

json curve_json(const std::vector<LoadedPoint>& curve) {
  json out = json::array();
  for (const LoadedPoint& p : curve)
    out.push_back({{"gbs", p.gbs}, {"ns", p.ns}});
  return out;
}

void record_point(ExperimentContext& ctx, const ShapePoint& p, double bytes_moved,
                  const ModelInputs& in) {
  json extra = {{"model_peak_gbs", in.plateau_gbs},
                {"model_idle_latency_ns", in.idle_ns},
                {keys::words_wrong, p.wrong},
                {keys::seed, seed},
                {"kernel", p.kernel}};
  const int sms = ctx.device.sm_count;
  if (const auto b =
          littles_fixed_point_gbs(in.curve, sms, p.in_flight_bytes, moved_per_loaded_byte);
      b && in.plateau_gbs > 0) {
    extra[keys::model_gbs] = std::min(*b, in.plateau_gbs);
    extra["model_latency_ns"] =
        moved_per_loaded_byte * sms * p.in_flight_bytes / std::max(*b, 1e-9);
  }
  if (in.idle_ns > 0 && in.plateau_gbs > 0)
    extra["idle_model_gbs"] = littles_law_bandwidth_gbs(sms, p.in_flight_bytes, in.idle_ns,
                                                        in.plateau_gbs, moved_per_loaded_byte);
  ctx.record(bandwidth_measurement(p.params, bytes_moved, p.ms, p.wrong == 0, std::move(extra)));
}

/// The bytes in flight per SM (and for the device) at which the persistent shapes reach 90% of
/// the plateau, once per sample index: the i-th sample of every shape makes one curve
/// (in_flight.hpp's envelope and interpolation), flagged when any of its samples was. Beside
/// it, what Little's law needs on the loaded curve and on the idle latency.
void record_crossing(ExperimentContext& ctx, const std::vector<ShapePoint>& points,
                     double bytes_moved, const ModelInputs& in, const json& not_resident) {
  const double target_gbs = target_fraction * in.plateau_gbs;
  size_t samples = SIZE_MAX;
  bool verified = true;
  for (const ShapePoint& p : points) {
    if (!p.persistent)
      continue;
    samples = std::min(samples, p.ms.size());
    verified = verified && p.wrong == 0;
  }
  Series per_sm_kb;
  size_t without_crossing = 0;
  for (size_t i = 0; i < samples && samples != SIZE_MAX; ++i) {
    std::vector<InFlightPoint> curve;
    uint8_t flags = 0;
    for (const ShapePoint& p : points) {
      if (!p.persistent)
        continue;
      curve.push_back({p.in_flight_bytes, bandwidth_gbs_from_ms(bytes_moved, p.ms.values()[i])});
      flags |= p.ms.flag(i);
    }
    if (const auto at = in_flight_for_bandwidth(curve, target_gbs))
      per_sm_kb.add(*at / 1e3, flags);
    else
      ++without_crossing;
  }
  const int sms = ctx.device.sm_count;
  json extra = {{"target_gbs", target_gbs},
                {"peak_gbs", in.plateau_gbs},
                {"peak_source", "the best median of this sweep's verified persistent shapes"},
                {"loaded_latency_curve", curve_json(in.curve)},
                {"model_idle_latency_ns", in.idle_ns},
                {"samples_without_crossing", without_crossing},
                {"shapes_not_resident", not_resident},
                {"rule", "per sample index: the best shape at each bytes-in-flight value, "
                         "interpolated linearly in log2(bytes in flight) where it first reaches "
                         "the target"}};
  if (in.peak_copy_gbs)
    extra["peak_copy_gbs"] = *in.peak_copy_gbs;
  if (target_gbs > 0) {
    if (const auto x =
            littles_in_flight_bytes_per_sm(in.curve, target_gbs, sms, moved_per_loaded_byte)) {
      extra["model_in_flight_per_sm_kb"] = *x / 1e3;
      extra["model_latency_ns"] = *latency_at(in.curve, target_gbs);
    } else {
      extra["model_why"] = "the loaded-latency curve stops at " +
                           std::to_string(in.curve.empty() ? 0.0 : in.curve.back().gbs) +
                           " GB/s, below the target";
    }
    if (const auto x = littles_in_flight_bytes_per_sm(in.iteration_curve, target_gbs, sms,
                                                      moved_per_loaded_byte))
      extra["copy_model_in_flight_per_sm_kb"] = *x / 1e3;
    if (in.idle_ns > 0)
      extra["idle_model_in_flight_per_sm_kb"] =
          littles_law_in_flight_bytes_per_sm(target_gbs, sms, in.idle_ns, moved_per_loaded_byte) /
          1e3;
  }
  const json params = {{littles::fraction.key, target_fraction}};
  Measurement per_sm = make_measurement(params, in_flight_per_sm, per_sm_kb, verified, extra);
  const auto on_device = [&](double kb) { return kb * sms; };
  Measurement device =
      make_measurement(params, device_in_flight, per_sm_kb.map(on_device), verified, extra);
  if (per_sm_kb.empty())
    per_sm.error = device.error =
        in.plateau_gbs > 0 ? "no sample index has a curve that reaches 90% of the plateau"
                           : "no persistent shape was verified: there is no plateau";
  ctx.record(std::move(per_sm));
  ctx.record(std::move(device));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  // 512 MiB each way (8.5x the H200's L2); quick: 256 MiB, still 4x a 60 MiB L2.
  const size_t bytes = ctx.options.quick ? (size_t(256) << 20) : (size_t(512) << 20);
  CopyBuffers buf{DeviceBuffer<uint64_t>(bytes / 8), DeviceBuffer<uint64_t>(bytes / 8), seed};
  fill_device(buf.in.get(), buf.in.size(), seed);

  ModelInputs in;
  json facts;
  const std::vector<LoadedLevel> levels = measure_loaded_latency(ctx, buf, facts);
  in.curve = record_levels(ctx, levels, facts, in);
  in.peak_copy_gbs = ctx.achievable_peak_gbs(access::copy);

  json not_resident = json::array();
  const std::vector<ShapePoint> points = measure_shapes(ctx, buf, not_resident);
  const double bytes_moved = 2.0 * bytes;
  in.plateau_gbs = plateau_gbs(points, bytes_moved);
  for (const ShapePoint& p : points)
    record_point(ctx, p, bytes_moved, in);
  record_crossing(ctx, points, bytes_moved, in, not_resident);
}

} // namespace

APOD_EXPERIMENT(littles::experiment, run);

} // namespace apod
