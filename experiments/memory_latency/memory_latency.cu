// Memory latency by pointer chase, the latency ladder: one thread, pinned to one SM, follows a
// random cyclic chain (one node per 128-byte line, in an order drawn from a recorded seed:
// chain.hpp) through working sets from inside the L1 to twice the L2. Every sample is a full lap
// of its set (ladder.hpp), so each line was last touched a whole lap earlier and a set larger
// than a cache cannot hide in it: the L1, the L2's near and far partitions and DRAM each show as
// a plateau, and the plateaus' extents are detected from the curve and stored
// (detected_size_bytes). The method is the fine-grained pointer chase of Jia et al.,
// "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking" (2018) and of gpu-benches'
// gpu-latency (H100: ~475 cycles for the far L2 beyond ~25 MB). Stich's slides put global-memory
// latency at 400-800 cycles on GT200; littles_law reads this experiment's DRAM figure.
#include "chain.hpp"
#include "chase.cuh"
#include "core/cuda_check.cuh"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "declaration.hpp"
#include "ladder.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace apod {
namespace {

constexpr uint64_t seed = 0x1A7E4C7; // each working set's chain: seed XOR its size in bytes
constexpr int samples_per_set = 3;   // each a full lap of up to 0.8 M loads: the spread is small

void record_pair(ExperimentContext& ctx, const json& params, const ChaseFigures& f,
                 const json& extra) {
  ctx.record(make_measurement(params, latency::ns, f.ns_per_step, f.verified, extra));
  ctx.record(make_measurement(params, latency::cycles, f.cycles_per_step, f.verified, extra));
}

json plateaus_json(const std::vector<Plateau>& plateaus) {
  json out = json::array();
  for (const Plateau& p : plateaus)
    out.push_back({{"latency_cycles", p.latency},
                   {"first_bytes", p.first_bytes},
                   {"last_bytes", p.last_bytes},
                   {"next_bytes", p.next_bytes}});
  return out;
}

// The detected sizes: one detection per repetition (sample r of every set makes curve r), so
// the stored size has samples like any figure; the detection of the medians goes in extra.
void record_levels(ExperimentContext& ctx, const std::vector<size_t>& sets,
                   const std::vector<Series>& cycles, bool verified) {
  const int64_t l2 = ctx.device.l2_bytes;
  std::vector<double> medians;
  for (const Series& s : cycles)
    medians.push_back(s.summary().median);
  const std::vector<Plateau> plateaus = detect_plateaus(sets, medians);
  const LadderLevels of_medians = name_levels(plateaus, l2);
  std::map<std::string, std::vector<double>> per_repetition;
  std::vector<uint8_t> flags;
  for (size_t r = 0; r < cycles.front().size(); ++r) {
    std::vector<double> curve;
    uint8_t flag = 0;
    for (const Series& s : cycles)
      curve.push_back(s.values().at(r)), flag |= s.flag(r);
    const LadderLevels l = name_levels(detect_plateaus(sets, curve), l2);
    per_repetition["l1"].push_back(double(l.l1_bytes));
    per_repetition["l2_near"].push_back(double(l.l2_near_bytes));
    per_repetition["l2"].push_back(double(l.l2_bytes));
    flags.push_back(flag);
  }
  const json extra = {
      {"plateaus", plateaus_json(plateaus)},
      {"plateaus_found", of_medians.plateaus},
      {"dram_found", of_medians.dram_found},
      {"of_medians",
       {{"l1", of_medians.l1_bytes},
        {"l2_near", of_medians.l2_near_bytes},
        {"l2", of_medians.l2_bytes}}},
      {"device_l2_bytes", l2},
      {"detected_as", "the largest set on the level's plateau (ladder.hpp detect_plateaus)"}};
  for (const char* level : {"l1", "l2_near", "l2"}) {
    Measurement m =
        make_measurement({{latency::level.key, level}}, latency::detected_size,
                         Series(per_repetition[level], flags, stop_fixed, false), verified, extra);
    if (of_medians.plateaus == 0 || (std::string(level) != "l1" && of_medians.l2_bytes == 0) ||
        (std::string(level) == "l2_near" && of_medians.l2_near_bytes == 0))
      m.error = std::string("no ") + level + " plateau found in the curve";
    ctx.record(std::move(m));
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  int shared_per_sm = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                   ctx.device.ordinal));
  const bool quick = ctx.options.quick;
  const int64_t l2 = ctx.device.l2_bytes;
  const std::vector<size_t> sets = ladder_working_sets(shared_per_sm, l2, quick);
  const std::vector<LadderProbe> probes = ladder_probes(shared_per_sm, l2);
  PointerChase chase(sets.back());
  const LapPlan plan{quick ? 4096u : 16384u, samples_per_set};

  std::vector<Series> cycles;
  bool verified = true;
  for (const size_t bytes : sets) {
    const ChaseFigures f = chase.measure_laps(bytes, seed ^ bytes, plan, ctx.options.sampling);
    json extra = f.facts;
    extra["experiment_seed"] = seed;
    record_pair(ctx,
                {{latency::level.key, latency::sweep_level}, {latency::working_set.key, bytes}}, f,
                extra);
    cycles.push_back(f.cycles_per_step);
    verified = verified && f.verified;
    for (const LadderProbe& probe : probes)
      if (probe.bytes == bytes) {
        extra[keys::headline] = std::string(probe.level) == latency::dram_level;
        record_pair(ctx, {{latency::level.key, probe.level}, {latency::working_set.key, bytes}}, f,
                    extra);
      }
  }
  if (!quick)
    record_levels(ctx, sets, cycles, verified);
}

} // namespace

APOD_EXPERIMENT(latency::experiment, run);

} // namespace apod
