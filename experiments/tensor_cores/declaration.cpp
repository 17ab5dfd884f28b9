// tensor_cores' declaration: dense matrix-multiply rates per precision, apod's mma.sync loop
// (the instruction peak) beside cuBLASLt's GEMMs (the library rate), read against the
// theoretical dense rate and, along arithmetic intensity, against the DRAM slope.
#include "declaration.hpp"

namespace apod::tensor {

std::vector<int> gemm_sizes(bool quick) {
  return quick ? std::vector<int>{1024, 2048} : std::vector<int>{1024, 2048, 4096, 8192};
}

namespace {

std::vector<PlannedPoint> plan(const PlanInput& in) {
  const DeviceInfo& d = in.device;
  std::vector<PlannedPoint> points;
  for (const Precision p : all_precisions) {
    const char* name = precision_name(p);
    if (mma_supported(p, d.cc_major, d.cc_minor)) {
      points.push_back({{{precision.key, name}, {method.key, method_mma}}, {tensor_rate.name}});
      points.push_back(
          {{{precision.key, name}, {method.key, method_mma}}, {peak_tensor_rate.name}});
    }
    if (!library_supported(p, d.cc_major, d.cc_minor))
      continue;
    const std::string when = p == Precision::fp8_e4m3
                                 ? std::string(library_when) +
                                       " (FP8: TN layout, FP32 output, where cuBLASLt accepts it)"
                                 : std::string(library_when);
    for (const int n : gemm_sizes(in.quick))
      points.push_back({{{precision.key, name},
                         {method.key, method_library},
                         {size.key, n},
                         {intensity.key, gemm_flops_per_byte(n, p)}},
                        {tensor_rate.name},
                        when});
    points.push_back(
        {{{precision.key, name}, {method.key, method_library}}, {peak_tensor_rate.name}, when});
  }
  return points;
}

Chart roofline_chart() {
  Chart c = Chart::sweep_of(tensor_rate)
                .along(intensity, true)
                .colour(precision)
                .only_where(method, method_library);
  c.log_y = true;
  c.mark = "point";
  c.y_title = "achieved TFLOP/s (TOP/s for int8; log scale)";
  c.rules.push_back({.from = RuleSpec::From::extra,
                     .metric = peak_tensor_rate.name,
                     .extra = keys::limit,
                     .label = "dense peak",
                     .unit = "TFLOP/s",
                     .per_series = true});
  c.says("cuBLASLt GEMM rates against arithmetic intensity, per precision (the tensor-core "
         "roofline)",
         {"Each point is an n x n x n GEMM (n = 1024 to 8192): 2n^3 operations over the bytes of "
          "A and B read once and D written once. Each point's own limit is the roofline min(dense "
          "peak, intensity x theoretical DRAM bandwidth); the horizontal lines are each "
          "precision's theoretical dense rate: SM clock x SMs x dense operations per clock per SM "
          "(derived from NVIDIA's A100 and H100 whitepaper figures)."});
  return c;
}

Chart peaks_chart() {
  Chart c = Chart::bars_of(peak_tensor_rate).along(precision).colour(method);
  c.says("Peak dense rate per precision: apod's mma.sync loop against cuBLASLt",
         {"mma.sync: every warp keeps 8 independent accumulators in registers and issues "
          "mma.sync on fragments loaded once (the instruction's peak, no memory traffic); "
          "cuBLASLt: the best of its GEMM sizes. Each bar is read against the theoretical dense "
          "rate of its precision."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "Tensor cores: dense matrix-multiply rates (FP16, BF16, FP8, TF32, INT8, FP64)",
    .description =
        "Dense matrix-multiply rates of the tensor cores per input precision: FP16 and BF16 (FP32 "
        "accumulate), FP8 e4m3 (FP32 accumulate, cc 8.9 and later), TF32 (FP32 inputs), INT8 "
        "(INT32 accumulate; its figures count integer operations, TOP/s, two per multiply-add as "
        "NVIDIA's TOPS do) and FP64. Two ways: (a) apod's own loop on the PTX instruction "
        "mma.sync (m16n8k16 fp16/bf16, m16n8k8 tf32, m16n8k32 s8 and e4m3, m8n8k4 f64): each "
        "warp loads its A and B fragments once and issues mma.sync on 8 independent "
        "accumulators, alternately with B and -B so the integers stay small and the result is "
        "exact, then once more with B; every lane's result is compared exactly with the host's "
        "A x B (fragment layouts from the PTX ISA). This is the instruction's peak, not a GEMM. "
        "(b) cuBLASLt (loaded at run time; its points are missing where the library is not "
        "installed) multiplying square n x n matrices, n = 1024 to 8192, TN layout (A transposed), "
        "FP32 output for the 16- and 8-bit floating types and TF32 (CUBLAS_COMPUTE_32F_FAST_TF32), "
        "INT32 for INT8 (CUBLAS_COMPUTE_32I), FP64 for FP64; 64 sampled output entries are "
        "computed in double on the host from the same inputs (integers in [-2, 2], exact in every "
        "format) and must agree exactly: every partial sum is an integer below 2^24, which an FP32 "
        "accumulator holds exactly in any order (past that the bound would be 2 k u sum|a b|). "
        "Each point carries the theoretical dense rate (SM clock x SMs x dense "
        "operations per clock per SM, from NVIDIA's published peaks) as extra.limit (GEMMs: the "
        "roofline min(peak, intensity x DRAM bandwidth)). Sustained tensor work runs at the "
        "board's "
        "power cap (NVML's SW power-cap reason; the SM clock falls to 1.1-1.7 GHz on an H100): "
        "that is the state measured, so a sample NVML reports a clocks-event reason for is kept, "
        "its low clock included, and counted (extra.samples_throttled, samples_low_clock), the "
        "measured SM clock beside it; a low clock without a reason, or a monitor that stopped "
        "answering, still leaves the sample out. The headline points "
        "(each mma.sync loop, each precision's largest GEMM) sample for at least 0.25 s and carry "
        "the GPU's power during them: the energy counter, polled on a thread, moves in steps about "
        "0.1 s apart, so the power is its increase between its first and last step inside the "
        "sampling over the time between them, with TFLOP/s per watt.",
    .citation = "PTX ISA, Warp-level matrix multiply-accumulate instructions (mma); cuBLAS "
                "documentation, cuBLASLt API (cublasLtMatmul); NVIDIA A100 and H100 Tensor Core "
                "GPU Architecture whitepapers (peak dense rates); Notes on CUDA (seed 002): peak "
                "FLOPS and FLOPs per byte",
    .version = 1,
    .order = 67,
    .chapter = Chapter::compute,
    .params = {precision, method, size, intensity},
    .metrics = {tensor_rate, peak_tensor_rate},
    .extras = {{"flops", "operations per timed GEMM or launch (2 per multiply-add)"},
               {"peak_tflops", "the precision's theoretical dense rate"},
               {"ops_per_clock_per_sm", "dense operations per clock per SM of the precision"},
               {"sm_clock_khz", "the SM clock the theoretical rate is computed at"},
               {"elements_wrong", "outputs outside the tolerance"},
               {"elements_checked", "outputs compared with the host's reference"},
               {"max_abs_error", "largest |output - reference| among those checked"},
               {"tolerance", "how the tolerance is set"},
               {"launches_per_sample", "GEMMs or kernel launches inside one timed sample"},
               {"iterations", "mma.sync pairs (B, then -B) each accumulator runs"},
               {"warps", "warps of the mma.sync launch"},
               {"chains", "independent accumulators per warp"},
               {"mma_shape", "the mma.sync shape"},
               {"kernel", "the launch's kernel facts"},
               {"library", "the cuBLASLt loaded (or why none)"},
               {"workspace_bytes", "cuBLASLt's workspace"},
               {"dram_gbs", "the theoretical DRAM bandwidth of the roofline"},
               {"watts", "mean GPU power during the point's sampling: the energy counter's "
                         "increase between its first and last step inside it over their interval"},
               {"tflops_per_watt", "median rate over that power"},
               {"energy_span_s", "the interval between those steps"},
               {"samples_throttled", "samples NVML reported a clocks-event reason for (the power "
                                     "cap), kept"},
               {"samples_low_clock", "of those, the ones under the run's low-clock threshold"},
               {"sm_clock_median_mhz", "median SM clock measured over the samples"},
               {"winner", "the params of the point whose samples the peak carries"}},
    .headline = peak_tensor_rate.name,
    .charts = {roofline_chart(), peaks_chart()},
    .plan = plan,
});

} // namespace apod::tensor
