// Cache bandwidth by level: read bandwidth against the working set from 16 KiB to 4x the L2, so
// the L1, L2 and DRAM plateaus and the "L2 cliff" (the fall once the set passes the L2) show, as
// gpu-benches (Ernst et al.: gpu-cache, gpu-l2-cache), Chips and Cheese and the Hopper
// microbenchmarking papers draw them; write bandwidth at L2-resident and DRAM sets. Each level is
// hit on purpose (kernels.cuh): within the L1, every block rereads the whole set through the L1
// (per_sm_read); for the L2 and DRAM, the whole grid reads one set once per lap with the L1
// bypassed (gpu_read), so a byte comes back a whole set later: from the L2 while the set fits
// it. The levels' sizes and plateau bandwidths are read off the curves by memory_latency's
// segmentation (sweep.hpp) and stored beside its latency ladder (detected_size_bytes), the DRAM
// plateau against the theoretical bandwidth (Best Practices Guide 8.2.1).
#include "core/cuda_memory.cuh"
#include "core/device_check.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"
#include "declaration.hpp"
#include "kernels.cuh"
#include "levels.hpp"
#include "sweep.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace apod {
namespace {

using namespace cache_bw;

constexpr uint64_t data_seed = 0xCAC4EB1D;
// Bytes a sample moves at least: 4 GiB is ~150 us at an H200's L1 rate (29 TB/s), 2 GiB ~0.45 ms
// from its DRAM: long against the events' resolution and launch gaps (half these left the
// samples 1% apart), short against the 1.5 s budget (the whole experiment took 0.6 s on an H200
// with half of them).
constexpr uint64_t per_sm_target_bytes = uint64_t(4) << 30;
constexpr uint64_t gpu_target_bytes = uint64_t(2) << 30;
constexpr uint64_t quick_target_bytes = uint64_t(256) << 20;
constexpr uint8_t poison = 0xA5;

// The 32-bit sums of the set's words (fill_value, truncated) over its first n elements, for each
// n asked, in one parallel pass over the largest: the answer every block's or grid's sum is
// checked against.
std::map<size_t, uint32_t> set_sums(std::vector<size_t> elements) {
  std::sort(elements.begin(), elements.end());
  elements.erase(std::unique(elements.begin(), elements.end()), elements.end());
  std::map<size_t, uint32_t> sums;
  uint32_t running = 0;
  size_t done = 0; // words summed so far
  for (const size_t n : elements) {
    const size_t words = 4 * n;
    running += uint32_t(parallel_count(words - done, [&](size_t b, size_t e) {
      uint32_t s = 0;
      for (size_t i = done + b; i < done + e; ++i)
        s += expected_fill<uint32_t>(data_seed, i);
      return size_t(s);
    }));
    done = words;
    sums[n] = running;
  }
  return sums;
}

// A recorded sweep point: its bandwidth samples and whether its output checked.
struct Point {
  Series gbs;
  bool ok = false;
};

class Sweep {
public:
  Sweep(ExperimentContext& ctx, size_t max_bytes, const std::map<size_t, uint32_t>& sums)
      : ctx_(ctx), set_(max_bytes / load_bytes), sums_(sums) {
    APOD_CUDA(cudaFuncSetAttribute(per_sm_read_kernel,
                                   cudaFuncAttributePreferredSharedMemoryCarveout,
                                   int(cudaSharedmemCarveoutMaxL1)));
    int resident = 0;
    APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, per_sm_read_kernel,
                                                            block_size, 0));
    blocks_per_sm_ = uint32_t(std::max(1, resident));
    grid_ = resident_grid(per_sm_read_kernel);
    APOD_CUDA(cudaMemset(claims_.get(), 0, claims_.bytes()));
    gpu_grid_ = std::max(resident_grid(gpu_read_kernel), resident_grid(gpu_write_kernel));
    block_sums_ = DeviceBuffer<unsigned>(std::max(grid_, gpu_grid_));
    fill_device(reinterpret_cast<uint32_t*>(set_.get()), 4 * set_.size(), data_seed);
    APOD_CUDA(cudaDeviceSynchronize());
    target_ = ctx.options.quick ? quick_target_bytes : 0;
    l2_ = l2_bytes_of(ctx.device);
  }

  Point per_sm_point(size_t bytes) {
    const auto elements = uint32_t(bytes / load_bytes);
    const uint64_t passes = per_sm_passes(bytes, grid_, target_ ? target_ : per_sm_target_bytes);
    const uint32_t per_launch = uint32_t(passes) * sums_.at(elements);
    const TimedSamples t = timed([&](cudaStream_t s) {
      per_sm_read_kernel<<<grid_, block_size, 0, s>>>(
          set_.get(), elements, uint32_t(passes), blocks_per_sm_, claims_.get(), block_sums_.get());
    });
    // Every block read the set passes x launches times: each slot holds that many set sums.
    const std::vector<unsigned> got = block_sums(grid_);
    const uint32_t expected = uint32_t(launches_) * per_launch;
    const auto wrong =
        std::count_if(got.begin(), got.end(), [&](unsigned s) { return s != expected; });
    json extra = {{"load", "ld.global.ca.v4.u32"},
                  {"elements", elements},
                  {"passes", passes},
                  {"carveout_percent", 0},
                  {"blocks_per_sm", blocks_per_sm_},
                  {"sum_expected", per_launch},
                  {"sums_wrong", wrong},
                  {keys::launch, kernel_facts(per_sm_read_kernel, block_size, grid_)}};
    return record(per_sm_read, bytes, double(grid_) * double(passes) * double(bytes), t, wrong == 0,
                  std::move(extra));
  }

  Point gpu_read_point(size_t bytes) {
    const auto elements = uint32_t(bytes / load_bytes);
    const uint64_t laps = gpu_laps(bytes, target_ ? target_ : gpu_target_bytes);
    const uint64_t total = laps * elements;
    const uint32_t step = grid_step(gpu_grid_, elements);
    const uint32_t per_launch = uint32_t(laps) * sums_.at(elements);
    const TimedSamples t = timed([&](cudaStream_t s) {
      gpu_read_kernel<<<gpu_grid_, block_size, 0, s>>>(set_.get(), elements, total, step,
                                                       block_sums_.get());
    });
    // The grid read every element laps x launches times; the blocks' slots add up to that.
    uint32_t sum = 0;
    for (unsigned s : block_sums(gpu_grid_))
      sum += s;
    const bool right = sum == uint32_t(launches_) * per_launch;
    json extra = {{"load", "ld.global.cg.v4.u32"},
                  {"elements", elements},
                  {"laps", laps},
                  {"sum_expected", per_launch},
                  {"sums_wrong", right ? 0 : 1},
                  {keys::launch, kernel_facts(gpu_read_kernel, block_size, gpu_grid_)}};
    if (bytes >= size_t(2 * l2_)) // clear of the L2's leftovers: read against DRAM's limit
      extra[keys::limit_gbs] = ctx_.device.theoretical_bandwidth_gbs();
    if (bytes == headline_bytes())
      extra[keys::headline] = true;
    return record(gpu_read, bytes, double(total) * load_bytes, t, right, std::move(extra));
  }

  Point gpu_write_point(size_t bytes) {
    const auto elements = uint32_t(bytes / load_bytes);
    const uint64_t laps = gpu_laps(bytes, target_ ? target_ : gpu_target_bytes);
    const uint64_t total = laps * elements;
    const uint32_t step = grid_step(gpu_grid_, elements);
    const WrittenWord rule{uint32_t(bytes) ^ 0x5A5A0F0Fu};
    APOD_CUDA(cudaMemset(set_.get(), poison, bytes));
    const TimedSamples t = timed([&](cudaStream_t s) {
      gpu_write_kernel<<<gpu_grid_, block_size, 0, s>>>(set_.get(), elements, total, step,
                                                        rule.key);
    });
    const OutputCheck check =
        check_output(reinterpret_cast<const uint32_t*>(set_.get()), size_t(4) * elements, rule);
    json extra = check.facts();
    extra.update({{"load", "st.global.v4.u32"},
                  {"elements", elements},
                  {"laps", laps},
                  {keys::launch, kernel_facts(gpu_write_kernel, block_size, gpu_grid_)}});
    if (bytes >= size_t(2 * l2_))
      extra[keys::limit_gbs] = ctx_.device.theoretical_bandwidth_gbs();
    return record(gpu_write, bytes, double(total) * load_bytes, t, check.ok(), std::move(extra));
  }

  /// The gpu_read set that stands for the experiment: the one nearest a quarter of the L2 (the
  /// near partition's plateau on Hopper, inside the L2 on every GPU).
  size_t headline_bytes() const {
    const std::vector<size_t> sets = working_sets(gpu_read, shared_bytes_of(ctx_.device), l2_,
                                                  ctx_.options.quick, ctx_.options.full);
    return *std::min_element(sets.begin(), sets.end(), [&](size_t a, size_t b) {
      return std::abs(double(a) - l2_ / 4.0) < std::abs(double(b) - l2_ / 4.0);
    });
  }

private:
  template <class Kernel> unsigned resident_grid(Kernel kernel) const {
    int resident = 0;
    APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, block_size, 0));
    return unsigned(std::max(1, resident) * std::max(1, ctx_.device.sm_count));
  }

  static uint32_t grid_step(unsigned grid, uint32_t elements) {
    return uint32_t((uint64_t(grid) * block_size) % elements);
  }

  // Fixed-count samples (every point has as many, so sample r of each makes curve r), no L2
  // flush: the set is meant to be where the last sample left it. Counts the launches.
  template <class Launch> TimedSamples timed(Launch&& launch) {
    APOD_CUDA(cudaMemset(block_sums_.get(), 0, block_sums_.bytes()));
    launches_ = 0;
    return time_fixed_ms(ctx_.options.sampling, nullptr, [&](cudaStream_t s) {
      launch(s);
      APOD_CUDA_LAUNCH();
      ++launches_;
    });
  }

  std::vector<unsigned> block_sums(unsigned grid) const {
    std::vector<unsigned> out(grid);
    APOD_CUDA(
        cudaMemcpy(out.data(), block_sums_.get(), grid * sizeof(unsigned), cudaMemcpyDeviceToHost));
    return out;
  }

  Point record(const char* p, size_t bytes, double bytes_moved, const TimedSamples& t,
               bool verified, json extra) {
    const Series gbs = bandwidth_gbs(Series(t), bytes_moved);
    extra[keys::bytes_moved] = bytes_moved;
    extra[keys::seed] = data_seed;
    extra[over_l2_key] = int64_t(bytes) > l2_;
    ctx_.record(make_measurement({{pattern.key, p}, {working_set.key, bytes}}, bandwidth, gbs,
                                 verified, std::move(extra)));
    return {gbs, verified};
  }

  ExperimentContext& ctx_;
  DeviceBuffer<uint4> set_;
  const std::map<size_t, uint32_t>& sums_;
  DeviceBuffer<unsigned> block_sums_;
  DeviceBuffer<unsigned> claims_{1024}; // one counter per %smid (below %nsmid, under 1024)
  unsigned grid_ = 0, gpu_grid_ = 0;
  uint32_t blocks_per_sm_ = 1;
  uint64_t target_ = 0;
  int64_t l2_ = 0;
  uint64_t launches_ = 0;
};

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const bool quick = ctx.options.quick, full = ctx.options.full;
  const int64_t shared = shared_bytes_of(ctx.device), l2 = l2_bytes_of(ctx.device);
  Curve per_sm{working_sets(per_sm_read, shared, l2, quick, full)};
  Curve gpu{working_sets(gpu_read, shared, l2, quick, full)};
  const std::vector<size_t> writes = working_sets(gpu_write, shared, l2, quick, full);

  std::vector<size_t> elements;
  for (const std::vector<size_t>* sets : {&per_sm.bytes, &gpu.bytes})
    for (size_t b : *sets)
      elements.push_back(b / load_bytes);
  const std::map<size_t, uint32_t> sums = set_sums(elements);
  const size_t largest = std::max({per_sm.bytes.back(), gpu.bytes.back(), writes.back()});
  Sweep sweep(ctx, largest, sums);

  for (const size_t bytes : per_sm.bytes) {
    const Point p = sweep.per_sm_point(bytes);
    per_sm.add(p.gbs, p.ok);
  }
  for (const size_t bytes : gpu.bytes) {
    const Point p = sweep.gpu_read_point(bytes);
    gpu.add(p.gbs, p.ok);
  }
  for (const size_t bytes : writes) // last: the stores overwrite the set the reads checked
    sweep.gpu_write_point(bytes);
  if (!quick)
    record_levels(ctx, per_sm, gpu);
}

} // namespace

APOD_EXPERIMENT(cache_bw::experiment, run);

} // namespace apod
