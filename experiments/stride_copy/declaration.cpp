// stride_copy's declaration: the guide's strided copy beside a saturating one, each with the
// 32-byte-sector model from its own stride 1 and the Little's-law bound of its launch.
#include "declaration.hpp"

#include "core/series.hpp"
#include "memory_latency/declaration.hpp"

namespace apod::stride_copy {

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  for (const char* k : {guide, saturating})
    for (const int s : strides)
      points.push_back({{{kernel.key, k}, {stride.key, s}},
                        {metrics::effective_bandwidth.name, sector_model_bandwidth.name}});
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth)
                .along(stride)
                .colour(kernel)
                .model(sector_model_bandwidth, "32-byte-sector model");
  c.littles_law_latency = latency::dram_figure();
  c.says("Effective bandwidth (useful bytes) of the strided copy against the stride; dashed, in "
         "each kernel's colour: the 32-byte-sector model from the same kernel's stride 1");
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
        "thread). Beside each point, sector_model_bandwidth: what the 32-byte-sector model "
        "expects from the same kernel's stride-1 figure, reads and writes counted apart and a "
        "partly written sector costing a read-modify-write when ECC is on. The stride-1 copy "
        "moves 1 GiB; every word of each output span is checked on the device, the first and "
        "last 64 Ki again on the host.",
    .citation = "CUDA C++ Best Practices Guide 9.2.1, 9.2.1.4 (Figure 7), 8.2.1 (ECC); Tuning "
                "CUDA Applications for Pascal (32-byte access unit)",
    .version = 2,
    .order = 20,
    .chapter = Chapter::device_memory,
    .params = {kernel, stride},
    .metrics = {metrics::effective_bandwidth, sector_model_bandwidth},
    .extras = {{"words", "words copied per launch"},
               {"span_bytes", "bytes the strided output spans"},
               {"reference", "the point the model scales from: the same kernel at stride 1"},
               {"sector_bytes", "the sector size of global accesses"},
               {"partial_write_rmw", "whether a partly written sector costs a read (ECC on)"},
               {"useful_bytes", "bytes the copy asks for"},
               {"read_bytes", "whole sectors fetched for the loads"},
               {"write_bytes", "sectors written back for the stores"},
               {"rmw_read_bytes", "sectors read to merge partial writes"},
               {"efficiency", "useful bytes over bytes moved"}},
    .headline = metrics::effective_bandwidth.name,
    .charts = {bandwidth_chart()},
    .plan = plan,
});

} // namespace apod::stride_copy
