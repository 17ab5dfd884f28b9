// Arithmetic latency and throughput per operation class (Best Practices Guide 10.2, "Hiding
// Register Dependencies": arithmetic latency is hidden by other warps' work; Notes on CUDA, seed
// 002: ALU latency x throughput = operations in flight; Pascal Tuning Guide 1.4.2: half2 and
// __dp4a). Each class is one SASS instruction per step of a chain x = f(x, a, b): a warp's
// dependent chain gives the latency in cycles (clock64 around it), and one block per SM of 1 to
// 32 warps, each thread running 1 to 8 independent chains, gives the throughput in results per
// clock per SM from each SM's own cycle counter, swept so the operations in flight that saturate
// the unit show. Inputs are read from memory and the coefficients are kernel arguments, so
// nothing folds; every chain's result is stored and checked against the host's reproduction.
#include "../bank_conflicts/model.hpp" // bytes_per_clock_per_sm: per-SM rates from block clocks
#include "chains.cuh"
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "declaration.hpp"
#include "model.hpp"
#include "point_sampling.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace apod {
namespace {

using throughput::chain_kernel;
using throughput::max_block;
using throughput::OpClass;
using throughput::OpInfo;
using throughput::PointSamples;
using throughput::Sample;
using throughput::sample_point;
using throughput::Step;
using throughput::unroll;

constexpr double point_time_cap_s = 0.015; // 24 points x 6 classes: ~2.2 s at most
constexpr double quick_point_time_cap_s = 0.005;
constexpr double peak_window_s = 0.12; // the peak point samples this long: its power is known
constexpr double quick_peak_window_s = 0.02;

template <class T> T from_bits(uint64_t bits) {
  T value;
  if constexpr (sizeof(T) == 4) {
    const uint32_t b = uint32_t(bits);
    std::memcpy(&value, &b, 4);
  } else {
    std::memcpy(&value, &bits, 8);
  }
  return value;
}

template <class T> uint64_t to_bits(T value) {
  if constexpr (sizeof(T) == 4) {
    uint32_t b;
    std::memcpy(&b, &value, 4);
    return b;
  } else {
    uint64_t b;
    std::memcpy(&b, &value, 8);
    return b;
  }
}

/// A sweep point before it becomes a record.
struct Point {
  int warps = 0, ilp = 0, steps = 0;
  PointSamples samples;
  size_t wrong = 0, checked = 0;
  double median = 0;
  bool ok() const { return wrong == 0 && checked > 0 && median > 0; }
};

template <OpClass op> class ClassRun {
public:
  using T = typename Step<op>::T;

  ClassRun(ExperimentContext& ctx)
      : ctx_(ctx), info_(throughput::info(op)),
        elements_(size_t(ctx.device.sm_count) * max_block * 8), in_(elements_), out_(elements_),
        clocks_(3 * size_t(ctx.device.sm_count) * max_block / 32),
        raw_(3 * size_t(ctx.device.sm_count) * max_block / 32),
        inputs_(throughput::chain_inputs(op)) {
    const throughput::Coefficients k = throughput::coefficients(op);
    a_ = from_bits<T>(k.a), b_ = from_bits<T>(k.b);
    std::vector<T> host(elements_);
    for (size_t i = 0; i < elements_; ++i)
      host[i] = from_bits<T>(inputs_[i % throughput::chain_table_size]);
    APOD_CUDA(cudaMemcpy(in_.get(), host.data(), in_.bytes(), cudaMemcpyHostToDevice));
    APOD_CUDA(cudaEventCreate(&start_));
    APOD_CUDA(cudaEventCreate(&stop_));
    int per_sm = 0, per_block = 0;
    APOD_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                     ctx.device.ordinal));
    APOD_CUDA(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                     ctx.device.ordinal));
    alone_shared_bytes_ = std::min(per_block, per_sm / 2 + 1024);
  }
  ~ClassRun() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  ClassRun(const ClassRun&) = delete;
  ClassRun& operator=(const ClassRun&) = delete;

  void run() {
    const bool quick = ctx_.options.quick;
    const double cap = quick ? quick_point_time_cap_s : point_time_cap_s;
    // Latency: one warp, one chain.
    Point lat{1, 1, quick ? 2048 : 8192};
    lat.samples = sample_point(ctx_.options.sampling, cap, false, [&] {
      Sample s = launch(lat.ilp, 1, warp_lanes(), lat.steps);
      s.value = cycles_of_block0() / double(lat.steps);
      return s;
    });
    check(lat, 1, warp_lanes());
    record_latency(lat);

    // The sweep: about the same operations per thread at every ILP.
    const int ops_per_thread = quick ? 1024 : 4096;
    std::vector<Point> sweep;
    for (const int w : throughput::warp_values(quick))
      for (const int i : throughput::ilp_values(quick)) {
        Point p{w, i, std::max(unroll, ops_per_thread / i / unroll * unroll)};
        p.samples = sample_point(ctx_.options.sampling, cap, false,
                                 [&] { return measure(p.ilp, p.warps, p.steps); });
        check(p, unsigned(ctx_.device.sm_count), p.warps * warp_lanes());
        sweep.push_back(std::move(p));
      }
    const Point* best = nullptr;
    for (const Point& p : sweep)
      if (p.ok() && (!best || p.median > best->median))
        best = &p;

    // The best point again, 32x the steps (a launch of ~0.5 ms or more, so its rate over the GPU
    // from events loses little to the launch), for at least peak_window_s: its power is known.
    std::optional<Point> peak;
    if (best) {
      peak = Point{best->warps, best->ilp, best->steps * (quick ? 4 : 32)};
      peak->samples =
          sample_point(ctx_.options.sampling, quick ? quick_peak_window_s : peak_window_s, true,
                       [&] { return measure(peak->ilp, peak->warps, peak->steps); });
      check(*peak, unsigned(ctx_.device.sm_count), peak->warps * warp_lanes());
    }
    record_sweep(sweep, lat, best);
    record_peak(sweep, lat, peak);
  }

private:
  static int warp_lanes() { return throughput::warp_lanes; }

  // Each block asks for more than half the SM's shared memory (and uses none), so no SM can
  // hold two: the grid of one block per SM runs exactly `block / 32` warps on every SM.
  template <int ilp> void start_kernel(unsigned grid, int block, int steps) {
    const auto kernel = chain_kernel<op, ilp>;
    APOD_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   alone_shared_bytes_));
    kernel<<<grid, block, alone_shared_bytes_>>>(in_.get(), out_.get(), a_, b_, steps,
                                                 clocks_.get());
  }

  Sample launch(int ilp, unsigned grid, int block, int steps) {
    APOD_CUDA(cudaEventRecord(start_));
    switch (ilp) {
    case 1:
      start_kernel<1>(grid, block, steps);
      break;
    case 2:
      start_kernel<2>(grid, block, steps);
      break;
    case 4:
      start_kernel<4>(grid, block, steps);
      break;
    case 8:
      start_kernel<8>(grid, block, steps);
      break;
    default:
      throw std::logic_error("unsupported ILP");
    }
    APOD_CUDA_LAUNCH();
    APOD_CUDA(cudaEventRecord(stop_));
    APOD_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    APOD_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    const size_t warps = size_t(grid) * (block / warp_lanes());
    APOD_CUDA(cudaMemcpy(raw_.data(), clocks_.get(), 3 * warps * sizeof(raw_[0]),
                         cudaMemcpyDeviceToHost));
    Sample s;
    const double results = double(ilp) * info_.results_per_lane_op * grid * block * double(steps);
    s.gops = ms > 0 ? results / (ms * 1e6) : 0;
    std::map<uint32_t, std::set<size_t>> blocks_per_sm;
    for (size_t w = 0; w < warps; ++w)
      blocks_per_sm[uint32_t(raw_[3 * w])].insert(w / (block / warp_lanes()));
    for (const auto& [sm, blocks] : blocks_per_sm)
      s.max_blocks_on_one_sm = std::max(s.max_blocks_on_one_sm, int(blocks.size()));
    return s;
  }

  double cycles_of_block0() const { return double(raw_[2] - raw_[1]); }

  /// One throughput launch: one block of `warps` warps per SM.
  Sample measure(int ilp, int warps_per_sm, int steps) {
    const unsigned grid = unsigned(ctx_.device.sm_count);
    const int block = warps_per_sm * warp_lanes();
    Sample s = launch(ilp, grid, block, steps);
    const size_t warps = size_t(grid) * warps_per_sm;
    std::vector<BlockClock> spans(warps); // one per warp: each SM's earliest start to latest end
    for (size_t w = 0; w < warps; ++w)
      spans[w] = {uint32_t(raw_[3 * w]), raw_[3 * w + 1], raw_[3 * w + 2]};
    const double per_warp = double(warp_lanes()) * ilp * steps * info_.results_per_lane_op;
    s.value = bytes_per_clock_per_sm(spans, per_warp); // results, not bytes: same arithmetic
    return s;
  }

  /// Every chain of the last launch against the host's: its input's chain after `steps`.
  void check(Point& p, unsigned grid, int block) {
    const size_t n = size_t(grid) * block * p.ilp;
    std::vector<T> got(n);
    APOD_CUDA(cudaMemcpy(got.data(), out_.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
    auto it = expected_.find(p.steps);
    if (it == expected_.end())
      it = expected_.emplace(p.steps, throughput::chain_outputs(op, inputs_, p.steps)).first;
    p.wrong = 0;
    for (size_t i = 0; i < n; ++i)
      p.wrong += !throughput::chain_matches(op, to_bits(got[i]),
                                            it->second[i % throughput::chain_table_size]);
    p.checked = n;
    APOD_CUDA(cudaMemset(out_.get(), 0, out_.bytes())); // the next check sees only its launch
    p.median = p.samples.values().summary().median;
  }

  json params(const Point* p) const {
    json j = {{throughput::op_class.key, info_.name}};
    if (p)
      j[throughput::ilp.key] = p->ilp, j[throughput::warps.key] = p->warps;
    return j;
  }

  json facts(const Point& p) const {
    return {{"elements_wrong", p.wrong},
            {"elements_checked", p.checked},
            {"steps", p.steps},
            {"instruction", info_.instruction},
            {"results_per_lane_op", info_.results_per_lane_op}};
  }

  std::optional<double> theoretical() const {
    return throughput::theoretical_results_per_clock(op, ctx_.device.cc_major,
                                                     ctx_.device.cc_minor);
  }

  void add_limit(json& extra) const {
    if (const auto t = theoretical()) {
      extra[keys::limit] = *t;
      extra[keys::limit_label] = "CUDA C++ Programming Guide, throughput of native arithmetic "
                                 "instructions (results per clock per SM)";
    }
  }

  void record_latency(const Point& lat) {
    ctx_.record(make_measurement(params(nullptr), throughput::latency, lat.samples.values(),
                                 lat.wrong == 0 && lat.checked > 0, facts(lat)));
  }

  void record_sweep(const std::vector<Point>& sweep, const Point& lat, const Point* best) {
    const double latency = lat.ok() ? lat.median : 0;
    const int r = info_.results_per_lane_op;
    for (const Point& p : sweep) {
      json extra = facts(p);
      extra["results_in_flight"] = throughput::results_in_flight(p.warps, p.ilp, r);
      extra["op_rate_gops"] = p.samples.rates().summary().median;
      extra["blocks"] = ctx_.device.sm_count;
      extra["max_blocks_on_one_sm"] = p.samples.max_blocks_on_one_sm;
      add_limit(extra);
      if (best && latency > 0) {
        extra[keys::model] =
            throughput::littles_law_results_per_clock(best->median, p.warps, p.ilp, latency, r);
        extra["model_latency_cycles"] = latency;
        extra["model_peak"] = best->median;
        if (const auto t = theoretical())
          extra["model_theoretical"] =
              throughput::littles_law_results_per_clock(*t, p.warps, p.ilp, latency, r);
      }
      ctx_.record(make_measurement(params(&p), throughput::results_per_clock, p.samples.values(),
                                   p.ok(), std::move(extra)));
    }
  }

  void record_peak(const std::vector<Point>& sweep, const Point& lat,
                   const std::optional<Point>& peak) {
    json extra = {{"instruction", info_.instruction},
                  {"results_per_lane_op", info_.results_per_lane_op}};
    add_limit(extra);
    json rate_extra = extra;
    if (!peak) {
      for (const auto* metric : {&throughput::peak_results_per_clock, &throughput::peak_op_rate}) {
        Measurement m = make_measurement(params(nullptr), *metric, Series(), false, extra);
        m.error = "no sweep point verified";
        ctx_.record(std::move(m));
      }
      return;
    }
    extra.update(facts(*peak));
    extra["winner"] = params(&*peak);
    const double median = peak->median;
    if (const auto t = theoretical()) {
      extra["fraction_of_theoretical"] = median / *t;
      const double gops = *t * ctx_.device.sm_count * ctx_.device.sm_clock_khz * 1e3 / 1e9;
      rate_extra[keys::limit] = gops;
      rate_extra[keys::limit_label] =
          "the table's results per clock per SM x SMs x SM clock (cudaDevAttrClockRate)";
      rate_extra["sm_clock_khz"] = ctx_.device.sm_clock_khz;
      rate_extra["fraction_of_theoretical"] = peak->samples.rates().summary().median / gops;
    }
    std::vector<throughput::SweepPoint> points;
    for (const Point& p : sweep)
      if (p.ok())
        points.push_back({p.warps, p.ilp, p.median});
    if (const auto needed = throughput::in_flight_to_reach(points, throughput::in_flight_fraction,
                                                           info_.results_per_lane_op))
      extra["in_flight_at_90pct"] = *needed;
    if (lat.ok())
      extra["littles_law_in_flight"] = lat.median * median;
    const Series rates = peak->samples.rates();
    const SamplingWindow& window = peak->samples.t.window;
    if (const auto per_watt = throughput::ops_per_watt(rates.summary().median * 1e9, window)) {
      extra["ops_per_watt"] = *per_watt;
      extra["watts"] = *window.energy_j / window.busy_s;
      rate_extra["ops_per_watt"] = *per_watt;
      rate_extra["watts"] = extra["watts"];
    }
    rate_extra.update(facts(*peak));
    rate_extra["winner"] = extra["winner"];
    if (op == OpClass::fp32_fma)
      rate_extra[keys::headline] = true;
    ctx_.record(make_measurement(params(nullptr), throughput::peak_results_per_clock,
                                 peak->samples.values(), peak->ok(), std::move(extra)));
    ctx_.record(make_measurement(params(nullptr), throughput::peak_op_rate, rates, peak->ok(),
                                 std::move(rate_extra)));
  }

  ExperimentContext& ctx_;
  const OpInfo& info_;
  size_t elements_;
  DeviceBuffer<T> in_, out_;
  DeviceBuffer<unsigned long long> clocks_;
  std::vector<unsigned long long> raw_;
  std::vector<uint64_t> inputs_;
  std::map<int, std::vector<uint64_t>> expected_; // by steps
  T a_{}, b_{};
  cudaEvent_t start_{}, stop_{};
  int alone_shared_bytes_ = 0;
};

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  ClassRun<OpClass::fp32_fma>(ctx).run();
  ClassRun<OpClass::fp64_fma>(ctx).run();
  ClassRun<OpClass::fp16x2_fma>(ctx).run();
  ClassRun<OpClass::int32_imad>(ctx).run();
  ClassRun<OpClass::int8_dp4a>(ctx).run();
  ClassRun<OpClass::sfu_rsqrt>(ctx).run();
}

} // namespace

APOD_EXPERIMENT(throughput::experiment, run);

} // namespace apod
