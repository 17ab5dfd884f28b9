// texture_loads' declaration: the bandwidth of seven load paths (plain, __ldg, .ca, .cg,
// tex1Dfetch, tex2D point and linear) for 2-D patterns with and without locality, and the latency
// of a texture hit beside an L1 hit.
#include "declaration.hpp"

namespace apod::texture {

const std::vector<std::string>& bandwidth_paths() {
  static const std::vector<std::string> all = {plain,       ldg,         ld_ca,       ld_cg,
                                               tex1d_fetch, tex2d_point, tex2d_linear};
  return all;
}

const std::vector<std::string>& bandwidth_patterns() {
  static const std::vector<std::string> all = {row_stream, column_walk, neighbourhood};
  return all;
}

const std::vector<std::string>& latency_paths() {
  static const std::vector<std::string> all = {plain, ldg, tex1d_fetch, ld_cg};
  return all;
}

const Metric& bandwidth_metric(const std::string& q) {
  return q == neighbourhood ? cached_load_bandwidth : load_bandwidth;
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  for (const std::string& q : bandwidth_patterns())
    for (const std::string& p : bandwidth_paths()) {
      PlannedPoint point{{{pattern.key, q}, {path.key, p}}, {bandwidth_metric(q).name}};
      if (p != plain)
        point.metrics.push_back(over_plain.name);
      points.push_back(std::move(point));
    }
  for (const std::string& p : latency_paths()) {
    PlannedPoint point{{{pattern.key, dependent_chase}, {path.key, p}}, {hit_latency.name}};
    if (p != plain)
      point.metrics.push_back(over_l1_hit.name);
    points.push_back(std::move(point));
  }
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::bars_of(load_bandwidth).along(path).colour(pattern);
  c.y_title = "bytes loaded and written per second (GB/s)";
  c.says("Load bandwidth of each path over an 8192 x 4096 float image read once, along rows and "
         "down columns",
         {"Each pixel is read once and the L2 is overwritten before each sample, so every byte "
          "comes from DRAM. A column walk's warp asks for one pixel of 32 rows: 32 sectors in a "
          "row-major layout, while a cudaArray is not stored row-major (Best Practices Guide "
          "9.2.5: the texture cache is optimized for 2D spatial locality). A filtered sample "
          "counts 4 bytes, though the texture unit reads 4 texels for it. The limit: the "
          "theoretical DRAM bandwidth."});
  return c;
}

Chart cached_chart() {
  Chart c = Chart::sweep_of(cached_load_bandwidth).along(path);
  c.mark = "bar";
  c.y_title = "bytes loaded and written per second (GB/s)";
  c.limits = false;
  c.says("Load bandwidth of each path when 32 x 8 thread tiles read 3 x 3 neighbourhoods",
         {"Each pixel is read 9 times, by neighbouring threads of (mostly) one block, so most "
          "reads hit the L1/texture cache; the figure counts the bytes the loads return. Since "
          "Maxwell the L1 and texture caches are one (Pascal Tuning Guide 1.4.3.2). No DRAM "
          "limit applies; the image's own rate (each pixel once) is stored with each point."});
  return c;
}

Chart ratio_chart() {
  Chart c = Chart::bars_of(over_plain).along(path).colour(pattern);
  c.y_title = "bandwidth / plain loads' bandwidth";
  c.limits = false;
  c.says("Each path's bandwidth over plain loads' in the same pattern",
         {"1: the path reads as fast as a plain load. Since Maxwell the L1 and texture caches "
          "are one (Pascal Tuning Guide 1.4.3.2), so on an H100 the read-only and texture paths "
          "differ from plain loads by their instructions and layouts, not by a separate cache."});
  return c;
}

Chart latency_chart() {
  Chart c = Chart::sweep_of(hit_latency).along(path);
  c.mark = "bar";
  c.y_title = "cycles per dependent load (hit)";
  c.says("Latency of a hit: one thread's dependent chase over 16 KiB, one node per 128-byte line",
         {"Best Practices Guide 9.2.5: a texture cache hit \"reduces DRAM bandwidth demand but "
          "not fetch latency\". Every path chases indices (the next node's index is the value "
          "loaded), so each step pays one address computation besides the load; ld.global.cg "
          "skips the L1 and shows an L2 hit for scale."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Texture and read-only loads",
    .description =
        "Bandwidth of seven load paths over an 8192 x 4096 float image (128 MiB; 4096 x 2048 "
        "with --quick): plain loads, __ldg (const __restrict__, ld.global.nc), __ldca "
        "(ld.global.ca), __ldcg (ld.global.cg), tex1Dfetch on a texture object over the same "
        "linear memory, and tex2D on a cudaArray copy with point and with linear filtering "
        "(clamp addressing, unnormalized coordinates). Three patterns: a row stream and a column "
        "walk read each pixel once (a warp along a row: 128 contiguous bytes; down a column: one "
        "pixel of 32 rows), and a 3 x 3 neighbourhood read by 32 x 8 thread tiles reads each "
        "pixel 9 times, edges clamped. Each thread sums 16 units and writes one float; the "
        "figure is the bytes the loads return plus those written, per second (CUDA events, L2 "
        "overwritten before each sample): load_bandwidth (DRAM) for the patterns that read each "
        "pixel once, cached_load_bandwidth (on chip) for the neighbourhood. Pixels are integers "
        "below 1024, so every unfiltered "
        "sum is checked exactly on the host; the linearly filtered sums against a host bilinear "
        "reference within the bound that the hardware's 8-bit fractional weights allow. The "
        "addressing modes of Table 4 (clamp and wrap with normalized coordinates, point "
        "filtering) are checked on a 16 x 8 array at coordinates inside and outside [0, 1) "
        "and are part of every tex2D point's verification. Latency: one thread chases a random "
        "cycle of 128 nodes (one per 128-byte line, 16 KiB) through plain loads (an L1 hit), "
        "__ldg, tex1Dfetch and ld.global.cg (an L2 hit), a warm lap first; cycles per step from "
        "clock64; the final index is checked against the host's walk.",
    .citation = "CUDA C++ Best Practices Guide (seed 000): 9.2.5 Texture Memory, 9.2.5.1 "
                "Additional Texture Capabilities (Table 4); Tuning CUDA Applications for Pascal "
                "(seed 003) 1.4.3.2 Unified L1/Texture Cache; Notes on CUDA (seed 002): caches; "
                "CUDA C++ Programming Guide, Texture Fetching (linear filtering's weights)",
    .version = 1,
    .order = 59,
    .chapter = Chapter::caches_on_chip,
    .params = {pattern, path},
    .metrics = {load_bandwidth, cached_load_bandwidth, over_plain, hit_latency, over_l1_hit},
    .extras = {{"elements_wrong", "outputs outside their tolerance (0 for exact sums)"},
               {"image", "the image's width and height in pixels"},
               {"reads_per_thread", "loads (or filtered samples) per thread"},
               {"bytes_loaded", "bytes the loads return to the threads per launch"},
               {"bytes_written", "bytes the threads write per launch"},
               {"image_gbs", "the image's bytes (each read from DRAM once) per second"},
               {"max_tolerance", "the largest per-thread tolerance of the filtered check"},
               {"max_abs_error", "the largest |output - host reference| of the point"},
               {"addressing_checked", "Table 4 addressing fetches checked (tex2D points)"},
               {"addressing_wrong", "of those, fetches that returned another texel"},
               {"chain", "the chase's nodes, bytes, steps and expected final index"},
               {"ns_per_step", "median nanoseconds per chase step (globaltimer)"},
               {"kernel", "the launch's kernel facts"}},
    .headline = load_bandwidth.name,
    .charts = {bandwidth_chart(), cached_chart(), ratio_chart(), latency_chart()},
    .plan = plan,
});

} // namespace apod::texture
