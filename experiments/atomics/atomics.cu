// Atomic operations under contention (Tuning CUDA Applications for Pascal, shared/seeds/003_...,
// 1.4.4 "Atomic Memory Operations": native shared-memory atomics and 32/64-bit CAS, atomicAdd
// generalised to 32- and 64-bit integers and floats, FP64 included, system-wide atomics through
// atomic[Op]_system; Notes on CUDA, 002_...: shared-memory atomics are much faster than global
// ones, the GPU serialises the threads on one variable). Each thread of a full grid updates the
// address it shares with threads_per_address - 1 others a calibrated number of times per launch;
// the figure is operations per second. Global counters accumulate over launches whose signs
// alternate (+1, -1), so a float counter stays an exact integer, and every counter must equal the
// net of the launches times its threads; shared counters are written out by each block and must
// equal its threads times the operations. System scope: atomicAdd_system on mapped pinned host
// memory (cudaHostAlloc with cudaHostAllocMapped, freed when the point ends), read back by the
// host.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "model.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace apod {
namespace {

using namespace atomics;

constexpr double point_time_cap_s = 0.05;        // ~35 points: 1.75 s at most
constexpr double quick_point_time_cap_s = 0.008; // --quick: 30 points, 0.24 s at most
constexpr double target_launch_ms = 0.5;         // the calibration's aim per launch
constexpr double quick_target_launch_ms = 0.1;
constexpr int max_ops = 4096; // per thread per launch

// The Programming Guide's atomicAdd for double before compute capability 6.0: read, add, and
// compare-and-swap until no other thread got in between.
__device__ __forceinline__ void cas_add(double* address, double value) {
  auto* word = reinterpret_cast<unsigned long long*>(address);
  unsigned long long old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __double_as_longlong(value + __longlong_as_double(assumed)));
  } while (assumed != old);
}

template <class T, bool Cas> __device__ __forceinline__ void update(T* address, T value) {
  if constexpr (Cas)
    cas_add(address, value);
  else
    atomicAdd(address, value); // result unused: a reduction (RED) instruction
}

template <class T, bool Cas>
__global__ void __launch_bounds__(block_size)
    global_atomic_kernel(T* counters, int threads_per_address, int ops, T value) {
  const uint32_t t = blockIdx.x * uint32_t(block_size) + threadIdx.x;
  T* address = counters + t / uint32_t(threads_per_address);
  for (int i = 0; i < ops; ++i)
    update<T, Cas>(address, value);
}

// Per block: zero the counters, update them, write them out for the host to check.
template <class T, bool Cas>
__global__ void __launch_bounds__(block_size)
    shared_atomic_kernel(T* out, int threads_per_address, int ops, T value) {
  __shared__ T counters[block_size];
  counters[threadIdx.x] = T(0);
  __syncthreads();
  T* address = counters + threadIdx.x / uint32_t(threads_per_address);
  for (int i = 0; i < ops; ++i)
    update<T, Cas>(address, value);
  __syncthreads();
  const uint32_t addresses = block_size / uint32_t(threads_per_address);
  if (threadIdx.x < addresses)
    out[blockIdx.x * addresses + threadIdx.x] = counters[threadIdx.x];
}

__global__ void __launch_bounds__(block_size)
    system_atomic_kernel(int* counters, int threads_per_address, int ops, int value) {
  const uint32_t t = blockIdx.x * uint32_t(blockDim.x) + threadIdx.x;
  int* address = counters + t / uint32_t(threads_per_address);
  for (int i = 0; i < ops; ++i)
    atomicAdd_system(address, value);
}

/// Where a point's counters live: device memory, or mapped pinned host memory (its device
/// pointer), freed when the point ends.
template <class T> struct Counters {
  Counters(const std::string& memory, size_t count) : count(count) {
    if (memory == system_memory) {
      host = std::make_unique<PinnedBuffer<T>>(count, cudaHostAllocMapped);
      std::memset(host->get(), 0, host->bytes());
      APOD_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_ptr), host->get(), 0));
    } else {
      device = DeviceBuffer<T>(count);
      APOD_CUDA(cudaMemset(device.get(), 0, device.bytes()));
      device_ptr = device.get();
    }
  }
  std::vector<T> read() const {
    std::vector<T> values(count);
    if (host)
      std::memcpy(values.data(), host->get(), host->bytes());
    else
      APOD_CUDA(cudaMemcpy(values.data(), device.get(), device.bytes(), cudaMemcpyDeviceToHost));
    return values;
  }
  size_t count;
  T* device_ptr = nullptr;
  DeviceBuffer<T> device;
  std::unique_ptr<PinnedBuffer<T>> host;
};

struct Grid {
  unsigned blocks = 0;
  int threads_per_block = block_size;
  int64_t threads() const { return int64_t(blocks) * threads_per_block; }
};

struct Point {
  std::string memory;
  std::string op;
  int64_t threads_per_address = 1;
  int64_t addresses = 1;
  Series rate;
  bool verified = false;
  json extra;
};

/// One point: calibrate the operations per thread, sample, check every counter on the host.
template <class T, bool Cas>
Point measure(const ExperimentContext& ctx, const std::string& memory, const std::string& op,
              const Grid& grid, int64_t tpa) {
  const bool shared = memory == shared_memory;
  const int64_t threads = grid.threads();
  const int64_t addresses =
      shared ? int64_t(grid.blocks) * address_count(block_size, tpa) : address_count(threads, tpa);
  Counters<T> counters(memory, size_t(addresses));
  NetTally tally;
  const auto launch = [&](cudaStream_t s, int ops) {
    const T value = shared ? T(1) : static_cast<T>(tally.next_sign());
    if (shared)
      shared_atomic_kernel<T, Cas>
          <<<grid.blocks, block_size, 0, s>>>(counters.device_ptr, int(tpa), ops, value);
    else if constexpr (std::is_same_v<T, int> && !Cas) {
      if (memory == system_memory)
        system_atomic_kernel<<<grid.blocks, grid.threads_per_block, 0, s>>>(counters.device_ptr,
                                                                            int(tpa), ops, value);
      else
        global_atomic_kernel<T, Cas>
            <<<grid.blocks, block_size, 0, s>>>(counters.device_ptr, int(tpa), ops, value);
    } else {
      global_atomic_kernel<T, Cas>
          <<<grid.blocks, block_size, 0, s>>>(counters.device_ptr, int(tpa), ops, value);
    }
    APOD_CUDA_LAUNCH();
    tally.launched(ops);
  };

  // Calibration: double the operations per thread until a launch takes about the target.
  const double target = ctx.options.quick ? quick_target_launch_ms : target_launch_ms;
  const int cap = max_ops_per_thread(tpa, max_ops);
  int ops = 1;
  {
    EventPair events;
    for (;;) {
      events.start(nullptr);
      launch(nullptr, ops);
      events.stop(nullptr);
      const auto next = next_calibration_ops(ops, events.elapsed_ms(), target, cap);
      if (!next)
        break;
      ops = *next;
    }
  }

  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s =
      std::min(policy.max_point_s, ctx.options.quick ? quick_point_time_cap_s : point_time_cap_s);
  policy.flush_l2 = false; // the counters are the whole working set; their place is the point
  const TimedSamples t = time_samples_ms(policy, nullptr, [&](cudaStream_t s) { launch(s, ops); });
  if (!shared && tally.net() == 0)
    launch(nullptr, ops); // a net of 0 would pass a kernel that did nothing
  APOD_CUDA(cudaDeviceSynchronize());

  const std::vector<T> values = counters.read();
  const int64_t wrong = shared ? count_wrong(values, int64_t(values.size()) * tpa, tpa, ops)
                               : count_wrong(values, threads, tpa, tally.net());
  Point p{memory, op, tpa, addresses,
          Series(t).map([&](double ms) { return atomic_rate_g(double(threads), ops, ms); })};
  p.verified = wrong == 0;
  p.extra = {{"elements_wrong", wrong},
             {"addresses", addresses},
             {"threads", threads},
             {"ops_per_thread", ops},
             {"launches", tally.launches()}};
  if (shared)
    p.extra["kernel"] = kernel_facts(shared_atomic_kernel<T, Cas>, block_size, grid.blocks);
  else if (memory == system_memory)
    p.extra["kernel"] = kernel_facts(system_atomic_kernel, grid.threads_per_block, grid.blocks);
  else
    p.extra["kernel"] = kernel_facts(global_atomic_kernel<T, Cas>, block_size, grid.blocks);
  return p;
}

Point measure_op(const ExperimentContext& ctx, const std::string& memory, const Operation& op,
                 const Grid& grid, int64_t tpa) {
  if (op.key == "add_int32")
    return measure<int, false>(ctx, memory, op.key, grid, tpa);
  if (op.key == "add_uint64")
    return measure<unsigned long long, false>(ctx, memory, op.key, grid, tpa);
  if (op.key == "add_float")
    return measure<float, false>(ctx, memory, op.key, grid, tpa);
  if (op.key == "add_double")
    return measure<double, false>(ctx, memory, op.key, grid, tpa);
  return measure<double, true>(ctx, memory, op.key, grid, tpa);
}

double median(const Point& p) {
  return p.rate.summary().median;
}

/// Records one operation's points, each with its slowdown against the first (distinct) point.
void record_levels(ExperimentContext& ctx, std::vector<Point>& points, int host_native) {
  const Point& distinct = points.front();
  for (Point& p : points) {
    json extra = p.extra;
    if (distinct.verified && median(p) > 0)
      extra["slowdown_vs_distinct"] = median(distinct) / median(p);
    if (p.memory == system_memory)
      extra["host_native_atomics"] = host_native;
    ctx.record(make_measurement({{memory.key, p.memory},
                                 {operation.key, p.op},
                                 {threads_per_address.key, p.threads_per_address}},
                                atomic_rate, p.rate, p.verified, std::move(extra)));
  }
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const DeviceInfo& d = ctx.device;
  int blocks_per_sm = 0;
  APOD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks_per_sm, global_atomic_kernel<int, false>, block_size, 0));
  Grid full{unsigned(std::max(1, blocks_per_sm) * d.sm_count), block_size};
  Grid system{unsigned(d.sm_count), system_threads_per_sm};
  int host_native = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&host_native, cudaDevAttrHostNativeAtomicSupported, d.ordinal));

  for (const char* m : {global_memory, shared_memory, system_memory}) {
    const Grid& grid = m == std::string(system_memory) ? system : full;
    for (const Operation& op : operations(m)) {
      std::vector<Point> points;
      for (const int64_t tpa : contention_levels(m, op, grid.threads(), ctx.options.quick))
        points.push_back(measure_op(ctx, m, op, grid, tpa));
      record_levels(ctx, points, host_native);
    }
  }
}

} // namespace

APOD_EXPERIMENT(atomics::experiment, run);

} // namespace apod
