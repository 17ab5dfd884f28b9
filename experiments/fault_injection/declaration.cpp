// fault_injection's declaration: a test of apod itself, hidden from the matrix.
#include "core/catalog.hpp"
#include "core/series.hpp"

namespace apod {
namespace {

// Its one point: the control copy. Under an injected fault the context breaks before anything
// is recorded, and the run stores the experiment as failed instead.
std::vector<PlannedPoint> plan(const PlanInput&) {
  return {{{{"fault", "none"}}, {metrics::effective_bandwidth.name}}};
}

APOD_DECLARE(Declaration{
    .name = "fault_injection",
    .title = "Fault injection (test only)",
    .description =
        "Breaks the CUDA context on purpose (APOD_FAULT_INJECTION=illegal_address or trap) so "
        "tests can check that one faulting kernel fails only its own experiment.",
    .citation = "none: a test of apod itself",
    .version = 1,
    .order = 15,
    .chapter = Chapter::device_memory,
    .hidden = true,
    .params = {{.key = "fault", .title = "fault"}},
    .metrics = {metrics::effective_bandwidth},
    .plan = plan,
});

} // namespace
} // namespace apod
