// Little's law for device memory: throughput = bytes in flight / latency (Notes on CUDA's table
// "latency x throughput", shared/seeds/002_...; Tuning CUDA Applications for Pascal 1.4.3.1: at
// HBM bandwidth more loads must be in flight, 003_...). A copy kernel whose threads each issue
// `loads` independent loads of `width` bytes before their stores runs on a persistent grid that
// keeps a chosen number of threads resident per SM (shapes.cu); its effective bandwidth (bytes
// read plus written, guide 8.2.2) is set against the bytes of loads each SM keeps in flight,
// beside the model min(achievable peak, 2 x SMs x bytes in flight per SM / DRAM latency)
// (theory.cpp) from the same run's memory_latency and peak_copy. The guide's offsetCopy launch
// (9.2.1.3) is one more point, marked by its `launch`.
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/theory.hpp"
#include "declaration.hpp"
#include "in_flight.hpp"
#include "memory_latency/chain.hpp"
#include "memory_latency/chase.cuh"
#include "memory_latency/declaration.hpp"
#include "shapes.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr uint64_t seed = 0x11771E5;
constexpr uint64_t chase_seed = 0x1A7E4C8;
constexpr double moved_per_loaded_byte = 2.0; // a copy writes every byte it loads

using littles::device_in_flight;
using littles::in_flight_per_sm;
using littles::target_fraction;

/// The model's inputs and where they came from.
struct ModelInputs {
  double latency_ns = 0, peak_gbs = 0;
  std::string latency_source, peak_source;
};

/// The same run's memory_latency DRAM figure, or, when memory_latency did not run earlier, a
/// short chase of littles_law's own, recorded so that its samples are kept like any other.
double dram_latency_ns(ExperimentContext& ctx, std::string& source) {
  if (const auto earlier = latency::earlier_dram_ns(ctx)) {
    source = "memory_latency's dram point, earlier in this run";
    return *earlier;
  }
  int shared_per_sm = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                   ctx.device.ordinal));
  const size_t bytes = latency_probes(shared_per_sm, ctx.device.l2_bytes, true).dram_bytes;
  PointerChase chase(bytes);
  const ChasePlan plan{timed_steps(bytes, ctx.device.l2_bytes, true), 0, false};
  const ChaseFigures f = chase.measure(bytes, chase_seed, plan, ctx.options.sampling, 0.1);
  json extra = f.facts;
  extra["why"] = "memory_latency did not run earlier in this run";
  Measurement m = make_measurement(
      {{latency::level.key, latency::dram_level}, {latency::working_set.key, bytes}}, latency::ns,
      f.ns_per_step, f.verified, std::move(extra));
  const bool ok = point_status(m).ok();
  ctx.record(std::move(m));
  if (!ok)
    throw std::runtime_error("littles_law: its own DRAM latency chase failed");
  source = "measured here (pointer chase over 8x the L2; recorded as this experiment's "
           "latency_ns point): memory_latency did not run earlier in this run";
  return f.ns_per_step.summary().median;
}

/// peak_copy's achievable peak from earlier in the run, else the best verified point here.
void set_peak(const ExperimentContext& ctx, const std::vector<ShapePoint>& points,
              double bytes_moved, ModelInputs& in) {
  if (const auto earlier = latency::earlier_peak_gbs(ctx)) {
    in.peak_gbs = *earlier;
    in.peak_source = "peak_copy's achievable copy bandwidth, earlier in this run";
    return;
  }
  for (const ShapePoint& p : points)
    if (p.wrong == 0 && !p.ms.used().empty())
      in.peak_gbs = std::max(in.peak_gbs, bandwidth_gbs(p.ms, bytes_moved).summary().median);
  in.peak_source = "the best verified point of this experiment: peak_copy did not run earlier";
}

void record_point(ExperimentContext& ctx, const ShapePoint& p, double bytes_moved,
                  const ModelInputs& in) {
  json extra = {{"model_latency_ns", in.latency_ns},
                {"model_latency_source", in.latency_source},
                {"model_peak_gbs", in.peak_gbs},
                {"model_peak_source", in.peak_source},
                {keys::words_wrong, p.wrong},
                {keys::seed, seed},
                {"kernel", p.kernel}};
  if (in.peak_gbs > 0)
    extra[keys::model_gbs] = littles_law_bandwidth_gbs(
        ctx.device.sm_count, p.in_flight_bytes, in.latency_ns, in.peak_gbs, moved_per_loaded_byte);
  ctx.record(bandwidth_measurement(p.params, bytes_moved, p.ms, p.wrong == 0, std::move(extra)));
}

/// The bytes in flight per SM (and for the device) at which the persistent shapes reach 90% of
/// the achievable peak, once per sample index: the i-th sample of every shape makes one curve
/// (in_flight.hpp's envelope and interpolation), flagged when any of its samples was.
void record_crossing(ExperimentContext& ctx, const std::vector<ShapePoint>& points,
                     double bytes_moved, const ModelInputs& in, const json& not_resident) {
  const double target_gbs = target_fraction * in.peak_gbs;
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
  double best_gbs = 0;
  for (size_t i = 0; i < samples && samples != SIZE_MAX; ++i) {
    std::vector<InFlightPoint> curve;
    uint8_t flags = 0;
    for (const ShapePoint& p : points) {
      if (!p.persistent)
        continue;
      curve.push_back({p.in_flight_bytes, bandwidth_gbs_from_ms(bytes_moved, p.ms.values()[i])});
      best_gbs = std::max(best_gbs, curve.back().gbs);
      flags |= p.ms.flag(i);
    }
    if (const auto at = in_flight_for_bandwidth(curve, target_gbs))
      per_sm_kb.add(*at / 1e3, flags);
    else
      ++without_crossing;
  }
  const json extra = {
      {"target_gbs", target_gbs},
      {"peak_gbs", in.peak_gbs},
      {"peak_source", in.peak_source},
      {"model_in_flight_per_sm_kb",
       littles_law_in_flight_bytes_per_sm(target_gbs, ctx.device.sm_count, in.latency_ns,
                                          moved_per_loaded_byte) /
           1e3},
      {"model_latency_ns", in.latency_ns},
      {"samples_without_crossing", without_crossing},
      {"shapes_not_resident", not_resident},
      {"rule", "per sample index: the best shape at each bytes-in-flight value, interpolated "
               "linearly in log2(bytes in flight) where it first reaches the target"}};
  const json params = {{littles::fraction.key, target_fraction}};
  Measurement per_sm = make_measurement(params, in_flight_per_sm, per_sm_kb, verified, extra);
  const auto on_device = [&](double kb) { return kb * ctx.device.sm_count; };
  Measurement device =
      make_measurement(params, device_in_flight, per_sm_kb.map(on_device), verified, extra);
  if (per_sm_kb.empty())
    per_sm.error = device.error = "no launch shape reached 90% of the achievable peak (" +
                                  std::to_string(target_gbs) + " GB/s); the best sample reached " +
                                  std::to_string(best_gbs) + " GB/s";
  ctx.record(std::move(per_sm));
  ctx.record(std::move(device));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  ModelInputs in;
  in.latency_ns = dram_latency_ns(ctx, in.latency_source); // before the copy's buffers exist
  // 512 MiB each way (8.5x the H200's L2); quick: 256 MiB, still 4x a 60 MiB L2.
  const size_t bytes = ctx.options.quick ? (size_t(256) << 20) : (size_t(512) << 20);
  CopyBuffers buf{DeviceBuffer<uint64_t>(bytes / 8), DeviceBuffer<uint64_t>(bytes / 8), seed};
  fill_device(buf.in.get(), buf.in.size(), seed);
  json not_resident = json::array();
  const std::vector<ShapePoint> points = measure_shapes(ctx, buf, not_resident);
  const double bytes_moved = 2.0 * bytes;
  set_peak(ctx, points, bytes_moved, in);
  for (const ShapePoint& p : points)
    record_point(ctx, p, bytes_moved, in);
  record_crossing(ctx, points, bytes_moved, in, not_resident);
}

} // namespace

APOD_EXPERIMENT(littles::experiment, run);

} // namespace apod
