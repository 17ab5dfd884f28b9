// unified_memory's declaration: a managed buffer read by a kernel in each state the Pascal Tuning
// Guide's page migration (1.4.8) and the hints (cudaMemPrefetchAsync, cudaMemAdvise) put it in,
// the prefetches' own rates and the host's read of pages a kernel wrote.
#include "declaration.hpp"

#include "layout.hpp"

namespace apod::unified {

std::string link_direction(const std::string& s) {
  if (s == resident || s == prefetched || s == read_mostly_copy)
    return "";
  if (s == prefetch_to_host || s == host_touch)
    return "d2h";
  return "h2d";
}

const std::vector<std::string>& states() {
  static const std::vector<std::string> all = {resident,    first_touch,      prefetch_to_device,
                                               prefetched,  prefetch_to_host, preferred_device,
                                               read_mostly, read_mostly_copy, accessed_by,
                                               host_touch,  pageable_malloc};
  return all;
}

namespace {

const char* const pageable_condition =
    "the device accesses pageable memory (cudaDevAttrPageableMemoryAccess: HMM or ATS)";

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  const size_t size = planned_bytes(in.quick);
  for (const std::string& s : states()) {
    const json params = {{state.key, s}, {bytes.key, size}};
    const bool pageable = s == pageable_malloc;
    points.push_back({params, {bandwidth.name}, pageable ? pageable_condition : ""});
    const std::string direction = link_direction(s);
    const std::string reference_condition =
        direction.empty() ? "the run measured an achievable DRAM peak earlier (peak_copy)"
                          : "the run measured host_transfer's pinned " + direction +
                                " rate at its largest size earlier";
    points.push_back({params,
                      {ratio.name},
                      pageable ? std::string(pageable_condition) + ", and " + reference_condition
                               : reference_condition});
  }
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(bandwidth).along(state);
  c.mark = "point";
  c.log_y = true;
  c.y_title = "bytes of the buffer over the timed region (GB/s, log scale)";
  c.says("A managed buffer's bandwidth in each state: read by a kernel where its pages are, "
         "migrated on first touch (page faults) or by a prefetch, with cudaMemAdvise hints, and "
         "read back by the host",
         {"Pages on the device read at DRAM speed; everything else crosses the host link, drawn "
          "against its line rate (host_transfer's pinned copies are the reference in "
          "ratio_to_reference)."});
  return c;
}

Chart ratio_chart() {
  Chart c = Chart::sweep_of(ratio).along(state);
  c.mark = "point";
  c.y_title = "over the reference (DRAM states: achievable read peak; link: pinned copy)";
  c.says("Each state's bandwidth over its reference measured earlier in the same run: the "
         "achievable DRAM read peak for pages on the device, host_transfer's pinned copy in the "
         "same direction for migrations");
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Unified memory: residency, page-fault migration, prefetch and advice",
    .description =
        "A 128 MiB managed buffer (cudaMallocManaged; at most 1/8 of the free device memory; "
        "--quick 16 MiB) read by a kernel (16-byte loads, each block summing its own contiguous "
        "chunk) in each state: resident (prefetched to the device, read again and again, L2 "
        "flushed), first touch after the host wrote it (the device's page faults migrate it, "
        "Pascal Tuning Guide 1.4.8), after cudaMemPrefetchAsync to the device (the prefetch "
        "timed as a point of its own, and the prefetch back to the host), with "
        "SetPreferredLocation device, with SetReadMostly (first read, then a second read of the "
        "device's read-only copies), with SetPreferredLocation host + SetAccessedBy device (read "
        "over the link, no migration), host threads reading what a kernel wrote (the host's page "
        "faults migrate it back), and, where the device has pageable memory access, a kernel on "
        "plain malloc memory. Kernel and prefetch times are CUDA events, the host's read "
        "steady_clock; the rounds that rewrite the buffer take a fixed 5 samples (the first "
        "touch after one untimed round, each round starting from the same placement), and the "
        "L2 is flushed before every read of pages on the device. Each block's sum and each word "
        "the host reads is checked against the "
        "host's pattern. ratio_to_reference: the figure over the run's achievable DRAM read peak "
        "(pages on the device) or host_transfer's pinned rate in the same direction (earlier in "
        "the run).",
    .citation = "Tuning CUDA Applications for Pascal 1.4.8 (Unified Memory Improvements: page "
                "faulting, migration, hints); Notes on CUDA (Unified Memory/Managed Memory, "
                "cudaMallocManaged)",
    .version = 1,
    .order = 126,
    .chapter = Chapter::concurrency_launch,
    .params = {state, bytes},
    .metrics = {bandwidth, ratio},
    .extras = {{"elements_wrong", "block sums (kernel reads) or words (the host's read) that "
                                  "differed from the host's"},
               {"timed", "what the timed region holds and how it was timed"},
               {"advice", "the cudaMemAdvise calls on the buffer"},
               {reference_gbs, "the reference's median in GB/s"},
               {reference, "what the reference is"}},
    .charts = {bandwidth_chart(), ratio_chart()},
    .plan = plan,
});

} // namespace apod::unified
