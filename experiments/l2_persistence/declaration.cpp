// l2_persistence's declaration: the sliding-window kernel's speed-up over no access window
// against the region over the set-aside, and its bandwidth against the region.
#include "declaration.hpp"

#include "core/series.hpp"
#include "model.hpp"

namespace apod::persistence {

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  // The set-aside is the device's persistingL2CacheMaxSize, which the plan estimates as 5/8 of
  // the L2 (what Ampere and Hopper allow); the run asks the device. Skipped before 8.0.
  if (in.device.cc_major < 8)
    return {};
  const size_t set_aside = size_t(in.device.l2_bytes) / 8 * 5;
  std::vector<PlannedPoint> points;
  for (const double r : region_ratios(in.quick))
    for (const Window w : {Window::none, Window::hit_ratio_1, Window::tuned}) {
      PlannedPoint p{
          {{window.key, window_name(w)}, {region.key, region_bytes(set_aside, r)}, {ratio.key, r}},
          {metrics::effective_bandwidth.name}};
      if (w != Window::none)
        p.metrics.push_back(speedup.name);
      points.push_back(std::move(p));
    }
  return points;
}

Chart speedup_chart() {
  Chart c = Chart::sweep_of(speedup).along(ratio).colour(window);
  c.y_title = "speed-up over no access window (×)";
  c.rules.push_back({.vertical = true, .value = 1.0, .label = "region = set-aside"});
  c.rules.push_back({.value = 1.0, .label = "no gain"});
  c.says("Speed-up of the sliding-window kernel over the same kernel with no access window, "
         "against the persistent region's size over the set-aside",
         {"hit_ratio_1 marks the whole region persisting; tuned sets hitRatio = set-aside / "
          "region (Best Practices Guide 9.2.2.2)."});
  return c;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(metrics::effective_bandwidth).along(region, true).colour(window);
  c.rules.push_back({.from = RuleSpec::From::extra,
                     .vertical = true,
                     .metric = metrics::effective_bandwidth.name,
                     .extra = set_aside_key,
                     .label = "set-aside",
                     .unit = "bytes"});
  c.says("Effective bandwidth of the sliding-window kernel against the persistent region, per "
         "access window");
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "L2 persisting access window (sliding window)",
    .description =
        "The Best Practices Guide's sliding-window benchmark (9.2.2.2). The most the device allows "
        "(persistingL2CacheMaxSize) is set aside for persisting accesses; each thread reads a word "
        "of a persistent region and adds it to a word of a 1 GiB streaming region. The region runs "
        "from 0.25 to 2 times the set-aside, under three access windows: none, the whole region "
        "with hitRatio 1.0, and the guide's tuned hitRatio = set-aside / region. Each trial times "
        "the three in turn from a cold L2 (persisting lines reset, L2 flushed); "
        "speedup_vs_no_window is taken sample by sample. Effective bandwidth counts the bytes the "
        "kernel must move at the least (streaming read and written once, the region read once). "
        "The set-aside and the persisting lines are restored when the experiment ends. Every "
        "streaming word is checked on the device, the first and last 64 Ki again on the host. "
        "Skipped before compute capability 8.0.",
    .citation = "CUDA C++ Best Practices Guide 9.2.2.1 (L2 cache access window), 9.2.2.2 (tuning "
                "the access window hit-ratio)",
    .version = 1,
    .order = 70,
    .chapter = Chapter::caches_on_chip,
    .params = {window, region, ratio},
    .metrics = {metrics::effective_bandwidth, speedup},
    .extras = {{set_aside_key, "bytes set aside for persisting accesses"},
               {"streaming_bytes", "bytes of the streaming region"},
               {"hit_ratio", "the access window's hitRatio"},
               {"window_bytes", "bytes of the access window (0: none)"},
               {"launches", "launches the check accounts for"},
               {"kernel", "the launch's kernel facts"},
               {"elements_wrong", "streaming words wrong, on the device"},
               {"host_elements_wrong", "streaming words wrong, on the host"}},
    .headline = metrics::effective_bandwidth.name,
    .charts = {speedup_chart(), bandwidth_chart()},
    .plan = plan,
});

} // namespace apod::persistence
