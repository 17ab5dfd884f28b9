// How instruction_throughput samples a point whose samples are not event times (results per
// clock from the SMs' counters, cycles per step): the sampling core's stopping rules and monitor,
// the point's sampling window (its energy), and the event rate of each launch beside it.
#pragma once

#include "core/in_flight.hpp"
#include "core/sampling.hpp"
#include "core/series.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace apod::throughput {

/// What one launch measured.
struct Sample {
  double value = 0; // results per clock per SM, or cycles per step for a latency launch
  double gops = 0;  // results per second over the GPU, from events
  int max_blocks_on_one_sm = 0;
};

/// One point's samples: `value` per sample, the event rate beside each.
struct PointSamples {
  TimedSamples t;
  std::vector<double> gops;
  int max_blocks_on_one_sm = 0;

  Series values() const { return Series(t); }
  Series rates() const { // the same samples' flags, stop and window
    TimedSamples r = t;
    r.ms = gops;
    return Series(r);
  }
};

/// Samples `once` (warm-up first): adaptively up to `cap_s`, or, for a peak, for at least
/// `cap_s` whatever the spread (fixed count, noisy by the shared rule), so the energy counter
/// covers the window.
template <class Once>
PointSamples sample_point(const SamplingPolicy& base, double cap_s, bool whole_window,
                          Once&& once) {
  SamplingPolicy policy = base;
  policy.max_point_s = std::min(policy.max_point_s, cap_s);
  for (int i = 0; i < policy.warmup; ++i)
    once();
  PointSamples out;
  in_flight::PointScope scope;
  const auto keep = [&](const Sample& s) {
    out.gops.push_back(s.gops);
    out.max_blocks_on_one_sm = std::max(out.max_blocks_on_one_sm, s.max_blocks_on_one_sm);
  };
  if (!whole_window) {
    AdaptiveSampler sampler(policy);
    while (sampler.want_more()) {
      const Sample s = once();
      sampler.add(s.value, policy.check_sample());
      keep(s);
    }
    out.t = sampler.finish();
  } else {
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed_s = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    while (int(out.t.ms.size()) < policy.max_samples &&
           (int(out.t.ms.size()) < policy.min_samples || elapsed_s() < cap_s)) {
      const Sample s = once();
      out.t.ms.push_back(s.value); // the samples' values, not times: TimedSamples carries them
      out.t.excluded.push_back(policy.check_sample());
      keep(s);
    }
    finish_fixed(out.t, policy);
  }
  out.t.window = scope.finish();
  return out;
}

} // namespace apod::throughput
