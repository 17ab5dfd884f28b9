// occupancy's declaration: achieved against theoretical occupancy (the occupancy API, and apod's
// own arithmetic held equal to it) across registers per thread, block size at the guide's 37
// registers, and dynamic shared memory, with the bandwidth each reaches; and the cost of spills
// forced by a register cap.
#include "declaration.hpp"

#include "core/series.hpp"
#include "model.hpp"

namespace apod::occupancy {

const std::vector<int>& held_register_counts() {
  static const std::vector<int> all = {0, 8, 16, 24, 32, 48, 64, 96, 128, 192};
  return all;
}

const std::vector<int>& spill_min_blocks() {
  static const std::vector<int> all = {1, 4, 8};
  return all;
}

std::vector<Shape> shapes(bool quick, bool full, int64_t shared_per_block) {
  std::vector<Shape> out;
  const std::vector<int> held = quick  ? std::vector<int>{0, 16, 64, 192}
                                : full ? held_register_counts()
                                       : std::vector<int>{0, 16, 24, 32, 48, 64, 96, 192};
  for (int h : held)
    out.push_back({registers_study, 256, h, 0, 0});
  const std::vector<int> blocks =
      quick  ? std::vector<int>{128, 320}
      : full ? std::vector<int>{64, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024}
             : std::vector<int>{64, 128, 256, 320, 512, 640, 1024};
  for (int b : blocks)
    out.push_back({guide_study, b, guide_held_registers, 0, 0});
  const std::vector<int> kib = quick  ? std::vector<int>{0, 48}
                               : full ? std::vector<int>{0, 16, 32, 48, 72, 96, 112, 160, 200}
                                      : std::vector<int>{0, 32, 48, 72, 112, 200};
  for (int k : kib)
    if (shared_per_block == 0 || int64_t(k) * 1024 <= shared_per_block)
      out.push_back({shared_study, 256, 0, k, 0});
  for (int m : quick ? std::vector<int>{1, 8} : spill_min_blocks())
    out.push_back({spill_study, 256, 0, 0, m});
  return out;
}

namespace {

json params_of(const Shape& s) {
  return {{study.key, s.study},
          {block_size.key, s.block_size},
          {held_registers.key, s.held_registers},
          {shared_kib.key, s.shared_kib},
          {min_blocks.key, s.min_blocks}};
}

std::vector<PlannedPoint> plan(const PlanInput& in) {
  const auto limits = sm_limits(in.device.cc_major, in.device.cc_minor);
  std::vector<PlannedPoint> points;
  for (const Shape& s : shapes(in.quick, in.full, limits ? limits->shared_bytes_per_block : 0)) {
    PlannedPoint p{params_of(s),
                   {s.study == spill_study ? flop_rate.name : metrics::effective_bandwidth.name,
                    achieved.name, theoretical.name}};
    if (!limits && s.shared_kib > 48)
      p.when = "the device allows this much dynamic shared memory per block (opt-in)";
    points.push_back(std::move(p));
  }
  return points;
}

Chart occupancy_chart(const Param& x, const char* where, std::string caption,
                      std::string explanation) {
  Chart c = Chart::sweep_of(achieved)
                .along(x)
                .only_where(study, where)
                .model(theoretical, "theoretical (occupancy API = apod's arithmetic)");
  c.mark = "point";
  c.y_title = "occupancy (resident warps / max warps per SM)";
  c.says(std::move(caption), {std::move(explanation)});
  return c;
}

Chart guide_chart() {
  Chart c = occupancy_chart(
      block_size, guide_study,
      "The guide's worked example on this device: occupancy against block size at 33-40 "
      "registers per thread",
      "Best Practices Guide 10.1.1: on compute capability 7.0, 37 registers per thread give 12 "
      "resident 128-thread blocks (75%) but 4 320-thread blocks (63%), registers being allocated "
      "per warp in units of 256 (37 x 32 = 1184 -> 1280). Every count from 33 to 40 rounds to "
      "the same 1280 registers per warp, so the kernel here (its registers per thread in each "
      "row) reproduces the example on any SM with 64 Ki registers and 64 warps; the guide's "
      "figures are drawn as published. Dashed: the occupancy API, which apod's own arithmetic "
      "equals at every point (a point where they differ fails). Dots: achieved occupancy, each "
      "warp's resident cycles on its SM over the SM's busy cycles. The traces also show the "
      "most warps resident at once on an SM (in each point's row): with 320-thread blocks "
      "the first H100 run saw 48, not the API's 4 x 10 = 40: a block starts while the last "
      "warps of another still run, registers being held per warp.");
  c.published_metrics = {theoretical.name};
  return c;
}

Chart bandwidth_chart(const Param& x, const char* where, std::string caption) {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth).along(x).only_where(study, where);
  c.mark = "point";
  c.says(std::move(caption),
         {"A copy of one float4 per thread (64 MiB each way), so the loads in flight, and the "
          "bandwidth (Little's law), follow the resident warps until DRAM is saturated; the "
          "guide (10.1): 'higher occupancy does not always equate to higher performance', but "
          "'low occupancy always interferes with the ability to hide memory latency'."});
  return c;
}

Chart spill_chart() {
  Chart c = Chart::sweep_of(flop_rate).along(min_blocks).only_where(study, spill_study);
  c.mark = "bar";
  c.says("FMA rate of 64 independent FMA chains per thread against the __launch_bounds__ "
         "minimum blocks per SM that caps its registers",
         {"Best Practices Guide 9.2.7.1 (register pressure) and 9.2.4 (local memory): "
          "__launch_bounds__(256, n) caps the registers at 64 Ki / (256 n), 255, 64 and 32 for "
          "n = 1, 4, 8; under 64 chains plus addresses the compiler spills the chains to local "
          "memory (local bytes per thread in each row), and every step loads and stores them. "
          "Higher occupancy does not buy back the spill traffic. Outputs of every variant are "
          "compared exactly with the host's chains. Limit: FP32 lanes per SM x SMs x SM clock "
          "x 2."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Occupancy: theoretical against achieved, registers, shared memory and spills",
    .description =
        "Theoretical occupancy of each launch from the occupancy API "
        "(cudaOccupancyMaxActiveBlocksPerMultiprocessor) and from apod's own arithmetic "
        "(model.cpp: registers per warp rounded up to 256, whole warps per sub-partition of the "
        "64 Ki register file, max threads, blocks and shared memory per SM with its 128-byte "
        "unit and the 1 KiB reserved per block; the Programming Guide's compute-capability "
        "table), the two required equal at every point. Achieved occupancy measured on the "
        "device: in three extra launches each warp records its SM (%smid) and the SM's clock64 "
        "at its start and after its last store; per SM, the warps' resident cycles over the "
        "SM's busy cycles is the mean resident warps, over the max warps per SM (three "
        "samples). The launches: a copy of one float4 per thread (64 MiB each way, verified "
        "word by word) whose kernels hold 0 to 192 extra registers live across the copy "
        "(template instances, registers per thread from cudaFuncGetAttributes in each row) at "
        "256 threads per block; the guide's 10.1.1 example, the kernel of 36 registers (33-40 "
        "give the same 1280 registers per warp as the guide's 37) at block sizes 64 to 1024, "
        "with the guide's 37-register arithmetic for this device's limits in each row; the "
        "copy with 0 to 200 KiB of dynamic shared memory per block; and 64 independent FP32 "
        "FMA chains per thread under __launch_bounds__(256, n), n = 1, 4, 8, whose register "
        "caps force spills (local bytes per thread from the attributes), its FLOP rate against "
        "the unspilled variant's and every output compared exactly with the host's chains.",
    .citation = "CUDA C++ Best Practices Guide (seed 000): 10.1 Occupancy, 10.1.1 Calculating "
                "Occupancy, 9.2.7.1 Register Pressure, 9.2.4 Local Memory; CUDA C++ Programming "
                "Guide, Technical Specifications per Compute Capability; the toolkit's "
                "cuda_occupancy.h (allocation granularities)",
    .version = 1,
    .order = 110,
    .chapter = Chapter::concurrency_launch,
    .params = {study, block_size, held_registers, shared_kib, min_blocks},
    .metrics = {metrics::effective_bandwidth, flop_rate, achieved, theoretical},
    .extras = {{"elements_wrong", "outputs that differed from the host's answer"},
               {"registers_per_thread", "registers per thread (cudaFuncGetAttributes)"},
               {"local_bytes_per_thread",
                "local (spill) memory per thread (cudaFuncGetAttributes)"},
               {"api_blocks_per_sm", "resident blocks per SM, occupancy API"},
               {"model_blocks_per_sm", "resident blocks per SM, apod's arithmetic"},
               {"model_occupancy", "theoretical occupancy, apod's arithmetic"},
               {"model_limiter", "the resource that bounds the blocks (apod's arithmetic)"},
               {"model_registers_per_warp", "registers allocated per warp (rounded to 256)"},
               {"model_shared_per_block", "shared bytes allocated per block (with reserve)"},
               {"model_agrees_with_api", "apod's blocks per SM equal the occupancy API's"},
               {"model_warp_capacity", "most warps resident at once, blocks partly done"},
               {"table_agrees_with_device", "the compute-capability table equals the attributes"},
               {"guide_37_registers", "the guide's 37 registers at this block size here"},
               {"in_guide_register_band", "33-40 registers: the guide's 1280 per warp"},
               {"max_resident_warps_seen", "most warps resident at once on one SM (traces)"},
               {"sms_traced", "SMs that ran a traced warp"},
               {"grid_size", "blocks of the launch"},
               {"waves", "blocks over resident blocks per SM x SMs"},
               {"median_time_ms", "median kernel time"},
               {"slowdown_vs_unspilled", "time over the uncapped variant's"},
               {"fraction_of_achievable_peak", "bandwidth over the run's copy peak"},
               {"steps", "FMA steps per chain"},
               {"kernel", "the launch's kernel facts"}},
    .headline = achieved.name,
    .charts = {guide_chart(),
               occupancy_chart(held_registers, registers_study,
                               "Occupancy against the registers each thread holds (copy, 256 "
                               "threads per block)",
                               "Each kernel holds 0 to 192 registers live across its copy; "
                               "the compiler's registers per thread are in each row. Dashed: "
                               "theoretical (the API; apod's arithmetic equals it). Dots: "
                               "achieved occupancy from the warps' residency traces."),
               bandwidth_chart(held_registers, registers_study,
                               "Copy bandwidth against the registers each thread holds"),
               occupancy_chart(shared_kib, shared_study,
                               "Occupancy against dynamic shared memory per block (copy, 256 "
                               "threads per block)",
                               "Each block asks for this much dynamic shared memory (unused), "
                               "plus 1 KiB the driver reserves per block on 8.0 and later, "
                               "rounded to 128 bytes: the SM's 228 KiB (9.0) over that. Dashed: "
                               "theoretical; dots: achieved."),
               bandwidth_chart(shared_kib, shared_study,
                               "Copy bandwidth against dynamic shared memory per block"),
               spill_chart()},
    .plan = plan,
});

} // namespace apod::occupancy
