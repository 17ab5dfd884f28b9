// Environment and time, for the reader who asks whether two runs are comparable: what differs
// between the runs' environments, where the time went, what NVML saw (telemetry), and each run's
// environment (the newest runs; the rest are in the database). Built by report/provenance.cpp,
// report/charts/time.cpp and report/telemetry.cpp.
#include "sections/environment.hpp"

#include "charts/time.hpp"
#include "provenance.hpp"
#include "telemetry.hpp"

#include <fmt/format.h>

namespace apod::report {

namespace {
// A panel or a bar per run stops helping past a few dozen runs; the history shows them all.
constexpr std::size_t panels_shown = 24;
constexpr std::size_t time_bars_shown = 60;
} // namespace

mustache::data environment_section(const PageContext& context) {
  const PageModel& page = context.page;
  if (page.runs.empty())
    return false;
  mustache::data section;
  section.set("differences", environment_differences(page));
  section.set("time", time_chart(page, time_bars_shown, context.charts));
  section.set("telemetry", telemetry_block(page, context.charts));
  section.set("environments", environment_panels(page, panels_shown));
  section.set("panels_note",
              text_or_false(page.runs.size() > panels_shown
                                ? fmt::format("The environments of the newest {} of {} runs; "
                                              "`apod export` gives every run's.",
                                              panels_shown, page.runs.size())
                                : ""));
  return section;
}

} // namespace apod::report
