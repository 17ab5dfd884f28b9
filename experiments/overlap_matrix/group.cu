// The overlap matrix's trials on the GPU: the gist's three kernels, one trial of each variant,
// and the rounds that visit every row (schedule.hpp decides the order, the warm-up and when to
// stop). Each trial's output is checked on the host against reference.hpp's answer.
#include "group.hpp"

#include "core/cuda_memory.cuh"
#include "core/timing.cuh"
#include "core/verify.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>

namespace apod {

namespace {

constexpr int block_dim = 256; // the gist's BLOCK_DIM (its occupancy-calculator choice)

// The gist's kernels, unchanged: int index, no bounds check (n is a multiple of block_dim).
__global__ void kernel_fast(float* data) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  data[i] = -2.3f * data[i];
}
__global__ void kernel_medium(float* data) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  data[i] = asinf(data[i]);
}
__global__ void kernel_slow(float* data) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  data[i] = log10f(expf(asinf(data[i])));
}

void launch(Kernel k, float* data, size_t n, cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>(n / block_dim);
  if (k == Kernel::fast)
    kernel_fast<<<grid, block_dim, 0, stream>>>(data);
  if (k == Kernel::medium)
    kernel_medium<<<grid, block_dim, 0, stream>>>(data);
  if (k == Kernel::slow)
    kernel_slow<<<grid, block_dim, 0, stream>>>(data);
  APOD_CUDA_LAUNCH();
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

struct Trial {
  double overall_ms = 0, kernel_ms = 0, h2d_ms = 0, d2h_ms = 0, host_init_ms = 0, gaps_ms = 0;
  bool copies = false;    // h2d_ms, d2h_ms and gaps_ms apply
  bool host_init = false; // host_init_ms applies (the gist's timed host writing)
  CheckResult check;
};

// A row's host and device memory as the gist's runme allocates it: cudaHostAlloc (mapped or
// not) or new float[n] (left uninitialised, as the gist's `new T[N]`), and cudaMalloc unless
// the kernel works on the mapped host pages themselves.
struct TrialMemory {
  std::optional<PinnedBuffer<float>> pinned;
  std::unique_ptr<float[]> pageable;
  DeviceBuffer<float> device;
  float* host = nullptr;
  float* device_view = nullptr;

  TrialMemory(const Row& row, size_t n) {
    if (row.pinned)
      host = pinned.emplace(n, row.mapped ? cudaHostAllocMapped : cudaHostAllocDefault).get();
    else
      host = (pageable = std::unique_ptr<float[]>(new float[n])).get();
    if (row.mapped) {
      APOD_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_view), host, 0));
    } else {
      device = DeviceBuffer<float>(n);
      device_view = device.get();
    }
  }
};

// One trial of the gist's runme: stream, memory and its four events created for the trial; the
// overall timer starts before the host writes the input with sin() and stops after the D2H copy;
// the kernel timer brackets the launch alone.
Trial gist_trial(const Row& row, size_t n, const Expected& expected) {
  OwnedStream stream(row.new_stream);
  const cudaStream_t s = stream.get();
  TrialMemory memory(row, n);
  EventPair overall, kernel;
  Trial t;
  overall.start(s);
  const auto init_start = std::chrono::steady_clock::now();
  write_gist_input(memory.host, n);
  t.host_init_ms = ms_since(init_start);
  t.host_init = true;
  const size_t bytes = n * sizeof(float);
  if (!row.mapped)
    APOD_CUDA(cudaMemcpyAsync(memory.device_view, memory.host, bytes, cudaMemcpyHostToDevice, s));
  kernel.start(s);
  launch(row.kernel, memory.device_view, n, s);
  kernel.stop(s);
  if (!row.mapped)
    APOD_CUDA(cudaMemcpyAsync(memory.host, memory.device_view, bytes, cudaMemcpyDeviceToHost, s));
  overall.stop(s);
  t.overall_ms = overall.elapsed_ms(); // waits for the overall stop, as the gist does
  t.kernel_ms = kernel.elapsed_ms();
  t.check = check_outputs(memory.host, expected);
  return t;
}

// The host writes the input before any event is recorded. A single thread copying 16 MiB takes
// longer than the copy engines do, so large inputs are written by all host cores.
void write_input(float* host, const std::vector<float>& input) {
  const size_t bytes = input.size() * sizeof(float);
  if (bytes < (size_t(4) << 20)) {
    std::memcpy(host, input.data(), bytes);
    return;
  }
  parallel_count(input.size(), [&](size_t b, size_t e) {
    std::memcpy(host + b, input.data() + b, (e - b) * sizeof(float));
    return size_t(0);
  });
}

// The corrected variant's memory, allocated once per group and shared by the rows of each kind
// (every trial rewrites the input first), and the one created stream of the new-stream rows.
// The cold rows' inputs, one pinned and one pageable, are written here, before the first round,
// and never touched by the CPU again: by the time a cold row copies one, the other rows' writes
// (16 MiB each) have pushed it out of the CPU's caches.
struct SharedMemory {
  std::vector<float> pageable;
  PinnedBuffer<float> pinned, mapped;
  DeviceBuffer<float> device;
  float* mapped_device = nullptr;
  OwnedStream stream;
  std::vector<float> cold_pageable;
  PinnedBuffer<float> cold_pinned;

  SharedMemory(size_t n, bool cold_rows, const std::vector<float>& input)
      : pageable(n), pinned(n), mapped(n, cudaHostAllocMapped), device(n), stream(true),
        cold_pageable(cold_rows ? n : 0), cold_pinned(cold_rows ? n : 1) {
    APOD_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_device), mapped.get(), 0));
    if (cold_rows) {
      write_input(cold_pageable.data(), input);
      write_input(cold_pinned.get(), input);
    }
  }
  const float* cold_input(const Row& r) {
    return r.pinned ? cold_pinned.get() : cold_pageable.data();
  }
  float* host(const Row& r) {
    return r.mapped ? mapped.get() : r.pinned ? pinned.get() : pageable.data();
  }
  float* device_view(const Row& r) { return r.mapped ? mapped_device : device.get(); }
  cudaStream_t stream_of(const Row& r) const { return r.new_stream ? stream.get() : nullptr; }
};

// Six events: start and stop of the H2D copy, the kernel and the D2H copy.
class StageEvents {
public:
  enum Mark { h2d_start, h2d_stop, kernel_start, kernel_stop, d2h_start, d2h_stop, count };
  StageEvents() {
    for (auto& e : events_)
      APOD_CUDA(cudaEventCreate(&e));
  }
  ~StageEvents() {
    for (auto e : events_)
      cudaEventDestroy(e);
  }
  StageEvents(const StageEvents&) = delete;
  StageEvents& operator=(const StageEvents&) = delete;
  void record(Mark m, cudaStream_t s) { APOD_CUDA(cudaEventRecord(events_[m], s)); }
  double ms(Mark from, Mark to) const {
    APOD_CUDA(cudaEventSynchronize(events_[to]));
    float ms = 0;
    APOD_CUDA(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return ms;
  }

private:
  std::array<cudaEvent_t, count> events_{};
};

Trial corrected_trial(const Row& row, SharedMemory& memory, const std::vector<float>& input,
                      const Expected& expected, StageEvents& events) {
  using E = StageEvents;
  float* host = memory.host(row);
  float* device = memory.device_view(row);
  const cudaStream_t s = memory.stream_of(row);
  const size_t bytes = input.size() * sizeof(float);
  // A cold row copies its untouched input and brings the result back into the row's usual
  // buffer; every other row writes the input into that buffer first.
  const float* source = row.cold ? memory.cold_input(row) : host;
  if (!row.cold)
    write_input(host, input);
  Trial t;
  t.copies = !row.mapped;
  if (t.copies) {
    events.record(E::h2d_start, s);
    APOD_CUDA(cudaMemcpyAsync(device, source, bytes, cudaMemcpyHostToDevice, s));
    events.record(E::h2d_stop, s);
  }
  events.record(E::kernel_start, s);
  launch(row.kernel, device, input.size(), s);
  events.record(E::kernel_stop, s);
  if (t.copies) {
    events.record(E::d2h_start, s);
    APOD_CUDA(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s));
    events.record(E::d2h_stop, s);
  }
  t.kernel_ms = events.ms(E::kernel_start, E::kernel_stop);
  t.overall_ms = t.kernel_ms; // a mapped row's only stage
  if (t.copies) {
    t.h2d_ms = events.ms(E::h2d_start, E::h2d_stop);
    t.d2h_ms = events.ms(E::d2h_start, E::d2h_stop);
    t.overall_ms = events.ms(E::h2d_start, E::d2h_stop);
    t.gaps_ms = t.overall_ms - t.h2d_ms - t.kernel_ms - t.d2h_ms;
  }
  t.check = check_outputs(host, expected);
  return t;
}

void add(RowSamples& row, const Trial& t, uint8_t flags) {
  row.overall_ms.add(t.overall_ms, flags);
  row.kernel_ms.add(t.kernel_ms, flags);
  if (t.host_init)
    row.host_init_ms.push_back(t.host_init_ms);
  if (t.copies) {
    row.h2d_ms.add(t.h2d_ms, flags);
    row.d2h_ms.add(t.d2h_ms, flags);
    row.stage_gaps_ms.push_back(t.gaps_ms);
  }
}

std::vector<size_t> checked_order(const RoundOrder& order, uint64_t round, size_t count) {
  std::vector<size_t> o = order(round);
  std::vector<bool> seen(count, false);
  for (size_t r : o) {
    if (r >= count || seen[r])
      throw std::logic_error("overlap_matrix: a round's order is not a permutation of the rows");
    seen[r] = true;
  }
  if (o.size() != count)
    throw std::logic_error("overlap_matrix: a round's order is not a permutation of the rows");
  return o;
}

// Warm-up rounds until WarmupRule is met, then measured rounds until round_stop_reason says
// stop; the monitor is asked after every measured trial.
template <class TrialFn>
GroupSamples run_rounds(size_t row_count, const RoundLimits& limits, const SamplingPolicy& policy,
                        const RoundOrder& order, TrialFn&& trial) {
  GroupSamples out;
  out.rows.resize(row_count);
  uint64_t round = 0;
  WarmupRule warmup(limits.warmup_rounds);
  for (bool done = false; !done; ++round) {
    double total_ms = 0;
    for (size_t r : checked_order(order, round, row_count)) {
      const Trial t = trial(r);
      out.rows[r].check.merge(t.check);
      total_ms += t.overall_ms;
    }
    done = warmup.done_after(total_ms);
  }
  out.warmup_rounds = warmup.rounds();
  out.warmup_stable = warmup.stable();
  const auto start = std::chrono::steady_clock::now();
  while (out.stop_reason.empty()) {
    for (size_t r : checked_order(order, round, row_count)) {
      const Trial t = trial(r);
      out.rows[r].check.merge(t.check);
      add(out.rows[r], t, policy.check_sample());
    }
    ++round, ++out.rounds;
    out.stop_reason = round_stop_reason(out.rounds, ms_since(start) / 1000, limits.min_rounds,
                                        limits.max_rounds, limits.budget_s);
  }
  for (RowSamples& row : out.rows)
    for (Series* s : {&row.overall_ms, &row.kernel_ms, &row.h2d_ms, &row.d2h_ms})
      if (!s->empty())
        finish_series(*s, out.stop_reason, policy);
  return out;
}

} // namespace

const char* variant_name(Variant v) {
  return v == Variant::gist ? "gist" : "corrected";
}

GroupSamples run_group(Variant variant, size_t n, const std::vector<Row>& rows,
                       const RoundLimits& limits, const SamplingPolicy& policy,
                       const RoundOrder& order) {
  if (n == 0 || n % block_dim != 0)
    throw std::invalid_argument("overlap_matrix: n must be a positive multiple of 256");
  // The gist asks the whole device to prefer L1 over shared memory; asking per kernel does the
  // same for these kernels without changing the device for the experiments that follow.
  APOD_CUDA(cudaFuncSetCacheConfig(kernel_fast, cudaFuncCachePreferL1));
  APOD_CUDA(cudaFuncSetCacheConfig(kernel_medium, cudaFuncCachePreferL1));
  APOD_CUDA(cudaFuncSetCacheConfig(kernel_slow, cudaFuncCachePreferL1));
  std::vector<float> input(n);
  parallel_count(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i)
      input[i] = gist_input(i);
    return size_t(0);
  });
  std::vector<Expected> expected;
  for (const Kernel k : all_kernels)
    expected.push_back(expected_outputs(k, input.data(), n));
  const auto expected_for = [&](const Row& row) -> const Expected& {
    return expected[static_cast<size_t>(row.kernel)];
  };
  if (variant == Variant::gist)
    return run_rounds(rows.size(), limits, policy, order,
                      [&](size_t r) { return gist_trial(rows[r], n, expected_for(rows[r])); });
  const bool cold_rows = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.cold; });
  if (variant == Variant::gist && cold_rows)
    throw std::invalid_argument("overlap_matrix: the gist variant has no cold rows");
  SharedMemory memory(n, cold_rows, input);
  StageEvents events;
  return run_rounds(rows.size(), limits, policy, order, [&](size_t r) {
    return corrected_trial(rows[r], memory, input, expected_for(rows[r]), events);
  });
}

} // namespace apod
