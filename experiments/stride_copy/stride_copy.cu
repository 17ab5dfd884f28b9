// strideCopy, CUDA C++ Best Practices Guide 9.2.1.4 (shared/seeds/000_...): thread i copies word
// i x stride, so a warp's 32 accesses spread over more 32-byte sectors as the stride grows.
// Bandwidth counts the useful bytes only (each copied word read once and written once), as the
// guide's Figure 7 does; the wasted part of each sector is what the falling curve shows.
//
// Two copies, same strides, same check: `guide` (one word per thread, latency-bound at stride 1
// on Hopper) and `saturating` (4 words per thread, all loaded before the first store, each warp
// access the guide kernel's). Two calibrations at every stride, which the model reads and never
// predicts: `gather` (the saturating copy's loads alone) and `scatter` (its stores alone), and a
// DRAM-bound reference, `peak_copy`. Each copy point carries in extra the sector model
// (sector_model.hpp): its DRAM bytes at peak_copy's rate plus the per-access row costs of the
// gather and the scatter at the same stride. Where the device has
// cudaLimitMaxL2FetchGranularity, the gather and the copy at stride 16 (64-byte spacing) run once
// more with the limit at 32 bytes, then the device's limit is restored.
#include "core/cuda_memory.cuh"
#include "core/device_check.cuh"
#include "core/experiment.hpp"
#include "core/in_flight.cuh"
#include "core/kernel_facts.cuh"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/vocabulary.hpp"
#include "declaration.hpp"
#include "sector_model.hpp"

#include <algorithm>
#include <map>

namespace apod {
namespace {

using Word = uint32_t; // the guide copies floats; bit patterns are copied and compared exactly
constexpr int block_size = 256;
constexpr uint64_t seed = 0x57121DE;
constexpr uint8_t poison = 0xA5;
constexpr int words_per_thread = 4; // 16 bytes in flight per thread, as offset_copy's
constexpr int warps_per_block = block_size / 32;
constexpr int max_stride = 32;
// Threads: the stride-1 copy reads plus writes 512 MiB, far above the L2 (docs/method.md); at 64
// points that keeps the experiment near 2.5 s. --quick: 8 MiB.
constexpr size_t threads_full = (size_t(1) << 29) / (2 * sizeof(Word));
constexpr size_t threads_quick = size_t(1) << 20;
constexpr double point_time_cap_s = 0.12;

__global__ void stride_copy_kernel(Word* odata, const Word* idata, int stride) {
  const size_t xid = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) * stride;
  odata[xid] = idata[xid];
}

// The word a saturating-layout thread's k-th access touches: a block serves block_size x Words
// words of the guide's kernel, so its warps' k-th accesses are 32 words `stride` apart, exactly
// the guide kernel's pattern.
__host__ __device__ inline size_t saturating_word(size_t block, int thread, int k) {
  return block * (block_size * words_per_thread) + thread + size_t(k) * block_size;
}
__host__ __device__ inline size_t saturating_index(size_t block, int thread, int k, int stride) {
  return saturating_word(block, thread, k) * stride;
}

__global__ void __launch_bounds__(block_size)
    stride_copy_saturating(Word* __restrict__ odata, const Word* __restrict__ idata, int stride) {
  const size_t b = blockIdx.x;
  const int t = threadIdx.x;
  copy_in_flight<words_per_thread>(odata, idata,
                                   [=](int k) { return saturating_index(b, t, k, stride); });
}

// The reference: a dense copy of the same words, 16-byte vectors, 4 in flight per thread (64
// bytes), so DRAM and not latency sets its rate. Its own kernel and samples: the model of the
// saturating stride-1 point is not that point scaled to itself.
__global__ void __launch_bounds__(block_size)
    peak_copy(uint4* __restrict__ odata, const uint4* __restrict__ idata) {
  const size_t first = blockIdx.x * size_t(block_size * words_per_thread) + threadIdx.x;
  copy_in_flight<words_per_thread>(odata, idata, [=](int k) { return first + k * block_size; });
}

// The copy's loads alone: the same addresses, XOR-ed over each warp, one word per warp stored
// (1/128 of the loads), so nothing is dead code and every load is checked.
__global__ void __launch_bounds__(block_size)
    stride_gather(Word* __restrict__ warp_xor, const Word* __restrict__ idata, int stride) {
  const size_t b = blockIdx.x;
  const int t = threadIdx.x;
  Word v[words_per_thread];
  load_all(v, idata, [=](int k) { return saturating_index(b, t, k, stride); });
  Word x = 0;
#pragma unroll
  for (int k = 0; k < words_per_thread; ++k)
    x ^= v[k];
  for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
    x ^= __shfl_xor_sync(0xffffffffu, x, lane_mask);
  if (t % 32 == 0)
    warp_xor[b * warps_per_block + t / 32] = x;
}

// The copy's stores alone: word j gets its own index / stride, nothing is loaded.
__global__ void __launch_bounds__(block_size) stride_scatter(Word* __restrict__ odata, int stride) {
  const size_t b = blockIdx.x;
  const int t = threadIdx.x;
#pragma unroll
  for (int k = 0; k < words_per_thread; ++k) {
    const size_t i = saturating_word(b, t, k);
    odata[i * stride] = static_cast<Word>(i);
  }
}

// The output after a copy of n words at `stride`: word j holds the input's when j is a multiple
// of the stride below n x stride, and the poison everywhere else.
struct StrideExpected {
  uint64_t fill_seed;
  size_t n;
  int stride;
  __host__ __device__ Word operator()(size_t j) const {
    return j % stride == 0 && j < n * stride ? static_cast<Word>(fill_value(fill_seed, j))
                                             : repeated_byte<Word>(poison);
  }
};

// The scatter's output: its index over the stride where a word was stored, the poison elsewhere.
struct ScatterExpected {
  size_t n;
  int stride;
  __host__ __device__ Word operator()(size_t j) const {
    return j % stride == 0 && j < n * stride ? static_cast<Word>(j / stride)
                                             : repeated_byte<Word>(poison);
  }
};

// The gather's output: warp w's XOR of the input words its 32 lanes loaded.
struct GatherExpected {
  uint64_t fill_seed;
  int stride;
  __host__ __device__ Word operator()(size_t w) const {
    const size_t block = w / warps_per_block;
    const int first_lane = int(w % warps_per_block) * 32;
    Word x = 0;
    for (int lane = 0; lane < 32; ++lane)
      for (int k = 0; k < words_per_thread; ++k)
        x ^= static_cast<Word>(
            fill_value(fill_seed, saturating_index(block, first_lane + lane, k, stride)));
    return x;
  }
};

enum class Kind { peak, guide, saturating, gather, scatter };

const char* kind_name(Kind k, bool fetch_32) {
  switch (k) {
  case Kind::peak:
    return stride_copy::peak;
  case Kind::guide:
    return stride_copy::guide;
  case Kind::saturating:
    return fetch_32 ? stride_copy::saturating_fetch_32 : stride_copy::saturating;
  case Kind::gather:
    return fetch_32 ? stride_copy::gather_fetch_32 : stride_copy::gather;
  default:
    return stride_copy::scatter;
  }
}

struct Sweep {
  ExperimentContext& ctx;
  size_t n;               // threads of the guide's kernel (words copied)
  DeviceBuffer<Word>& in; // spans n x max_stride words
  DeviceBuffer<Word>& out;
  SamplingPolicy policy;
  // What the model reads: the reference's DRAM rate and each calibration's median time.
  double reference_dram_gbs = 0;
  std::map<int, double> gather_ms, scatter_ms;
};

// One kind's launch at `stride` over sw.n words, and its launch facts.
struct Launcher {
  Sweep& sw;
  Kind kind;
  int stride;
  unsigned grid() const {
    return unsigned(sw.n / (kind == Kind::guide ? block_size : block_size * words_per_thread));
  }
  json facts() const {
    switch (kind) {
    case Kind::peak:
      return kernel_facts(peak_copy, block_size, grid() / 4);
    case Kind::guide:
      return kernel_facts(stride_copy_kernel, block_size, grid());
    case Kind::gather:
      return kernel_facts(stride_gather, block_size, grid());
    case Kind::scatter:
      return kernel_facts(stride_scatter, block_size, grid());
    default:
      return kernel_facts(stride_copy_saturating, block_size, grid());
    }
  }
  void operator()(cudaStream_t s) const {
    Word* out = sw.out.get();
    const Word* in = sw.in.get();
    if (kind == Kind::peak) // 4-word vectors: a quarter of the blocks
      peak_copy<<<grid() / 4, block_size, 0, s>>>(reinterpret_cast<uint4*>(out),
                                                  reinterpret_cast<const uint4*>(in));
    else if (kind == Kind::guide)
      stride_copy_kernel<<<grid(), block_size, 0, s>>>(out, in, stride);
    else if (kind == Kind::saturating)
      stride_copy_saturating<<<grid(), block_size, 0, s>>>(out, in, stride);
    else if (kind == Kind::gather)
      stride_gather<<<grid(), block_size, 0, s>>>(out, in, stride);
    else
      stride_scatter<<<grid(), block_size, 0, s>>>(out, stride);
    APOD_CUDA_LAUNCH();
  }
  OutputCheck check() const {
    const size_t span = sw.n * stride;
    if (kind == Kind::gather)
      return check_output(sw.out.get(), sw.n / (32 * words_per_thread),
                          GatherExpected{seed, stride});
    if (kind == Kind::scatter)
      return check_output(sw.out.get(), span, ScatterExpected{sw.n, stride});
    return check_output(sw.out.get(), span, StrideExpected{seed, sw.n, stride});
  }
};

// The model's parts for a copy point at `stride`, for its extra; empty while the model lacks
// an input (a failed reference or calibration point).
json model_extra(const Sweep& sw, int stride) {
  if (sw.reference_dram_gbs <= 0 || !sw.gather_ms.count(stride) || !sw.scatter_ms.count(stride))
    return json::object();
  const bool rmw = sw.ctx.device.ecc_enabled;
  const SectorTraffic traffic = stride_copy_traffic(sw.n, sizeof(Word), stride, rmw);
  const StrideModel m = stride_model(traffic, sw.reference_dram_gbs, sw.gather_ms.at(stride),
                                     sw.scatter_ms.at(stride));
  return {{stride_copy::model_key, m.model_gbs},
          {"model_ms", m.model_ms},
          {"model_bytes_ms", m.bytes_ms},
          {"model_row_load_ms", m.row_load_ms},
          {"model_row_store_ms", m.row_store_ms},
          {"gather_ms", sw.gather_ms.at(stride)},
          {"scatter_ms", sw.scatter_ms.at(stride)},
          {"reference_dram_gbs", sw.reference_dram_gbs},
          {"partial_write_rmw", rmw},
          {"useful_bytes", traffic.useful_bytes},
          {"read_bytes", traffic.read_bytes},
          {"write_bytes", traffic.write_bytes},
          {"rmw_read_bytes", traffic.rmw_read_bytes},
          {"efficiency", traffic.efficiency()}};
}

// Times one kind at one stride, checks its output, and records the point (with the model, for
// a copy). Returns the median time, 0 when the point failed.
double measure(Sweep& sw, Kind kind, int stride, bool fetch_32 = false,
               json more = json::object()) {
  const Launcher launcher{sw, kind, stride};
  const size_t span = sw.n * stride;
  APOD_CUDA(cudaMemset(sw.out.get(), poison, span * sizeof(Word)));
  const TimedSamples t = time_samples_ms(sw.policy, nullptr, launcher);
  const OutputCheck check = launcher.check();
  const bool copy = kind != Kind::gather && kind != Kind::scatter;
  const double useful_bytes = (copy ? 2.0 : 1.0) * sw.n * sizeof(Word);
  const json params = {{stride_copy::kernel.key, kind_name(kind, fetch_32)},
                       {stride_copy::stride.key, stride}};
  json extra = check.facts();
  extra.update({{"words", sw.n},
                {"span_bytes", double(span * sizeof(Word))},
                {keys::launch, launcher.facts()},
                {keys::seed, seed}});
  if (copy) // the calibrations are no figure of their own access type (one word per 64 bytes)
    extra[keys::access_type] = access::copy;
  extra.update(more);
  if ((kind == Kind::guide || kind == Kind::saturating) && !fetch_32)
    extra.update(model_extra(sw, stride));
  const Series times(t.ms, t.excluded, t.stop_reason, t.noisy);
  Measurement m = bandwidth_measurement(params, useful_bytes, times, check.ok(), std::move(extra));
  const bool ok = m.ok();
  sw.ctx.record(std::move(m));
  return ok ? times.summary().median : 0;
}

// The device's L2 fetch granularity limit, or nothing where the device has none.
std::optional<size_t> l2_fetch_limit() {
  size_t value = 0;
  if (cudaDeviceGetLimit(&value, cudaLimitMaxL2FetchGranularity) != cudaSuccess) {
    cudaGetLastError(); // clear the unsupported-limit error
    return std::nullopt;
  }
  return value;
}

// The gather and the saturating copy at 64-byte spacing with the L2 fetch limit at 32 bytes:
// if the 64-byte over-read is the L2's policy, the limit removes it. The device's limit is
// restored before anything else runs, even when a measurement throws.
void fetch_32_probe(Sweep& sw) {
  const std::optional<size_t> device_limit = l2_fetch_limit();
  if (!device_limit)
    return;
  struct Restore {
    size_t value;
    ~Restore() { cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, value); }
  } restore{*device_limit};
  APOD_CUDA(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 32));
  const json limits = {{"l2_fetch_limit_set", 32},
                       {"l2_fetch_limit_read_back", l2_fetch_limit().value_or(0)},
                       {"l2_fetch_limit_device", *device_limit}};
  measure(sw, Kind::gather, stride_copy::probe_stride, true, limits);
  measure(sw, Kind::saturating, stride_copy::probe_stride, true, limits);
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  // Both spans together within half of device memory on GPUs too small for the full size.
  const size_t memory_cap =
      size_t(ctx.device.total_memory_bytes) / 2 / (2 * max_stride * sizeof(Word));
  const size_t tile = size_t(block_size) * words_per_thread;
  const size_t n =
      std::min(ctx.options.quick ? threads_quick : threads_full, memory_cap) / tile * tile;
  DeviceBuffer<Word> in(n * max_stride), out(n * max_stride);
  fill_device(in.get(), in.size(), seed);
  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);
  Sweep sw{ctx, n, in, out, policy};
  // The reference and the calibrations first: the copies' model reads them.
  if (const double ms = measure(sw, Kind::peak, 1); ms > 0)
    sw.reference_dram_gbs = dram_rate_gbs(2.0 * n * sizeof(Word) / (ms * 1e6),
                                          stride_copy_traffic(n, sizeof(Word), 1, false));
  for (const int s : stride_copy::strides) {
    if (const double ms = measure(sw, Kind::gather, s); ms > 0)
      sw.gather_ms[s] = ms;
    if (const double ms = measure(sw, Kind::scatter, s); ms > 0)
      sw.scatter_ms[s] = ms;
  }
  for (const Kind k : {Kind::saturating, Kind::guide})
    for (const int s : stride_copy::strides)
      measure(sw, k, s);
  fetch_32_probe(sw);
}

} // namespace

APOD_EXPERIMENT(stride_copy::experiment, run);

} // namespace apod
