// Unified memory, Tuning CUDA Applications for Pascal 1.4.8 (shared/seeds/003_...) and the Notes on
// CUDA (002: cudaMallocManaged): since Pascal a kernel touching a managed page that is not resident
// faults, and the driver migrates the page on demand; cudaMemPrefetchAsync moves a range ahead of
// use and cudaMemAdvise hints where pages should live (the "migration hints" the guide mentions).
// One managed buffer is read by a kernel in each state, with the migrations' own rates; each state
// starts from an untimed round, as the first migration also allocates the device's pages. Never
// more than an eighth of the free device memory is asked for (layout.hpp): oversubscribed managed
// memory evicts under the kernel and can stall the GPU.
#include "../host_transfer/declaration.hpp"
#include "declaration.hpp"
#include "layout.hpp"

#include "core/cuda_memory.cuh"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/in_flight.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace apod {
namespace {

namespace um = unified;

constexpr int block_size = 256;
constexpr int blocks_per_sm = 8; // 2048 threads: a full SM on the H100 and the H200
// Rounds that rewrite or migrate the whole buffer take tens of milliseconds each: a fixed count
// keeps the experiment within its budget (2.5 s in the full matrix).
constexpr int max_round_samples = 5;
constexpr double resident_point_cap_s = 0.25;
constexpr uint64_t seed_base = 0x0A1F1ED5EEDull;

// Each block sums its own contiguous chunk in 16-byte loads, so the host can check every word's
// contribution per block (a grid-stride sum would mix the whole buffer into each block).
__global__ void read_sum_kernel(const uint4* vectors, size_t n_vectors, size_t chunk,
                                unsigned long long* sums) {
  const size_t first = blockIdx.x * chunk;
  const size_t last = first + chunk < n_vectors ? first + chunk : n_vectors;
  unsigned long long sum = 0;
#pragma unroll 4
  for (size_t i = first + threadIdx.x; i < last; i += blockDim.x) {
    const uint4 v = vectors[i];
    sum += (unsigned long long)v.x + v.y + v.z + v.w;
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ unsigned long long warp_sums[32];
  if (threadIdx.x % 32 == 0)
    warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x == 0)
      sums[blockIdx.x] = sum;
  }
}

__global__ void write_pattern_kernel(uint32_t* words, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    words[i] = um::pattern_word(seed, i);
}

// CUDA 13 names a prefetch's or an advice's target with a cudaMemLocation; earlier toolkits with
// a device ordinal, cudaCpuDeviceId for the host.
#if CUDART_VERSION >= 13000
cudaMemLocation location_of(int device) { // device < 0: the host
  cudaMemLocation l{};
  l.type = device < 0 ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  l.id = device < 0 ? 0 : device;
  return l;
}
void prefetch(const void* p, size_t bytes, int device, cudaStream_t s) {
  APOD_CUDA(cudaMemPrefetchAsync(p, bytes, location_of(device), 0, s));
}
void advise(const void* p, size_t bytes, cudaMemoryAdvise advice, int device) {
  APOD_CUDA(cudaMemAdvise(p, bytes, advice, location_of(device)));
}
#else
void prefetch(const void* p, size_t bytes, int device, cudaStream_t s) {
  APOD_CUDA(cudaMemPrefetchAsync(p, bytes, device < 0 ? cudaCpuDeviceId : device, s));
}
void advise(const void* p, size_t bytes, cudaMemoryAdvise advice, int device) {
  APOD_CUDA(cudaMemAdvise(p, bytes, advice, device < 0 ? cudaCpuDeviceId : device));
}
#endif
constexpr int host = -1;

class ManagedWords {
public:
  explicit ManagedWords(size_t n) {
    APOD_CUDA(cudaMallocManaged(reinterpret_cast<void**>(&p_), n * sizeof(uint32_t)));
  }
  ~ManagedWords() { cudaFree(p_); }
  ManagedWords(const ManagedWords&) = delete;
  ManagedWords& operator=(const ManagedWords&) = delete;
  uint32_t* get() const { return p_; }

private:
  uint32_t* p_ = nullptr;
};

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

/// The read kernel's launch over n words and the check of its block sums.
struct Reader {
  Reader(const DeviceInfo& device, size_t n)
      : words(n), blocks(unsigned(device.sm_count * blocks_per_sm)), sums(blocks), got(blocks) {}
  void launch(const uint32_t* p, cudaStream_t s) const {
    read_sum_kernel<<<blocks, block_size, 0, s>>>(reinterpret_cast<const uint4*>(p), words / 4,
                                                  um::chunk_vectors(words, blocks), sums.get());
    APOD_CUDA_LAUNCH();
  }
  /// Launches it between an event pair and returns the time in ms.
  double timed(const uint32_t* p, cudaStream_t s) {
    events.start(s);
    launch(p, s);
    events.stop(s);
    return events.elapsed_ms();
  }
  /// Block sums of the last launch that differ from `expected`.
  size_t wrong(cudaStream_t s, const std::vector<uint64_t>& expected) {
    APOD_CUDA(cudaStreamSynchronize(s));
    APOD_CUDA(cudaMemcpy(got.data(), sums.get(), sums.bytes(), cudaMemcpyDeviceToHost));
    return um::count_wrong_sums(expected, reinterpret_cast<const uint64_t*>(got.data()));
  }
  size_t words;
  unsigned blocks;
  DeviceBuffer<unsigned long long> sums;
  std::vector<unsigned long long> got;
  EventPair events;
};

/// One untimed round where `warm_up` (and the policy has a warm-up), then a fixed count of timed
/// rounds; round(seed) returns the round's times in ms, one per series. Each round is checked by
/// the monitor once, and its flags go to every series of that round. Every round starts from
/// the same placement (its own reset), so only the first migration of the buffer, which also
/// allocates the device's pages, is warmed up: that keeps the experiment within its budget.
template <class Round>
std::vector<TimedSamples> sample_rounds(const SamplingPolicy& policy, size_t series, uint64_t& seed,
                                        bool warm_up, Round&& round) {
  if (warm_up && policy.warmup > 0)
    round(++seed);
  const int count = std::clamp(policy.min_samples, 3, max_round_samples);
  in_flight::PointScope scope;
  std::vector<TimedSamples> out(series);
  for (int i = 0; i < count; ++i) {
    const std::vector<double> ms = round(++seed);
    const uint8_t flags = policy.check_sample();
    for (size_t k = 0; k < series; ++k) {
      out[k].ms.push_back(ms.at(k));
      out[k].excluded.push_back(flags);
    }
  }
  const SamplingWindow window = scope.finish();
  for (TimedSamples& t : out) {
    finish_fixed(t, policy);
    t.window = window;
  }
  return out;
}

/// What every state records under: the run's references and the buffer's size.
struct Recording {
  ExperimentContext& ctx;
  size_t bytes;
  std::optional<double> dram_read_peak, pinned_h2d, pinned_d2h;

  void record(const std::string& state, const TimedSamples& times, size_t wrong,
              const std::string& timed, const std::string& advice = "none",
              bool headline = false) const {
    const Series gbs = bandwidth_gbs(Series(times), double(bytes));
    const json params = {{um::state.key, state}, {um::bytes.key, bytes}};
    json extra = {{"elements_wrong", wrong},
                  {"timed", timed},
                  {"advice", advice},
                  {keys::bytes_moved, double(bytes)}};
    const std::string direction = um::link_direction(state);
    if (direction.empty()) {
      extra[keys::limit_gbs] = ctx.device.theoretical_bandwidth_gbs();
      extra[keys::limit_label] = limit_phrase(LimitKind::dram);
    }
    if (headline) // the resident read, not the fastest of five rounds after a prefetch
      extra[keys::headline] = true;
    ctx.record(make_measurement(params, um::bandwidth, gbs, wrong == 0, extra));

    const std::optional<double>& ref = direction.empty()    ? dram_read_peak
                                       : direction == "h2d" ? pinned_h2d
                                                            : pinned_d2h;
    if (!ref || *ref <= 0)
      return;
    const double r = *ref;
    const json ratio_extra = {
        {um::reference_gbs, r},
        {um::reference, direction.empty()
                            ? "the run's achievable DRAM peak for reads"
                            : "host_transfer's pinned " + direction + " copy at its largest size"},
        {"elements_wrong", wrong}};
    ctx.record(make_measurement(params, um::ratio, gbs.map([r](double v) { return v / r; }),
                                wrong == 0, ratio_extra));
  }
};

std::optional<double> pinned_rate(const ExperimentContext& ctx, const char* direction) {
  return ctx.earlier_median(transfer::experiment, transfer::bandwidth.name,
                            {{transfer::direction.key, direction},
                             {transfer::memory.key, "pinned"},
                             {transfer::bytes.key, transfer::sizes(ctx.options.quick).back()},
                             {transfer::transfers.key, "single"}});
}

int device_attribute(cudaDeviceAttr attribute, int device) {
  int value = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

/// The states on one managed buffer, in the declaration's order.
void measure_managed(const Recording& rec, Reader& reader, uint32_t* p, size_t n, cudaStream_t s) {
  ExperimentContext& ctx = rec.ctx;
  const int dev = ctx.device.ordinal;
  const size_t bytes = n * sizeof(uint32_t);
  const SamplingPolicy& policy = ctx.options.sampling;
  uint64_t seed = seed_base;
  std::vector<uint64_t> expected;
  size_t wrong = 0;
  const auto to_host = [&] { // the untimed reset before the host writes
    prefetch(p, bytes, host, s);
    APOD_CUDA(cudaStreamSynchronize(s));
  };

  { // Resident: pages on the device, read again and again (L2 flushed before each sample).
    expected = um::write_pattern(p, n, ++seed, reader.blocks);
    prefetch(p, bytes, dev, s);
    APOD_CUDA(cudaStreamSynchronize(s));
    SamplingPolicy resident_policy = policy;
    resident_policy.max_point_s = std::min(policy.max_point_s, resident_point_cap_s);
    const TimedSamples t =
        time_samples_ms(resident_policy, s, [&](cudaStream_t st) { reader.launch(p, st); });
    rec.record(um::resident, t, reader.wrong(s, expected), "kernel read (CUDA events)", "none",
               true);
  }

  wrong = 0;
  const auto first_touch = sample_rounds(policy, 1, seed, true, [&](uint64_t sd) {
    to_host();
    expected = um::write_pattern(p, n, sd, reader.blocks);
    const double ms = reader.timed(p, s);
    wrong += reader.wrong(s, expected);
    return std::vector<double>{ms};
  });
  rec.record(um::first_touch, first_touch[0], wrong, "kernel read (CUDA events)");

  wrong = 0;
  size_t wrong_back = 0;
  EventPair to_device_events, to_host_events;
  const auto prefetched = sample_rounds(policy, 3, seed, false, [&](uint64_t sd) {
    to_host();
    expected = um::write_pattern(p, n, sd, reader.blocks);
    to_device_events.start(s);
    prefetch(p, bytes, dev, s);
    to_device_events.stop(s);
    // The prefetch's last writes are still in L2: the kernel is read against DRAM, as resident.
    flush_l2(s);
    const double kernel_ms = reader.timed(p, s);
    to_host_events.start(s);
    prefetch(p, bytes, host, s);
    to_host_events.stop(s);
    const std::vector<double> ms = {to_device_events.elapsed_ms(), kernel_ms,
                                    to_host_events.elapsed_ms()};
    wrong += reader.wrong(s, expected);
    wrong_back += um::count_wrong_words(p, n, sd); // the pages the prefetch brought back
    return ms;
  });
  rec.record(um::prefetch_to_device, prefetched[0], wrong,
             "cudaMemPrefetchAsync to the device (CUDA events)");
  rec.record(um::prefetched, prefetched[1], wrong, "kernel read (CUDA events)");
  rec.record(um::prefetch_to_host, prefetched[2], wrong_back,
             "cudaMemPrefetchAsync to the host (CUDA events)");

  wrong = 0;
  advise(p, bytes, cudaMemAdviseSetPreferredLocation, dev);
  const auto preferred = sample_rounds(policy, 1, seed, false, [&](uint64_t sd) {
    to_host();
    expected = um::write_pattern(p, n, sd, reader.blocks);
    const double ms = reader.timed(p, s);
    wrong += reader.wrong(s, expected);
    return std::vector<double>{ms};
  });
  advise(p, bytes, cudaMemAdviseUnsetPreferredLocation, dev);
  rec.record(um::preferred_device, preferred[0], wrong, "kernel read (CUDA events)",
             "SetPreferredLocation device");

  // Read-mostly: the first read makes read-only copies on the device (the host keeps its own), the
  // second reads those; the host's next write drops the device's copies.
  wrong = 0;
  size_t wrong_copy = 0;
  to_host();
  advise(p, bytes, cudaMemAdviseSetReadMostly, dev);
  const auto mostly = sample_rounds(policy, 2, seed, false, [&](uint64_t sd) {
    expected = um::write_pattern(p, n, sd, reader.blocks);
    const double first_ms = reader.timed(p, s);
    wrong += reader.wrong(s, expected);
    flush_l2(s); // the second read from the device's copies in DRAM, not from the first's L2
    const double copy_ms = reader.timed(p, s);
    wrong_copy += reader.wrong(s, expected);
    return std::vector<double>{first_ms, copy_ms};
  });
  advise(p, bytes, cudaMemAdviseUnsetReadMostly, dev);
  rec.record(um::read_mostly, mostly[0], wrong, "kernel read (CUDA events)", "SetReadMostly");
  rec.record(um::read_mostly_copy, mostly[1], wrong_copy, "kernel read (CUDA events)",
             "SetReadMostly");

  // Pages kept on the host and mapped into the device's page tables: the kernel reads them over
  // the link, as zero copy does, and nothing migrates.
  wrong = 0;
  to_host();
  advise(p, bytes, cudaMemAdviseSetPreferredLocation, host);
  advise(p, bytes, cudaMemAdviseSetAccessedBy, dev);
  const auto remote = sample_rounds(policy, 1, seed, false, [&](uint64_t sd) {
    expected = um::write_pattern(p, n, sd, reader.blocks);
    const double ms = reader.timed(p, s);
    wrong += reader.wrong(s, expected);
    return std::vector<double>{ms};
  });
  advise(p, bytes, cudaMemAdviseUnsetAccessedBy, dev);
  advise(p, bytes, cudaMemAdviseUnsetPreferredLocation, host);
  rec.record(um::accessed_by, remote[0], wrong, "kernel read (CUDA events)",
             "SetPreferredLocation host, SetAccessedBy device");

  // A kernel writes the whole buffer on the device; the host's threads then read and check every
  // word, each first access to a page faulting it back.
  wrong = 0;
  const auto touched = sample_rounds(policy, 1, seed, false, [&](uint64_t sd) {
    prefetch(p, bytes, dev, s);
    write_pattern_kernel<<<unsigned(ctx.device.sm_count * blocks_per_sm), block_size, 0, s>>>(p, n,
                                                                                              sd);
    APOD_CUDA_LAUNCH();
    APOD_CUDA(cudaStreamSynchronize(s));
    const auto start = std::chrono::steady_clock::now();
    wrong += um::count_wrong_words(p, n, sd);
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    return std::vector<double>{ms.count()};
  });
  rec.record(um::host_touch, touched[0], wrong,
             "host threads reading every word after a kernel wrote it (steady_clock)");
}

/// A kernel on plain malloc memory the host wrote: the device reaches it through HMM or ATS.
void measure_pageable(const Recording& rec, Reader& reader, size_t n, cudaStream_t s) {
  const std::unique_ptr<uint32_t[], FreeDeleter> words(
      static_cast<uint32_t*>(std::aligned_alloc(um::size_granule_bytes, n * sizeof(uint32_t))));
  if (!words)
    throw ResourceError("unified_memory: no host memory for the pageable buffer");
  uint64_t seed = seed_base ^ 0xFFFF;
  size_t wrong = 0;
  std::vector<uint64_t> expected;
  const auto t = sample_rounds(rec.ctx.options.sampling, 1, seed, true, [&](uint64_t sd) {
    expected = um::write_pattern(words.get(), n, sd, reader.blocks);
    const double ms = reader.timed(words.get(), s);
    wrong += reader.wrong(s, expected);
    return std::vector<double>{ms};
  });
  rec.record(um::pageable_malloc, t[0], wrong, "kernel read (CUDA events)");
}

void run(ExperimentContext& ctx) {
  const int dev = ctx.device.ordinal;
  APOD_CUDA(cudaSetDevice(dev));
  if (!device_attribute(cudaDevAttrManagedMemory, dev) ||
      !device_attribute(cudaDevAttrConcurrentManagedAccess, dev))
    throw ExperimentSkipped("the device has no on-demand page migration of managed memory "
                            "(cudaDevAttrConcurrentManagedAccess is 0), which every state needs");
  size_t free_bytes = 0, total_bytes = 0;
  APOD_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t bytes = um::buffer_bytes(um::planned_bytes(ctx.options.quick), free_bytes);
  if (bytes == 0)
    throw ExperimentSkipped("an eighth of the free device memory is under 2 MiB: no managed "
                            "buffer is safe to ask for");
  const size_t n = bytes / sizeof(uint32_t);

  const Recording rec{ctx, bytes, ctx.achievable_peak_gbs(access::read), pinned_rate(ctx, "h2d"),
                      pinned_rate(ctx, "d2h")};
  OwnedStream stream;
  Reader reader(ctx.device, n);
  {
    ManagedWords managed(n);
    measure_managed(rec, reader, managed.get(), n, stream.get());
  }
  if (device_attribute(cudaDevAttrPageableMemoryAccess, dev))
    measure_pageable(rec, reader, n, stream.get());
}

} // namespace

APOD_EXPERIMENT(unified::experiment, run);

} // namespace apod
