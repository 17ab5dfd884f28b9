// fault_injection: a test-only experiment (hidden: not listed, not in the default matrix, run
// with `--only fault_injection`) that breaks the CUDA context on purpose, so that the runner's
// fault isolation can be tested on a real GPU (tests/reliability, docs/reliability.md).
// APOD_FAULT_INJECTION chooses the fault:
//   illegal_address  a kernel stores through an address no allocation covers
//                    (cudaErrorIllegalAddress, a sticky error: the context is unusable after it)
//   trap             a kernel executes __trap() (a sticky launch failure)
//   none or unset    no fault: one small copy, timed and verified (the control)
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"

#include <cstdlib>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr uint64_t seed = 0xFA017;
constexpr size_t control_words = size_t(1) << 20;

__global__ void store_through(int* address, int value) {
  *address = value;
}

__global__ void trap_kernel() {
  __trap();
}

__global__ void copy_kernel(uint32_t* out, const uint32_t* in, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

std::string fault_mode() {
  const char* mode = std::getenv("APOD_FAULT_INJECTION");
  return mode && *mode ? mode : "none";
}

// The control: a verified point, so the experiment itself is known to work when not told to fail.
void control(ExperimentContext& ctx) {
  DeviceBuffer<uint32_t> in(control_words), out(control_words);
  fill_device(in.get(), control_words, seed);
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_samples = policy.min_samples; // a fixed, small count: this is no measurement
  const unsigned grid = static_cast<unsigned>(control_words / 256);
  const TimedSamples t = time_samples_ms(policy, nullptr, [&](cudaStream_t s) {
    copy_kernel<<<grid, 256, 0, s>>>(out.get(), in.get(), control_words);
    APOD_CUDA_LAUNCH();
  });
  std::vector<uint32_t> result(control_words);
  APOD_CUDA(cudaMemcpy(result.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  for (size_t i = 0; i < control_words; ++i)
    wrong += result[i] != expected_fill<uint32_t>(seed, i);
  ctx.record(bandwidth_measurement({{"fault", "none"}}, 2.0 * out.bytes(), Series(t), wrong == 0));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const std::string mode = fault_mode();
  if (mode == "none")
    return control(ctx);
  if (mode == "illegal_address") {
    // Address zero is never mapped on the device.
    store_through<<<1, 1>>>(nullptr, 1);
  } else if (mode == "trap") {
    trap_kernel<<<1, 1>>>();
  } else {
    throw InputError("APOD_FAULT_INJECTION must be illegal_address, trap or none, not '" + mode +
                     "'");
  }
  // Launches are asynchronous: the fault surfaces here, and the checking helper throws it with
  // the CUDA error's name and text, which the runner stores as the experiment's error.
  APOD_CUDA(cudaDeviceSynchronize());
  throw std::runtime_error("fault_injection: the '" + mode + "' kernel did not fault the context");
}

} // namespace

APOD_EXPERIMENT("fault_injection", run);

} // namespace apod
