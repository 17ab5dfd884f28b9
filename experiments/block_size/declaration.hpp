// block_size's declaration (declaration.cpp registers it): its params and metrics as named
// constants, which block_size.cu records under, and the points a run measures.
#pragma once

#include "core/catalog.hpp"

#include <string>
#include <vector>

namespace apod::block_size {

inline constexpr const char* experiment = "block_size";

inline const Param kernel{.key = "kernel",
                          .title = "kernel",
                          .labels = {{"copy", "grid-stride float4 copy (memory-bound)"},
                                     {"fma", "4 FP32 FMA chains per thread (compute-bound)"}}};
inline const Param threads{.key = "block_size", .title = "threads per block"};
inline const Param grid{
    .key = "grid",
    .title = "grid size",
    .labels = {{"one_block_per_sm", "one block per SM (threads per SM = block size)"},
               {"one_wave", "one wave (SMs x resident blocks per SM)"},
               {"many_waves", "8 waves"}}};

inline constexpr const char* copy_kernel = "copy";
inline constexpr const char* fma_kernel = "fma";
inline constexpr const char* one_block_per_sm = "one_block_per_sm";
inline constexpr const char* one_wave = "one_wave";
inline constexpr const char* many_waves = "many_waves";
/// Waves of the many_waves grid.
inline constexpr int many_waves_count = 8;

inline const Metric flop_rate{.name = "flop_rate",
                              .unit = "GFLOP/s",
                              .direction = Direction::higher,
                              .metric_class = MetricClass::on_chip,
                              .title = "FP32 FMA rate (2 FLOP per FMA)"};

/// One point a run measures.
struct Shape {
  std::string kernel;
  int block_size = 256;
  std::string grid;
};
/// The points of a run: the default block sizes 32, 64, 128, 192, 256, 512, 1024 (--full adds
/// 96, 384, 768) for each kernel and grid; --quick three block sizes and two grids.
std::vector<Shape> shapes(bool quick, bool full);

} // namespace apod::block_size
