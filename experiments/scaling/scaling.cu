// Amdahl's and Gustafson's laws measured, CUDA C++ Best Practices Guide 3.1.3
// (shared/seeds/000_...). GPU phases are confined to N SMs by green contexts (CUDA 12.4+ driver
// API; green_context.cu) and timed on every partition size:
// - three workload classes (workloads.cuh), each a fixed problem: compute-bound FMA chains,
//   a memory-bound stream, a latency-bound pointer chase; speed-up and efficiency against SM
//   count beside each class's model (linear; SM count x per-SM bandwidth until the DRAM limit;
//   flat);
// - Amdahl (3.1.3.1): a host phase timed on its own and held fixed, plus the compute phase;
// - Gustafson (3.1.3.2): the compute problem grown N-fold, timed on N x the base SMs and, for
//   the numerator, on the base partition itself.
// Shrinking the grid instead of the SMs would measure something else (fewer waves, not fewer
// processors), so where green contexts are missing the experiment is skipped with the reason.
#include "core/experiment.hpp"
#include "core/timing.cuh"
#include "record.hpp"
#include "serial_phase.hpp"
#include "sm_partitions.cuh"
#include "workloads.cuh"

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace apod {
namespace {

using namespace scaling;

constexpr int max_partitions_below_total = 16;
// One-thread blocks, so each warp carries one chain: a warp's load waits for the slowest of its
// lanes, and 32 lanes per warp measured the slowest of 32 DRAM latencies (565-605 ns a link on
// an H100 against 347 ns for one lane). 16 per base SM stay resident on every partition.
constexpr int chase_blocks_per_base_sm = 16;
// Amdahl's serial work besides the reference's: a decade each way (serial_scales in
// record.hpp's amdahl_curve names).
constexpr double other_serial_scales[] = {0.1, 10.0};

struct Sizes {
  double serial_target_ms;  // the host phase
  int fma_iterations;       // per element, compute workloads
  int strong_waves;         // compute: full waves of the whole GPU (a fixed problem)
  int weak_waves;           // Gustafson: full waves of the base partition, grown N-fold
  size_t stream_bytes_each; // memory: each of the two arrays (together at least 1 GiB)
  uint32_t chase_steps;     // latency: links per chain (one lane per warp)
};

// Sized for about 2 s at full size with 16 partitions below 132 SMs (an estimate from the FMA
// rate of the committed H200 runs of version 1, not yet a measurement); --quick far less.
Sizes sizes_for(bool quick) {
  if (quick)
    return {0.2, 512, 8, 16, size_t(128) << 20, 512};
  return {0.5, 2048, 16, 16, size_t(512) << 20, 2048};
}

/// One GPU phase on one partition: what to launch, how to check it, and its samples.
struct Job {
  const SmPartition* part = nullptr;
  std::function<void(cudaStream_t, int)> launch; // int: the launch's index in the run
  std::function<bool(cudaStream_t, int)> verify;
  Series ms;
  bool verified = false;
};

// Repetitions outer, jobs inner: drift in clocks or host load spreads over every point alike,
// and repetition r of every job forms one curve to fit. Every sample is checked by the monitor.
void time_jobs(const SamplingPolicy& policy, std::deque<Job>& jobs) {
  EventPair events;
  int launch = 0;
  const int warmup = std::max(1, policy.warmup), reps = std::max(1, policy.min_samples);
  for (int r = -warmup; r < reps; ++r)
    for (Job& job : jobs) {
      const cudaStream_t stream = job.part->stream();
      events.start(stream);
      job.launch(stream, launch++);
      events.stop(stream);
      const double ms = events.elapsed_ms();
      if (r >= 0)
        job.ms.add(ms, policy.check_sample());
    }
  for (Job& job : jobs)
    job.verified = job.verify(job.part->stream(), launch++);
}

PartitionSeries series_of(const Job& job, int base_sms, json extra = json::object()) {
  const int sms = job.part->sm_count();
  return {sms, double(sms) / base_sms, job.ms, job.verified, std::move(extra)};
}

DramLimit dram_limit(const ExperimentContext& ctx) {
  // The stream workload reads one array and writes another: a copy.
  if (const auto peak = ctx.achievable_peak_gbs(access::copy))
    return {*peak, "peak_copy's achievable copy bandwidth, this run"};
  return {ctx.device.theoretical_bandwidth_gbs(),
          "theoretical DRAM bandwidth (peak_copy did not run before)"};
}

/// Every workload, its jobs on every partition, and the curves they make.
struct Plan {
  Sizes size;
  std::vector<std::unique_ptr<SmPartition>> parts;
  std::unique_ptr<ComputeWorkload> compute;
  std::unique_ptr<StreamWorkload> stream;
  std::unique_ptr<ChaseWorkload> chase;
  std::deque<Job> jobs; // a deque: the curves below point into it
  std::vector<Job*> compute_jobs, stream_jobs, chase_jobs, grown_on_base, grown_jobs;
  size_t strong_elements = 0, weak_base_elements = 0;

  int base_sms() const { return parts.front()->sm_count(); }
  int total_sms() const { return parts.back()->sm_count(); }
  size_t grown_elements(const SmPartition& p) const {
    return weak_base_elements / base_sms() * p.sm_count();
  }
  Job* add(const SmPartition* part, std::function<void(cudaStream_t, int)> launch,
           std::function<bool(cudaStream_t, int)> verify) {
    jobs.push_back({part, std::move(launch), std::move(verify)});
    return &jobs.back();
  }
};

void add_compute_jobs(Plan& plan) {
  ComputeWorkload& c = *plan.compute;
  const auto fixed = [&c, n = plan.strong_elements](cudaStream_t s, int) { c.launch(s, n); };
  const auto check = [&c, n = plan.strong_elements](cudaStream_t s, int) { return c.verify(s, n); };
  for (const auto& part : plan.parts)
    plan.compute_jobs.push_back(plan.add(part.get(), fixed, check));
  // Gustafson: the problem grown with the partition, on the partition and on the base.
  for (const auto& part : plan.parts) {
    const size_t n = plan.grown_elements(*part);
    const auto grown = [&c, n](cudaStream_t s, int) { c.launch(s, n); };
    const auto grown_check = [&c, n](cudaStream_t s, int) { return c.verify(s, n); };
    Job* on_part = plan.add(part.get(), grown, grown_check);
    plan.grown_jobs.push_back(on_part);
    // On the base partition itself the two are one job: S = 1 exactly.
    plan.grown_on_base.push_back(part == plan.parts.front()
                                     ? on_part
                                     : plan.add(plan.parts.front().get(), grown, grown_check));
  }
}

void add_memory_and_latency_jobs(Plan& plan) {
  StreamWorkload& m = *plan.stream;
  ChaseWorkload& l = *plan.chase;
  for (const auto& part : plan.parts) {
    plan.stream_jobs.push_back(plan.add(
        part.get(), [&m](cudaStream_t s, int) { m.launch(s); },
        [&m](cudaStream_t s, int) { return m.verify(s); }));
    plan.chase_jobs.push_back(plan.add(
        part.get(), [&l](cudaStream_t s, int i) { l.launch(s, i); },
        [&l](cudaStream_t s, int i) { return l.verify(s, i); }));
  }
}

Plan make_plan(const ExperimentContext& ctx, json& facts) {
  Plan plan{sizes_for(ctx.options.quick)};
  // Quick: the two smallest partitions and all SMs; full: up to 16 sizes below the total.
  plan.parts = sm_partitions(ctx.device.ordinal, ctx.options.quick ? 2 : max_partitions_below_total,
                             ctx.options.quick, facts);
  if (plan.parts.size() < 3)
    throw ExperimentSkipped("green contexts gave fewer than 2 SM partitions below the total");
  const Sizes& z = plan.size;
  // Sized in waves of whole SMs, so the base partition and the whole GPU both run full waves.
  const size_t wave = ComputeWorkload::elements_per_sm_wave();
  plan.strong_elements = wave * plan.total_sms() * z.strong_waves;
  plan.weak_base_elements = wave * plan.base_sms() * z.weak_waves;
  const size_t max_elements =
      std::max(plan.strong_elements, plan.grown_elements(*plan.parts.back()));
  plan.compute = std::make_unique<ComputeWorkload>(max_elements, z.fma_iterations);
  plan.stream = std::make_unique<StreamWorkload>(z.stream_bytes_each);
  plan.chase =
      std::make_unique<ChaseWorkload>(chase_blocks_per_base_sm * plan.base_sms(), z.chase_steps);
  add_compute_jobs(plan);
  add_memory_and_latency_jobs(plan);
  return plan;
}

std::vector<PartitionSeries> curve_of(const std::vector<Job*>& jobs, int base_sms,
                                      const json& extra) {
  std::vector<PartitionSeries> out;
  for (const Job* job : jobs)
    out.push_back(series_of(*job, base_sms, extra));
  return out;
}

void record_phases(ExperimentContext& ctx, const Plan& plan) {
  const int base = plan.base_sms();
  const auto compute = curve_of(
      plan.compute_jobs, base,
      json({{"elements", plan.strong_elements}, {"iterations", plan.compute->iterations()}}));
  std::vector<double> linear, flat;
  for (const auto& p : compute)
    linear.push_back(p.n), flat.push_back(1.0);
  record_phase_curve(ctx, "compute", compute, linear);

  const auto memory =
      curve_of(plan.stream_jobs, base, json({{"bytes_each", plan.size.stream_bytes_each}}));
  const DramLimit limit = dram_limit(ctx);
  const BandwidthModel model = memory_model(memory.front(), plan.stream->bytes_moved(), limit);
  std::vector<double> modelled;
  for (const auto& p : memory)
    modelled.push_back(model.speedup(p.sm_count));
  record_phase_curve(ctx, "memory", memory, modelled);
  record_memory_bandwidth(ctx, memory, plan.stream->bytes_moved(), limit,
                          ctx.device.theoretical_bandwidth_gbs());

  auto latency = curve_of(plan.chase_jobs, base,
                          json({{"chains", plan.chase->chains()},
                                {"links_per_chain", plan.chase->steps()},
                                {"table_bytes", plan.chase->table_bytes()}}));
  for (auto& p : latency) { // the latency each link costs: DRAM plus any TLB miss
    p.extra["ns_per_link_median"] = p.ms.summary().median * 1e6 / plan.chase->steps();
    p.extra["lanes_per_warp"] = 1;
  }
  record_phase_curve(ctx, "latency", latency, flat);
}

void record_laws(ExperimentContext& ctx, const Plan& plan, const Series& serial_ms,
                 const std::vector<SerialLevel>& other_serial, const json& facts) {
  const int base = plan.base_sms();
  const double serial = serial_ms.summary().median;
  const json strong = json({{"elements", plan.strong_elements}});
  LawInputs amdahl{
      ScalingLaw::amdahl, serial, {}, curve_of(plan.compute_jobs, base, strong), facts};
  amdahl.base.assign(amdahl.points.size(), amdahl.points.front());
  amdahl.other_serial = other_serial;
  record_law(ctx, amdahl);

  LawInputs gustafson{ScalingLaw::gustafson, serial, {}, {}, facts};
  for (size_t i = 0; i < plan.grown_jobs.size(); ++i) {
    const json grown = json({{"elements", plan.grown_elements(*plan.parts[i])}});
    gustafson.points.push_back(series_of(*plan.grown_jobs[i], base, grown));
    gustafson.base.push_back(series_of(*plan.grown_on_base[i], base, grown));
  }
  record_law(ctx, gustafson);
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  APOD_CUDA(cudaFree(nullptr)); // the primary context first, as cuGreenCtxCreate advises
  json facts;
  Plan plan = make_plan(ctx, facts);
  facts["resident_blocks_per_sm"] = ComputeWorkload::resident_blocks_per_sm();

  const SerialPhase serial(plan.size.serial_target_ms);
  const Series serial_ms = serial.sample(std::max(10, ctx.options.sampling.min_samples));
  plan.compute->set_multiplier(1.0f - float(serial.run().mean) * 1e-3f);
  facts["serial_elements"] = serial.elements();

  // The same host work at other lengths, each timed alone like the reference: the speed-ups
  // they give with the same GPU times test whether one P explains every serial fraction.
  std::vector<SerialLevel> other_serial;
  std::vector<std::pair<Series, size_t>> other_samples;
  for (const double scale : other_serial_scales) {
    const SerialPhase other(plan.size.serial_target_ms * scale);
    other_samples.push_back(
        {other.sample(std::max(10, ctx.options.sampling.min_samples)), other.elements()});
    other_serial.push_back({scale, other_samples.back().first.summary().median});
  }

  time_jobs(ctx.options.sampling, plan.jobs);
  record_serial_phase(ctx, serial_ms, serial.elements());
  for (size_t i = 0; i < other_serial.size(); ++i)
    record_serial_phase(ctx, other_samples[i].first, other_samples[i].second,
                        other_serial[i].scale);
  record_phases(ctx, plan);
  record_laws(ctx, plan, serial_ms, other_serial, facts);
}

} // namespace

APOD_EXPERIMENT(scaling::experiment, run);

} // namespace apod
