// peak_copy's declaration: the access types' peaks as bars (with cudaMemcpyAsync and the run's
// achievable peak marked on them) and every launch shape as a heatmap.
#include "declaration.hpp"

namespace apod::peak {

json kernel_params(const std::string& type, Shape shape) {
  return {{access_type.key, type},
          {method.key, kernel_method},
          {elements.key, shape.elements},
          {grid.key, shape.persistent ? "wave" : "full"},
          {config.key,
           type + " e" + std::to_string(shape.elements) + (shape.persistent ? " wave" : " full")}};
}

json memcpy_params() {
  return {
      {access_type.key, access::copy}, {method.key, memcpy_method}, {config.key, "copy memcpy"}};
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  const std::string bandwidth = metrics::effective_bandwidth.name;
  std::vector<PlannedPoint> points = {{memcpy_params(), {bandwidth}}};
  for (const char* type : access_types)
    for (const Shape shape :
         in.quick ? std::vector<Shape>(std::begin(quick_shapes), std::end(quick_shapes))
                  : std::vector<Shape>(std::begin(shapes), std::end(shapes)))
      points.push_back({kernel_params(type, shape), {bandwidth}});
  for (const char* type : access_types)
    points.push_back({{{access_type.key, type}}, {access_peak.name}});
  points.push_back({{{method.key, best_method}}, {achievable_peak.name}});
  return points;
}

Chart peaks_chart() {
  Chart c = Chart::sweep_of(access_peak).along(access_type);
  c.mark = "bar";
  c.y_title = "achievable bandwidth (GB/s)";
  c.notes.push_back({.metric = metrics::effective_bandwidth.name,
                     .only = {method.key, memcpy_method},
                     .x_value = access::copy,
                     .label = "memcpy",
                     .tip = "cudaMemcpyAsync device to device"});
  c.notes.push_back({.metric = achievable_peak.name,
                     .x_extra = keys::access_type,
                     .label = "peak",
                     .tip = "the run's achievable peak"});
  c.says("Each access type's achievable peak: its best verified launch shape",
         {"Squares: \"peak\", the run's achievable peak (the best type), which DRAM figures are "
          "read against where no figure of their own access type exists; \"memcpy\", "
          "cudaMemcpyAsync device to device, a copy."});
  return c;
}

Chart shapes_chart() {
  Chart c = Chart::heatmap_of(metrics::effective_bandwidth)
                .along(elements)
                .only_where(method, kernel_method);
  c.y = grid.key;
  c.y_extra = "vector_bytes";
  c.y_extra_unit = "-byte vectors";
  c.panels = {access_type.key};
  c.says("Every kernel launch shape of each access type, its bandwidth in GB/s in the cell",
         {"cudaMemcpyAsync is drawn with the access types' peaks."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Achievable bandwidth per access type",
    .description =
        "The bandwidth device memory actually delivers, to read other results against, for "
        "four access types in BabelStream's shapes: read-only (an integer dot product of two "
        "arrays), write-only (a fill), copy (a kernel, and cudaMemcpyAsync device to device) "
        "and triad (z = x + s y), on arrays of max(4 GiB, 64x the L2) each. Each kernel loads "
        "16-byte vectors, 1, 2 or 4 per thread, with one 256-thread block per tile (full) or one "
        "resident wave striding over the tiles (wave). Bandwidth counts bytes read plus written. "
        "Every output word is checked on the device, the first and last 64 Ki again on the "
        "host; the dot product is compared with the host's. achievable_peak_by_access is each "
        "type's best verified median with that point's samples; achievable_peak (method best) "
        "is the best of them and names its access type in extra.",
    .citation = "CUDA C++ Best Practices Guide 8.2 (theoretical and effective bandwidth), 9.2.1 "
                "(coalesced access); BabelStream (Deakin et al.) kernel shapes",
    .version = 2,
    .order = 5,
    .chapter = Chapter::device_memory,
    .params = {access_type, method, elements, grid, config},
    .metrics = {metrics::effective_bandwidth, access_peak, achievable_peak},
    .extras = {{"vector_bytes", "bytes each load and store moves"},
               {"array_bytes", "bytes of each array"},
               {"points_compared", "the points a peak was chosen from"},
               {"winner", "the params of the point whose samples a peak carries"},
               {"access_types_compared", "the access types the run's peak was chosen from"}},
    .headline = achievable_peak.name,
    .charts = {peaks_chart(), shapes_chart()},
    .plan = plan,
});

} // namespace apod::peak
