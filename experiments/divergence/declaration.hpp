// divergence's declaration (declaration.cpp registers it): its params and metric as named
// constants, which divergence.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <vector>

namespace apod::divergence {

inline constexpr const char* experiment = "divergence";

/// The branch's condition: uniform per warp (threadIdx.x / warpSize) or per lane (lane mod k).
inline const Param condition{.key = "condition",
                             .title = "branch condition",
                             .labels = {{"warp_uniform", "warp-uniform (warp index mod k)"},
                                        {"divergent", "divergent (lane mod k)"}}};
inline const Param paths{.key = "paths_per_warp", .title = "paths a warp's lanes take"};
/// The code under the branch: hundreds of FMAs per path, or one the compiler predicates.
inline const Param body{.key = "body",
                        .title = "code under the branch",
                        .labels = {{"long", "hundreds of FMAs per path (a real branch)"},
                                   {"short", "one FMA under an if (predicated)"}}};

inline constexpr const char* uniform = "warp_uniform";
inline constexpr const char* divergent = "divergent";
inline constexpr const char* long_body = "long";
inline constexpr const char* short_body = "short";

inline const Metric fma_rate{.name = "thread_fma_rate",
                             .unit = "GFMA/s",
                             .direction = Direction::higher,
                             .metric_class = MetricClass::on_chip,
                             .title = "FMAs per second (each thread's, summed)"};

/// The path counts swept: 1, 2, 4, ..., 32 (a lane each at 32).
const std::vector<int>& path_counts();

/// The names of the extern "C" kernels, so cuobjdump -fun finds them (test_divergence_gpu).
inline constexpr const char* long_kernel_name = "apod_divergence_long_branch";
inline constexpr const char* short_kernel_name = "apod_divergence_short_branch";

/// How predication was established, stored with the short-branch points.
inline constexpr const char* predication_sentence =
    "From the SASS and the timing: the gpu test test_divergence_gpu runs cuobjdump -sass -fun "
    "apod_divergence_short_branch on its own binary and requires the listing for the GPU's "
    "architecture to hold no BRX and at most 4 BRA (the loop's guard and back edge, the exit's "
    "self-loop) around its 32 conditional FFMAs, while the long branch's holds at least 32 "
    "branches; and the divergent short branch's rate must equal the warp-uniform one "
    "(slowdown_vs_uniform ~1).";

} // namespace apod::divergence
