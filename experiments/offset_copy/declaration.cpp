// offset_copy's declaration: the guide's misaligned copy beside a saturating one, drawn against
// the offset with each launch's Little's-law bound.
#include "declaration.hpp"

#include "core/series.hpp"
#include "memory_latency/declaration.hpp"

namespace apod::offset_copy {

std::string variant_of(const char* kernel_name, int word_bytes) {
  return std::string(kernel_name) + ", " + std::to_string(word_bytes) + "-byte words";
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput&) {
  std::vector<PlannedPoint> points;
  for (const int bytes : {4, 8})
    for (const char* k : {guide, saturating})
      for (int o = 0; o <= (bytes == 4 ? max_offset_4 : max_offset_8); ++o)
        points.push_back({{{kernel.key, k},
                           {word_bytes.key, bytes},
                           {offset.key, o},
                           {variant.key, variant_of(k, bytes)}},
                          {metrics::effective_bandwidth.name}});
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth).along(offset).colour(variant);
  c.littles_law_latency = latency::dram_figure();
  c.says("Effective bandwidth of the misaligned copy against the offset, the guide's kernel "
         "beside the saturating one");
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Misaligned copy (offsetCopy)",
    .description =
        "Effective bandwidth of a copy kernel whose accesses start `offset` words past an "
        "aligned address, for 4-byte words (offsets 0..32) and 8-byte words (0..16), with two "
        "kernels: the guide's (one word per thread, latency-bound on recent GPUs) and a "
        "saturating one (16 bytes of independent loads in flight per thread, each warp access "
        "aligned as the guide's). 1 GiB read and 1 GiB written per launch; every output word is "
        "checked on the device, the first and last 64 Ki again on the host.",
    .citation = "CUDA C++ Best Practices Guide 9.2.1.3; T. Stich, Advanced CUDA Programming "
                "(alignment slides)",
    .version = 2,
    .order = 10,
    .chapter = Chapter::device_memory,
    .params = {kernel, word_bytes, offset, variant},
    .metrics = {metrics::effective_bandwidth},
    .extras = {{"words", "words copied per launch"},
               {"words_per_thread", "words each thread copies"}},
    .charts = {bandwidth_chart()},
    .plan = plan,
});

} // namespace apod::offset_copy
