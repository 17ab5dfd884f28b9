// allocation's declaration: what pinning host memory and allocating device memory cost per call
// and per GiB, cudaMalloc against the stream-ordered pool the Best Practices Guide recommends.
#include "declaration.hpp"

#include "alloc_math.hpp"

#include <string>

namespace apod::alloc {

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  for (const Api& a : apis())
    for (const size_t size : sizes(a, in.quick, in.full)) {
      PlannedPoint p{{{api.key, a.name}, {bytes.key, size}}, {alloc_time.name, free_time.name}};
      if (per_gib_point(a, size))
        p.metrics.push_back(time_per_gib.name);
      if (size > conditional_bytes)
        p.when = a.host ? "the size is at most an eighth of the host's available memory"
                        : "the size is at most a quarter of the device's free memory";
      points.push_back(std::move(p));
    }
  return points;
}

Chart call_chart(const Metric& metric, const char* what) {
  Chart c = Chart::sweep_of(metric).along(bytes, true).colour(api);
  c.mark = "point";
  c.log_y = true;
  c.y_title = std::string(what) + " (us, log scale)";
  c.says(std::string(what) + " against the allocation size, per allocator (host steady_clock)",
         {"Best Practices Guide 9.3: cudaMalloc and cudaFree 'are expensive operations', "
          "cudaMallocAsync and cudaFreeAsync, stream-ordered pool allocators, are recommended; "
          "9.1.1: pinning system memory is 'a heavyweight operation'. The guide gives no figure."});
  return c;
}

Chart per_gib_chart() {
  Chart c = Chart::sweep_of(time_per_gib).along(bytes, true).colour(api);
  c.mark = "point";
  c.log_y = true;
  c.y_title = "allocate + free per GiB (ms/GiB, log scale)";
  c.says("An allocate-and-free pair's time per GiB, from 1 MiB, for the allocators whose cost "
         "grows with the size",
         {"Pinning touches every page (9.1.1, 'heavyweight'); a trimmed pool maps new memory as "
          "cudaMalloc does; a warm pool's call does not grow with the size and is left out."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Allocation: pinned host memory, cudaMalloc and the stream-ordered pool",
    .description =
        "The host time (steady_clock around each call) of allocating and of freeing, per "
        "allocator and size (4 KiB, 1 MiB, 64 MiB, and 1 GiB for the device allocators; "
        "--full: 4 KiB to 1 GiB in powers of 4 for all): cudaHostAlloc + cudaFreeHost; "
        "cudaHostRegister + cudaHostUnregister of memory "
        "allocated with aligned_alloc and touched once; cudaMalloc + cudaFree; cudaMallocAsync + "
        "cudaFreeAsync on a stream from the device's default pool, warm (its release threshold "
        "raised so freed memory stays in the pool, one pair before the samples) and cold (the "
        "pool trimmed to nothing with cudaMemPoolTrimTo before each sample); the pool's "
        "threshold is restored afterwards. A stream-ordered call's figure is the call's time, "
        "not the stream's. Between the two calls, untimed, every allocation is used: device "
        "memory is set with cudaMemsetAsync and its first, middle and last bytes read back; "
        "pinned memory receives a DMA copy at its start, middle and end, registered memory must "
        "read as host memory to cudaPointerGetAttributes and as unregistered after; device free "
        "memory (cudaMemGetInfo) must come back after each point. A point takes at most a "
        "quarter of the free device memory or an eighth of the host's available memory. The "
        "cost per GiB is the pair's time over the size, from 1 MiB, for all but the warm pool.",
    .citation = "CUDA C++ Best Practices Guide (seed 000): 9.1.1 Pinned Memory ('heavyweight'), "
                "9.3 Allocation (cudaMallocAsync recommended); CUDA Runtime API: Stream Ordered "
                "Memory Allocator (cudaMemPoolAttrReleaseThreshold, cudaMemPoolTrimTo)",
    .version = 1,
    .order = 122,
    .chapter = Chapter::concurrency_launch,
    .params = {api, bytes},
    .metrics = {alloc_time, free_time, time_per_gib},
    .extras = {{"elements_wrong",
                "probe bytes that read wrong, plus 1 if memory did not come back"},
               {"allocations", "allocate-and-free pairs made for the point, warm-up included"},
               {"probe_bytes_checked", "bytes read back from the allocations"},
               {"device_free_change_bytes", "free device memory after the point less before"},
               {"pool_release_threshold", "the pool's release threshold during the point"}},
    .headline = time_per_gib.name, // the point marked headline: cudaHostAlloc at 64 MiB
    .charts = {call_chart(alloc_time, "allocating call's time"),
               call_chart(free_time, "freeing call's time"), per_gib_chart()},
    .plan = plan,
});

} // namespace apod::alloc
