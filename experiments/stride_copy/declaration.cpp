// stride_copy's declaration: the guide's strided copy beside a saturating one, each with the
// sector model (64-byte DRAM reads, per-access row costs from calibrations at the same spacing,
// scaled from a DRAM-bound copy), and the calibrations themselves.
#include "declaration.hpp"

#include "core/series.hpp"
#include "memory_latency/declaration.hpp"

namespace apod::stride_copy {

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points = {
      {{{kernel.key, peak}, {stride.key, 1}}, {metrics::effective_bandwidth.name}}};
  for (const char* k : {gather, scatter, saturating, guide})
    for (const int s : strides)
      points.push_back({{{kernel.key, k}, {stride.key, s}}, {metrics::effective_bandwidth.name}});
  for (const char* k : {gather_fetch_32, saturating_fetch_32})
    points.push_back({{{kernel.key, k}, {stride.key, probe_stride}},
                      {metrics::effective_bandwidth.name},
                      "the device has cudaLimitMaxL2FetchGranularity"});
  return points;
}

const char* model_sentence =
    "Dashed: the sector model, the DRAM bytes (loads per 64-byte block, the L2's fetch grain; "
    "stores and their read-modify-write merges per 32-byte sector) at the rate of the dense "
    "peak_copy, plus a per-access row cost for the loads and one for the stores, each the "
    "gather's or scatter's time at that stride (the loads or the stores alone) less its own "
    "bytes at that rate; no copy point enters its own model.";

Chart saturating_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth)
                .along(stride)
                .only_where(kernel, saturating)
                .model(model_key, "sector model")
                .within(saturating_bound);
  c.says("Effective bandwidth (useful bytes) of the saturating strided copy (4 words in flight "
         "per thread) against the stride",
         {model_sentence,
          "Stated bound 15%, not 10%: from stride 20 on the copy hides part of its stores' row "
          "cost behind its loads, which the sum does not (within 1.5% on the H100 and 3.5% on "
          "the H200 to stride 12; from stride 20 the measurement is 8-12% (H100) and 11-14% "
          "(H200) above the model)."});
  return c;
}

Chart guide_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth)
                .along(stride)
                .only_where(kernel, guide)
                .model(model_key, "sector model");
  c.littles_law_latency = latency::dram_figure();
  c.says("Effective bandwidth (useful bytes) of the guide's strided copy (one word per thread) "
         "against the stride",
         {model_sentence,
          "The model assumes DRAM sets the rate: at stride 1 the guide's kernel has one 4-byte "
          "load per thread in flight and is latency-bound (Little's law), 21% (H100) and 35% "
          "(H200) below the model; from stride 2 to 12 within 10%; from 16 on faster than the "
          "saturating copy and up to 25% (H100) and 28% (H200) above the model. No bound is "
          "stated for this kernel."});
  return c;
}

Chart calibration_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth).along(stride).colour(kernel);
  c.says("Every kernel against the stride: the copies, the gather (their loads alone) and the "
         "scatter (their stores alone) whose times the model reads, the dense peak_copy it "
         "scales from, and the gather and copy at 64-byte spacing with the L2 fetch limit at 32 "
         "bytes (where the device has the limit)");
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Strided copy (strideCopy)",
    .description =
        "Effective bandwidth of a copy in which thread i copies word i x stride (4-byte words; "
        "strides 1-8, then every fourth to 32), counting the useful bytes only, with the "
        "guide's kernel (one word per thread) and a saturating one (4 independent words per "
        "thread). Each copy point's extra carries the sector model (model_gbs) and its parts: "
        "the DRAM bytes, loads charged per 64-byte block (the L2 fetches a lone sector as 64 "
        "bytes) and stores with the read-modify-write merges of partly written sectors (ECC on) "
        "per 32-byte sector, at the DRAM rate of peak_copy (a dense 16-byte-vector copy of the "
        "same words, DRAM-bound), plus a per-access row cost for the loads and for the stores: "
        "the gather (the same loads with no store, XOR-ed per warp) and the scatter (the same "
        "stores with no load), measured at every stride, each less its own bytes at that rate. "
        "Sparse accesses cost per access, by spacing, not per byte. The parts add up to the "
        "gather's time plus the scatter's. The gather and the saturating copy at stride 16 run "
        "again "
        "with cudaLimitMaxL2FetchGranularity at 32 bytes, where the device has the limit, which "
        "is restored after. The stride-1 copy moves 512 MiB; every word of each output span is "
        "checked on the device, the first and last 64 Ki again on the host.",
    .citation = "CUDA C++ Best Practices Guide 9.2.1, 9.2.1.4 (Figure 7), 8.2.1 (ECC); Tuning "
                "CUDA Applications for Pascal (32-byte access unit); CUDA Runtime API "
                "cudaLimitMaxL2FetchGranularity",
    .version = 3,
    .order = 20,
    .chapter = Chapter::device_memory,
    .params = {kernel, stride},
    .metrics = {metrics::effective_bandwidth},
    .extras = {{"words", "words copied per launch"},
               {"span_bytes", "bytes the strided output spans"},
               {model_key, "the sector model's bandwidth, GB/s of useful bytes"},
               {"model_ms", "the sector model's time: bytes plus both row costs"},
               {"model_bytes_ms", "the copy's DRAM bytes at the reference rate"},
               {"model_row_load_ms", "the gather's time less its bytes at the reference rate"},
               {"model_row_store_ms", "the scatter's time less its bytes at the reference rate"},
               {"gather_ms", "the gather's median time at this stride"},
               {"scatter_ms", "the scatter's median time at this stride"},
               {"reference_dram_gbs", "peak_copy's DRAM rate, the model's reference"},
               {"partial_write_rmw", "whether a partly written sector costs a read (ECC on)"},
               {"useful_bytes", "bytes the copy asks for"},
               {"read_bytes", "64-byte blocks fetched for the loads"},
               {"write_bytes", "sectors written back for the stores"},
               {"rmw_read_bytes", "sectors read to merge partial writes"},
               {"efficiency", "useful bytes over bytes moved"},
               {"l2_fetch_limit_set", "the L2 fetch granularity asked for, bytes"},
               {"l2_fetch_limit_read_back", "the limit the device reported once set"},
               {"l2_fetch_limit_device", "the device's limit, restored after"}},
    .headline = metrics::effective_bandwidth.name,
    .charts = {saturating_chart(), guide_chart(), calibration_chart()},
    .plan = plan,
});

} // namespace apod::stride_copy
