// l2_persistence's declaration: what carving a persisting set-aside out of the L2 costs streaming
// work, and what the sliding-window kernel gains from a set-aside and an access window, both read
// against the same kernels with no set-aside at all.
#include "declaration.hpp"

#include "core/series.hpp"
#include "model.hpp"

namespace apod::persistence {

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  // The largest set-aside is persistingL2CacheMaxSize, which the plan estimates as 5/8 of the L2
  // (what Ampere and Hopper allow); the run asks the device. Skipped before 8.0.
  if (in.device.cc_major < 8)
    return {};
  const size_t max_set_aside = size_t(in.device.l2_bytes) / 8 * 5;
  std::vector<PlannedPoint> points;
  for (const double f : set_aside_fractions(in.quick)) {
    const size_t bytes = set_aside_bytes(max_set_aside, f);
    if (bytes > 0)
      points.push_back({{{set_aside.key, bytes}}, {copy_ratio.name}});
    for (const double r : region_ratios(in.quick))
      for (const Window w : {Window::none, Window::hit_ratio_1, Window::tuned}) {
        if (bytes == 0 && w != Window::none)
          continue; // no set-aside: a window has nowhere to persist
        PlannedPoint p{{{window.key, window_name(w)},
                        {set_aside.key, bytes},
                        {region.key, region_bytes(max_set_aside, r)}},
                       {metrics::effective_bandwidth.name}};
        if (bytes > 0)
          p.metrics.push_back(speedup.name);
        points.push_back(std::move(p));
      }
  }
  points.push_back({json::object(), {copy_at_max.name, best_gain.name}});
  return points;
}

Chart copy_chart() {
  Chart c = Chart::sweep_of(copy_ratio).along(set_aside);
  c.y_title = "plain copy's rate over no set-aside (×)";
  c.rules.push_back({.value = 1.0, .label = "no set-aside"});
  c.says("What the set-aside alone costs streaming work: a plain 1 GiB copy that uses no access "
         "window, at each set-aside, over the same copy with nothing set aside",
         {"The guide reserves the largest set-aside; every kernel that runs meanwhile streams "
          "through what is left of the L2."});
  c.caption_figures = {{copy_at_max.name, "×"}};
  c.figures_lead = "A plain copy's rate at the largest set-aside over its rate with none set aside";
  return c;
}

// The speed-up of one window mode along the region, a series per set-aside.
Chart speedup_chart(Window w, std::string what) {
  Chart c = Chart::sweep_of(speedup)
                .along(region, true)
                .colour(set_aside)
                .only_where(window, window_name(w));
  c.y_title = "speed-up over no set-aside and no window (×)";
  c.rules.push_back({.value = 1.0, .label = "no set-aside, no window"});
  const std::string reference = "Every speed-up is the same kernel's time with no set-aside and "
                                "no window over its time here, taken sample by sample.";
  if (w == Window::none) {
    c.says(std::move(what), {reference});
    return c;
  }
  c.published_metrics = {guide_metric};
  c.says(std::move(what),
         {reference + " Dotted: the Best Practices Guide's A100 figures (9.2.2.2), read against "
                      "no window with 30 MB set aside; a reference from another device and "
                      "baseline, not what this device should show."});
  c.caption_figures = {{best_gain.name, "×"}};
  c.figures_lead = "Best net gain over no set-aside and no window (the best windowed point of any "
                   "set-aside, region and window)";
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "L2 persisting set-aside and access window (sliding window)",
    .description =
        "The Best Practices Guide's sliding-window benchmark (9.2.2.2), read against the same "
        "kernel with no set-aside. Each thread reads a word of a persistent region and adds it to "
        "a word of a 1 GiB streaming region. The set-aside (cudaLimitPersistingL2CacheSize) is "
        "swept from 0 to persistingL2CacheMaxSize (the guide's choice), the region from 1/4 to 2 "
        "times that maximum, under three access windows: none, the whole region with hitRatio "
        "1.0, and the guide's tuned hitRatio = set-aside / region. speedup_vs_no_set_aside is the "
        "time with no set-aside and no window over the time at the point, sample by sample; at "
        "window none it is what the set-aside alone costs this kernel. copy_vs_no_set_aside does "
        "the same for a plain 1 GiB copy that never uses a window. Each sample starts from a cold "
        "L2 (persisting lines reset, L2 flushed). Effective bandwidth counts the bytes the kernel "
        "must move at the least. The device's limit and the persisting lines are restored when the "
        "experiment ends. Every streaming and copied word is checked on the device, the first and "
        "last 64 Ki again on the host. Skipped before compute capability 8.0.",
    .citation = "CUDA C++ Best Practices Guide 9.2.2.1 (L2 cache access window), 9.2.2.2 (tuning "
                "the access window hit-ratio)",
    .version = 2,
    .order = 70,
    .chapter = Chapter::caches_on_chip,
    .params = {window, set_aside, region},
    .metrics = {metrics::effective_bandwidth, speedup, copy_ratio, copy_at_max, best_gain},
    .extras = {{granted_key, "bytes the driver set aside for persisting accesses"},
               {"max_set_aside_bytes", "persistingL2CacheMaxSize"},
               {"streaming_bytes", "bytes of the streaming region (and of the copy)"},
               {"hit_ratio", "the access window's hitRatio"},
               {"window_bytes", "bytes of the access window (0: none)"},
               {"launches", "launches the check accounts for"},
               {"kernel", "the launch's kernel facts"},
               {"elements_wrong", "streaming words wrong, on the device"},
               {"host_elements_wrong", "streaming words wrong, on the host"},
               {"reference", "the params of the speed-up's reference point"},
               {"reference_gbs", "the reference's median effective bandwidth"},
               {"plain_gbs", "the same region with no window at this set-aside (median)"},
               {"speedup_vs_no_window", "the guide's reading: no window at this set-aside over "
                                        "this point (medians)"},
               {"copy_gbs", "the plain copy's median bandwidth at this set-aside"},
               {"copy_gbs_no_set_aside", "the plain copy's median bandwidth with none set aside"},
               {"winner", "the params of the point whose samples the figure carries"}},
    .headline = metrics::effective_bandwidth.name,
    .charts = {copy_chart(),
               speedup_chart(Window::tuned,
                             "Speed-up of the sliding-window kernel with the guide's tuned window "
                             "(hitRatio = set-aside / region) against the persistent region, a "
                             "series per set-aside"),
               speedup_chart(Window::hit_ratio_1,
                             "Speed-up of the sliding-window kernel with the whole region marked "
                             "persisting (hitRatio 1.0), a series per set-aside"),
               speedup_chart(Window::none,
                             "What the set-aside alone costs the sliding-window kernel: no access "
                             "window, a series per set-aside")},
    .plan = plan,
});

} // namespace apod::persistence
