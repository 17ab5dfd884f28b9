// host_transfer's declaration: host-device bandwidth per memory kind and direction against the
// transfer size, read against the PCIe line rate.
#include "declaration.hpp"

#include "core/series.hpp"

namespace apod::transfer {

std::vector<size_t> sizes(bool quick) {
  if (quick)
    return {4 << 10, 64 << 10, 1 << 20};
  std::vector<size_t> all;
  for (size_t b = 4 << 10; b <= (size_t(256) << 20); b *= 4)
    all.push_back(b);
  return all;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  const std::pair<const char*, const char*> routes[] = {{"h2d", "pageable"},
                                                        {"h2d", "pinned"},
                                                        {"d2h", "pageable"},
                                                        {"d2h", "pinned"},
                                                        {"zero_copy", "mapped"}};
  for (const auto& [way, kind] : routes)
    for (const size_t size : sizes(in.quick))
      // Sizes whose single transfer takes under 50 us are timed batched too: the plan expects
      // that up to 1 MiB (about 20 us at a PCIe 5.0 x16 link's rate); the run times them.
      for (const bool batched : {false, true})
        if (!batched || size <= (size_t(1) << 20))
          points.push_back(
              {{{direction.key, way},
                {memory.key, kind},
                {bytes.key, size},
                {transfers.key, batched ? "batched" : "single"},
                {series.key, std::string(way) + " " + kind + (batched ? " batched" : "")}},
               {bandwidth.name},
               batched ? "its single transfer takes under 50 us" : ""});
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(bandwidth).along(bytes, true).colour(series);
  c.marker_extra = transfers_per_sample;
  c.marker_above = 1;
  c.marker_title = "timing";
  c.marker_above_label = "batched: several transfers a sample";
  c.marker_else_label = "one transfer a sample";
  c.says("Effective bandwidth of host-device transfers against the transfer size: pageable and "
         "pinned copies each way, and zero copy (bytes read plus written over the link at once)");
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Host-device transfers: pageable, pinned, zero copy",
    .description =
        "Effective bandwidth of host-to-device (h2d) and device-to-host (d2h) cudaMemcpyAsync from "
        "pageable and from pinned host memory, and of zero copy: a kernel that copies mapped "
        "pinned host memory to mapped pinned host memory, counted as bytes read plus bytes "
        "written, both over PCIe (the link is full duplex, so zero copy can exceed the "
        "one-direction limit drawn). Sizes 4 KiB to 256 MiB in powers of 4. Every size is timed "
        "one transfer per event pair; sizes whose transfer takes under 50 us are also timed as a "
        "batch in one event pair, a series of its own ('batched'; extra: transfers_per_sample). "
        "Each point carries the line rate (limit_gbs) and the protocol limit at the link's "
        "payload size (attainable_gbs). Every point's destination is poisoned first and compared "
        "word by word with the source's non-zero fill afterwards.",
    .citation = "CUDA C++ Best Practices Guide 9.1.1 (pinned memory), 9.1.3 (zero copy)",
    .version = 2,
    .order = 50,
    .chapter = Chapter::host_link,
    .params = {direction, memory, bytes, transfers, series},
    .metrics = {bandwidth},
    .extras = {{transfers_per_sample, "transfers timed in one sample"},
               {bytes_per_transfer, "bytes over the link per transfer (zero copy: both ways)"},
               {"single_transfer_ms", "one transfer's time, the fastest of three"},
               {"bytes_counted", "what zero copy's bytes count"}},
    .charts = {bandwidth_chart()},
    .plan = plan,
});

} // namespace apod::transfer
