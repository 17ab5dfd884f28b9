// occupancy's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which occupancy.cu records under, and the points a run measures.
#pragma once

#include "core/catalog.hpp"

#include <vector>

namespace apod::occupancy {

inline constexpr const char* experiment = "occupancy";

/// Which resource the point varies: registers held per thread, block size (the guide's worked
/// example), dynamic shared memory per block, or the register cap that forces spills.
inline const Param study{
    .key = "study",
    .title = "what is varied",
    .labels = {{"registers", "registers per thread (copy, 256-thread blocks)"},
               {"guide_example", "block size at 33-40 registers (the guide's 10.1.1 example)"},
               {"shared_memory", "dynamic shared memory per block (copy, 256-thread blocks)"},
               {"spill", "register cap (__launch_bounds__) on 64 FMA chains: spills"}}};
inline const Param block_size{.key = "block_size", .title = "threads per block"};
inline const Param held_registers{.key = "held_registers",
                                  .title = "registers held live beyond the copy's own"};
inline const Param shared_kib{.key = "dynamic_shared_kib",
                              .title = "dynamic shared memory per block (KiB)"};
inline const Param min_blocks{.key = "min_blocks_per_sm",
                              .title = "__launch_bounds__ minimum blocks per SM (0: none)"};

inline constexpr const char* registers_study = "registers";
inline constexpr const char* guide_study = "guide_example";
inline constexpr const char* shared_study = "shared_memory";
inline constexpr const char* spill_study = "spill";

inline const Metric flop_rate{.name = "flop_rate",
                              .unit = "GFLOP/s",
                              .direction = Direction::higher,
                              .metric_class = MetricClass::on_chip,
                              .title = "FP32 FMA rate (2 FLOP per FMA)"};
inline const Metric achieved{.name = "achieved_occupancy",
                             .unit = "1",
                             .direction = Direction::higher,
                             .metric_class = MetricClass::derived,
                             .title = "achieved occupancy (resident warps per SM-cycle / max)"};
inline const Metric theoretical{.name = "theoretical_occupancy",
                                .unit = "1",
                                .direction = Direction::higher,
                                .metric_class = MetricClass::derived,
                                .title = "theoretical occupancy (occupancy API)"};

/// The held-register counts of the copy kernels (template instances in occupancy.cu).
const std::vector<int>& held_register_counts();
/// Held registers of the guide-example kernel: 36 registers per thread on sm_90 and sm_75, 38 on
/// sm_80 with CUDA 13 (ptxas -v); any count from 33 to 40 rounds to the 1280 registers per warp
/// of the guide's 37, so the example's arithmetic holds for it exactly.
inline constexpr int guide_held_registers = 20;
/// __launch_bounds__(256, n) variants of the spill kernel.
const std::vector<int>& spill_min_blocks();

/// One point a run measures.
struct Shape {
  const char* study = registers_study;
  int block_size = 256;
  int held_registers = 0;
  int shared_kib = 0;
  int min_blocks = 0;
};
/// The points of a run on a device with `shared_per_block` bytes of opt-in shared memory per
/// block (0: unknown; every shared point is then listed, those past 48 KiB conditionally).
std::vector<Shape> shapes(bool quick, bool full, int64_t shared_per_block);

} // namespace apod::occupancy
