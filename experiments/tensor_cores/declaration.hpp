// tensor_cores' declaration (declaration.cpp registers it): its params and metrics as named
// constants, which tensor_cores.cu records under.
#pragma once

#include "core/catalog.hpp"
#include "tensor_model.hpp"

#include <vector>

namespace apod::tensor {

inline constexpr const char* experiment = "tensor_cores";

inline const Param precision{.key = "precision", .title = "input precision"};
inline const Param method{.key = "method",
                          .title = "method",
                          .labels = {{"mma_sync", "apod's mma.sync loop (instruction peak)"},
                                     {"cublaslt", "cuBLASLt GEMM (library rate)"}}};
inline const Param size{.key = "size", .title = "matrix size n (n x n x n GEMM)"};
inline const Param intensity{.key = "flops_per_byte",
                             .title = "arithmetic intensity (2n^3 FLOP per byte of A, B and D)"};

/// One metric for every precision, so they share a chart and a ceiling: int8 figures count
/// integer operations (TOP/s), two per multiply-add, as NVIDIA's TOPS do.
inline const Metric tensor_rate{.name = "tensor_rate",
                                .unit = "TFLOP/s",
                                .direction = Direction::higher,
                                .metric_class = MetricClass::on_chip};
/// The best verified point per precision and method, read against the theoretical dense rate.
inline const Metric peak_tensor_rate{.name = "peak_tensor_rate",
                                     .unit = "TFLOP/s",
                                     .direction = Direction::higher,
                                     .metric_class = MetricClass::on_chip};

inline constexpr const char* method_mma = "mma_sync";
inline constexpr const char* method_library = "cublaslt";

/// The GEMM sizes cuBLASLt is swept over (--quick: the first two).
std::vector<int> gemm_sizes(bool quick);

/// Why a cuBLASLt point may be missing from a run (PlannedPoint::when).
inline constexpr const char* library_when =
    "when libcublasLt.so.13 (or libcublasLt.so) loads at run time and its heuristic offers an "
    "algorithm for the precision";

} // namespace apod::tensor
