#include "trust.hpp"

#include "core/vocabulary.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace apod::report {

namespace {

// The clock monitor's own verdict on a sample (core/vocabulary.hpp, sample_flag): a monitor that
// stopped answering is not a low clock, and is left to the point's sample counts.
constexpr uint8_t clock_flags = sample_flag::low_clock | sample_flag::throttled;

std::size_t samples_under_low_clocks(const Measurement& m) {
  std::size_t n = 0;
  for (const uint8_t flags : m.excluded)
    if (flags & clock_flags)
      ++n;
  return n;
}

// A stretch of low clocks, not a blip: more than one sample in ten flagged. A single flagged
// sample of twelve is the monitor doing its job (the sample is out of the median); more means
// the clocks sagged through part of the point, and the samples around them may have too.
bool under_low_clocks(const Measurement& m) {
  return samples_under_low_clocks(m) * 10 > std::max<std::size_t>(m.samples.size(), 1);
}

} // namespace

std::vector<TrustTag> run_trust(const RunView& run) {
  std::vector<TrustTag> tags;
  const Environment& environment = run.run->environment;
  if (environment.apod_dirty)
    tags.push_back(
        {"dirty build", fmt::format("{} was measured by apod built from commit {} with uncommitted "
                                    "changes: the code that measured it is not in any commit.",
                                    run.name,
                                    environment.apod_commit.empty() ? std::string("(unknown)")
                                                                    : environment.apod_commit)});
  std::size_t points = 0;
  for (const Measurement* m : run.run->measurements())
    if (under_low_clocks(*m))
      ++points;
  // Only readings taken while an experiment ran: between experiments the GPU idles its clocks
  // down, which says nothing of a figure.
  std::size_t throttled = 0;
  for (const TelemetryReading& reading : run.run->telemetry)
    if (!reading.is_event() && reading.experiment && reading.throttle_reasons.value_or(0) != 0)
      ++throttled;
  if (points || throttled) {
    std::string why = run.name + ":";
    if (points)
      why += fmt::format(" {} point{} with more than one sample in ten taken under a low SM clock "
                         "or throttling (left out of their medians)",
                         points, points == 1 ? "" : "s");
    if (throttled)
      why += fmt::format("{} {} NVML reading{} with a throttle reason while an experiment ran",
                         points ? ";" : "", throttled, throttled == 1 ? "" : "s");
    tags.push_back({"low clocks", why + "."});
  }
  return tags;
}

std::vector<TrustTag> point_trust(const PointView& point, const PointVerdict* pair) {
  std::vector<TrustTag> tags;
  std::string noisy;
  if (point.noisy)
    noisy = "Sampling stopped before the median reached its confidence target.";
  if (pair) {
    // Inconclusive counts as noisy only where the machine's own history gave the noise (without
    // one every point is inconclusive on class defaults) and that noise, run to run, is as large
    // as the point's threshold. A point inconclusive for want of history (±0.8 % of noise that
    // 6 runs cannot yet tell from a 1.5 % change) is not noisy: the verdict's "sees" line says
    // what it needs.
    const Decision decision = decision_of(*pair);
    const bool hidden = pair->history_runs >= 2 && pair->noise >= pair->threshold;
    if (decision == Decision::unconfirmed || (decision == Decision::inconclusive && hidden)) {
      const Wording words = wording(decision);
      noisy += fmt::format("{}compare calls it {}: {}{}.", noisy.empty() ? "" : " ", words.word,
                           words.meaning, pair->needs.empty() ? "" : " (" + pair->needs + ")");
    }
  }
  if (!noisy.empty())
    tags.push_back({"noisy", noisy});
  if (under_low_clocks(*point.measurement))
    tags.push_back({"low clocks", fmt::format("{} of {} samples were taken under a low SM clock "
                                              "or throttling and left out of the median.",
                                              samples_under_low_clocks(*point.measurement),
                                              point.measurement->samples.size())});
  return tags;
}

std::string tag_words(const std::vector<TrustTag>& tags) {
  std::string text;
  for (const TrustTag& tag : tags)
    text += (text.empty() ? "" : ", ") + tag.word;
  return text;
}

} // namespace apod::report
