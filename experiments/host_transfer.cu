// Host-device transfers over PCIe, CUDA C++ Best Practices Guide 9.1 (shared/seeds/000_...):
// cudaMemcpyAsync host-to-device and device-to-host from pageable memory (the driver stages it
// through a pinned buffer, 9.1.1) and from pinned memory (DMA straight from the user's pages), and
// zero copy (9.1.3): a kernel that reads and writes mapped pinned host memory directly. The
// guide's V100-era figure is ~12 GB/s pinned on a PCIe Gen3 x16 link (15.75 GB/s per direction).
#include "core/bandwidth.hpp"
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr uint64_t h2d_seed = 0x4D2D5EED, d2h_seed = 0xD2D45EED;
// Transfers shorter than this are timed as a batch in one event pair, so that the ~microsecond
// resolution and overhead of the events do not dominate a sample (on an H200, single 20-40 us
// transfers still scattered by +-30% and never settled: a longer sample does).
constexpr double min_single_transfer_ms = 0.050;
constexpr double batch_target_ms = 0.5;
// 45 points, the largest ~25 ms a sample from pageable memory: a cap per point keeps the sweep
// within its budget when a point's median never settles to the sampling target.
constexpr double point_time_cap_s = 0.25;

// Zero copy: each thread moves 16-byte words from mapped host memory to mapped host memory, so
// every byte crosses PCIe twice, once in each direction.
__global__ void zero_copy_kernel(uint4* out, const uint4* in, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

void fill_host(uint64_t* p, size_t words, uint64_t seed) {
  parallel_count(words, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) p[i] = expected_fill<uint64_t>(seed, i);
    return size_t(0);
  });
}

size_t count_wrong(const uint64_t* p, size_t words, uint64_t seed) {
  return parallel_count(words, [&](size_t b, size_t e) {
    size_t bad = 0;
    for (size_t i = b; i < e; ++i) bad += p[i] != expected_fill<uint64_t>(seed, i);
    return bad;
  });
}

/// Every buffer at the largest size; each point uses a prefix of them.
struct Buffers {
  explicit Buffers(size_t bytes)
      : words(bytes / 8),
        pageable_src(new uint64_t[words]), pageable_dst(new uint64_t[words]), check(new uint64_t[words]),
        pinned_src(words), pinned_dst(words),
        mapped_in(words, cudaHostAllocMapped), mapped_out(words, cudaHostAllocMapped),
        device_dst(words), device_src(words) {
    fill_host(pageable_src.get(), words, h2d_seed);
    fill_host(pinned_src.get(), words, h2d_seed);
    fill_host(mapped_in.get(), words, h2d_seed);
    fill_device(device_src.get(), words, d2h_seed);
    APOD_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_in_device), mapped_in.get(), 0));
    APOD_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_out_device), mapped_out.get(), 0));
    APOD_CUDA(cudaDeviceSynchronize());
  }
  size_t words;
  std::unique_ptr<uint64_t[]> pageable_src, pageable_dst, check;
  PinnedBuffer<uint64_t> pinned_src, pinned_dst, mapped_in, mapped_out;
  DeviceBuffer<uint64_t> device_dst, device_src;
  uint64_t* mapped_in_device = nullptr;
  uint64_t* mapped_out_device = nullptr;
};

struct Series {
  const char* direction;  // h2d | d2h | zero_copy
  const char* memory;     // pageable | pinned | mapped
};

void measure_point(ExperimentContext& ctx, Buffers& buf, const Series& series, size_t bytes) {
  const std::string direction = series.direction, memory = series.memory;
  const bool h2d = direction == "h2d", zero_copy = direction == "zero_copy";
  const size_t words = bytes / 8;
  const uint64_t* host_src = memory == "pinned" ? buf.pinned_src.get() : buf.pageable_src.get();
  uint64_t* host_dst = memory == "pinned" ? buf.pinned_dst.get() : buf.pageable_dst.get();
  const unsigned zero_copy_grid =
      unsigned(std::min<size_t>((bytes / 16 + 255) / 256, size_t(8) * ctx.device.sm_count));

  // Poison the destination so that a transfer that wrote nothing cannot verify.
  if (zero_copy) std::memset(buf.mapped_out.get(), 0xA5, bytes);
  else if (h2d) APOD_CUDA(cudaMemset(buf.device_dst.get(), 0xA5, bytes));
  else std::memset(host_dst, 0xA5, bytes);

  const auto transfer_once = [&](cudaStream_t s) {
    if (zero_copy) {
      zero_copy_kernel<<<zero_copy_grid, 256, 0, s>>>(reinterpret_cast<uint4*>(buf.mapped_out_device),
                                                      reinterpret_cast<const uint4*>(buf.mapped_in_device), bytes / 16);
      APOD_CUDA_LAUNCH();
    } else if (h2d) {
      APOD_CUDA(cudaMemcpyAsync(buf.device_dst.get(), host_src, bytes, cudaMemcpyHostToDevice, s));
    } else {
      APOD_CUDA(cudaMemcpyAsync(host_dst, buf.device_src.get(), bytes, cudaMemcpyDeviceToHost, s));
    }
  };

  // Probe one transfer (the fastest of three, after one untimed) to choose the batch size.
  cudaStream_t stream = nullptr;
  transfer_once(stream);
  APOD_CUDA(cudaStreamSynchronize(stream));
  EventPair probe;
  double single_ms = 1e30;
  for (int i = 0; i < 3; ++i) {
    probe.start(stream);
    transfer_once(stream);
    probe.stop(stream);
    single_ms = std::min(single_ms, probe.elapsed_ms());
  }
  const int batch = single_ms >= min_single_transfer_ms
                        ? 1
                        : int(std::min(4096.0, std::ceil(batch_target_ms / std::max(single_ms, 1e-4))));

  SamplingPolicy policy = ctx.options.sampling;
  policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);
  const auto times_ms = time_samples_ms(policy, stream, [&](cudaStream_t s) {
    for (int i = 0; i < batch; ++i) transfer_once(s);
  });

  size_t wrong = 0;
  if (zero_copy) {
    APOD_CUDA(cudaDeviceSynchronize());
    wrong = count_wrong(buf.mapped_out.get(), words, h2d_seed);
  } else if (h2d) {
    APOD_CUDA(cudaMemcpy(buf.check.get(), buf.device_dst.get(), bytes, cudaMemcpyDeviceToHost));
    wrong = count_wrong(buf.check.get(), words, h2d_seed);
  } else {
    wrong = count_wrong(host_dst, words, d2h_seed);
  }

  const double bytes_per_transfer = zero_copy ? 2.0 * bytes : double(bytes);
  json params = {{"direction", direction}, {"memory", memory}, {"bytes", bytes},
                 {"series", direction + " " + memory}};
  Measurement m = bandwidth_measurement(std::move(params), batch * bytes_per_transfer, times_ms);
  m.verified = wrong == 0;
  m.extra["transfers_per_sample"] = batch;
  m.extra["bytes_per_transfer"] = bytes_per_transfer;
  m.extra["single_transfer_ms"] = single_ms;
  if (zero_copy) m.extra["bytes_counted"] = "read from host + written to host, both over PCIe";
  // Zero copy moves data both ways at once over a full-duplex link: its limit is both directions.
  if (const auto pcie = ctx.device.theoretical_pcie_gbs()) {
    m.extra[keys::limit_gbs] = (zero_copy ? 2 : 1) * *pcie;
    m.extra[keys::limit_label] = zero_copy ? "PCIe line rate, both directions" : limit_phrase(LimitKind::pcie);
  }
  m.extra["words_wrong"] = wrong;
  ctx.record(std::move(m));
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  std::vector<size_t> sizes;
  if (ctx.options.quick) sizes = {4 << 10, 64 << 10, 1 << 20};
  else for (size_t b = 4 << 10; b <= (size_t(256) << 20); b *= 4) sizes.push_back(b);
  Buffers buf(sizes.back());
  const Series all_series[] = {{"h2d", "pageable"}, {"h2d", "pinned"}, {"d2h", "pageable"},
                               {"d2h", "pinned"}, {"zero_copy", "mapped"}};
  for (const Series& series : all_series)
    for (size_t bytes : sizes) measure_point(ctx, buf, series, bytes);
}

}  // namespace

APOD_EXPERIMENT(ExperimentInfo{
    .name = "host_transfer",
    .title = "Host-device transfers: pageable, pinned, zero copy",
    .description =
        "Effective bandwidth of host-to-device (h2d) and device-to-host (d2h) cudaMemcpyAsync from "
        "pageable and from pinned host memory, and of zero copy: a kernel that copies mapped pinned "
        "host memory to mapped pinned host memory, counted as bytes read plus bytes written, both "
        "over PCIe (the link is full duplex, so zero copy can exceed the one-direction limit drawn). "
        "Sizes 4 KiB to 256 MiB in powers of 4. Transfers under 50 us are timed as a batch in one "
        "event pair (extra: transfers_per_sample). Every point's destination is poisoned first and "
        "compared word by word with the source's non-zero fill afterwards.",
    .citation = "CUDA C++ Best Practices Guide 9.1.1 (pinned memory), 9.1.3 (zero copy)",
    .version = 1,
    .order = 50,
    .chart = {.x = "bytes", .x_title = "transfer size", .log_x = true, .color = "series", .limit = LimitKind::pcie},
    .run = run,
});

}  // namespace apod
