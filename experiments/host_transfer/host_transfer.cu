// Host-device transfers over PCIe, CUDA C++ Best Practices Guide 9.1 (shared/seeds/000_...):
// cudaMemcpyAsync host-to-device and device-to-host from pageable memory (the driver stages it
// through a pinned buffer, 9.1.1) and from pinned memory (DMA straight from the user's pages), and
// zero copy (9.1.3): a kernel that reads and writes mapped pinned host memory directly. The
// guide's V100-era figure is ~12 GB/s pinned on a PCIe Gen3 x16 link (15.75 GB/s per direction).
// Each point is read against two limits: the line rate (limit_gbs) and the protocol limit at the
// link's payload size (attainable_gbs, theory.hpp), which is what a perfect DMA engine could reach.
#include "core/cuda_memory.cuh"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"
#include "declaration.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr uint64_t h2d_seed = 0x4D2D5EED, d2h_seed = 0xD2D45EED;
// Transfers shorter than this are also timed as a batch in one event pair, a series of its own,
// so that the ~microsecond resolution and overhead of the events do not dominate a sample (on an
// H200, single 20-40 us transfers scattered by +-30% and never settled: a longer sample does).
// The single transfers are kept too: what one short cudaMemcpyAsync delivers is a figure of its
// own, and mixing the two in one curve hid where the batching began.
constexpr double min_single_transfer_ms = 0.050;
constexpr double batch_target_ms = 0.5;
// ~70 points, the largest ~25 ms a sample from pageable memory: a cap per point keeps the sweep
// within its budget when a point's median never settles to the sampling target; single short
// transfers, which scatter most, get the shorter cap.
constexpr double point_time_cap_s = 0.25;
constexpr double short_single_time_cap_s = 0.1;

// Zero copy: each thread moves 16-byte words from mapped host memory to mapped host memory, so
// every byte crosses PCIe twice, once in each direction.
__global__ void zero_copy_kernel(uint4* out, const uint4* in, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

void fill_host(uint64_t* p, size_t words, uint64_t seed) {
  parallel_count(words, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i)
      p[i] = expected_fill<uint64_t>(seed, i);
    return size_t(0);
  });
}

size_t count_wrong(const uint64_t* p, size_t words, uint64_t seed) {
  return parallel_count(words, [&](size_t b, size_t e) {
    size_t bad = 0;
    for (size_t i = b; i < e; ++i)
      bad += p[i] != expected_fill<uint64_t>(seed, i);
    return bad;
  });
}

/// One transfer's time, the fastest of three after one untimed: whether a batch is needed.
template <class Transfer> double fastest_single_ms(cudaStream_t stream, Transfer&& transfer_once) {
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
  return single_ms;
}

/// Every buffer at the largest size; each point uses a prefix of them.
struct Buffers {
  explicit Buffers(size_t bytes)
      : words(bytes / 8), pageable_src(new uint64_t[words]), pageable_dst(new uint64_t[words]),
        check(new uint64_t[words]), pinned_src(words), pinned_dst(words),
        mapped_in(words, cudaHostAllocMapped), mapped_out(words, cudaHostAllocMapped),
        device_dst(words), device_src(words) {
    fill_host(pageable_src.get(), words, h2d_seed);
    fill_host(pinned_src.get(), words, h2d_seed);
    fill_host(mapped_in.get(), words, h2d_seed);
    fill_device(device_src.get(), words, d2h_seed);
    APOD_CUDA(
        cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_in_device), mapped_in.get(), 0));
    APOD_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_out_device),
                                       mapped_out.get(), 0));
    APOD_CUDA(cudaDeviceSynchronize());
  }
  size_t words;
  std::unique_ptr<uint64_t[]> pageable_src, pageable_dst, check;
  PinnedBuffer<uint64_t> pinned_src, pinned_dst, mapped_in, mapped_out;
  DeviceBuffer<uint64_t> device_dst, device_src;
  uint64_t* mapped_in_device = nullptr;
  uint64_t* mapped_out_device = nullptr;
};

struct Route {
  const char* direction; // h2d | d2h | zero_copy
  const char* memory;    // pageable | pinned | mapped
};

/// This point's limits: the line rate (both directions for zero copy, which moves data both ways
/// at once over a full-duplex link) and the protocol limit at the link's payload size.
json limits(const DeviceInfo& device, const std::string& direction) {
  json extra = json::object();
  const bool zero_copy = direction == "zero_copy";
  if (const auto pcie = device.theoretical_pcie_gbs()) {
    extra[keys::limit_gbs] = (zero_copy ? 2 : 1) * *pcie;
    extra[keys::limit_label] =
        zero_copy ? "PCIe line rate, both directions" : limit_phrase(LimitKind::pcie);
  }
  const auto h2d = device.attainable_pcie_gbs(PcieDirection::host_to_device);
  const auto d2h = device.attainable_pcie_gbs(PcieDirection::device_to_host);
  if (!h2d || !d2h)
    return extra;
  extra[keys::attainable_gbs] = zero_copy ? *h2d + *d2h : direction == "h2d" ? *h2d : *d2h;
  extra[keys::attainable_label] = std::string("PCIe protocol limit, ") +
                                  (zero_copy            ? "both directions"
                                   : direction == "h2d" ? "host to device"
                                                        : "device to host") +
                                  ", MPS " + std::to_string(device.pcie_max_payload_bytes) + " B" +
                                  (device.pcie_max_payload_assumed ? " (assumed)" : "");
  return extra;
}

/// One route at one size: the transfer itself, and the poisoning and checking of its destination.
struct Transfer {
  Transfer(const ExperimentContext& ctx, Buffers& b, const Route& route, size_t size)
      : buf(b), direction(route.direction), memory(route.memory), bytes(size) {
    h2d = direction == "h2d", zero_copy = direction == "zero_copy";
    host_src = memory == "pinned" ? buf.pinned_src.get() : buf.pageable_src.get();
    host_dst = memory == "pinned" ? buf.pinned_dst.get() : buf.pageable_dst.get();
    zero_copy_grid =
        unsigned(std::min<size_t>((bytes / 16 + 255) / 256, size_t(8) * ctx.device.sm_count));
  }

  void once(cudaStream_t s) const {
    if (zero_copy) {
      zero_copy_kernel<<<zero_copy_grid, 256, 0, s>>>(
          reinterpret_cast<uint4*>(buf.mapped_out_device),
          reinterpret_cast<const uint4*>(buf.mapped_in_device), bytes / 16);
      APOD_CUDA_LAUNCH();
    } else if (h2d) {
      APOD_CUDA(cudaMemcpyAsync(buf.device_dst.get(), host_src, bytes, cudaMemcpyHostToDevice, s));
    } else {
      APOD_CUDA(cudaMemcpyAsync(host_dst, buf.device_src.get(), bytes, cudaMemcpyDeviceToHost, s));
    }
  }

  /// Poisons the destination, so that a transfer that wrote nothing cannot verify.
  void poison() const {
    if (zero_copy)
      std::memset(buf.mapped_out.get(), 0xA5, bytes);
    else if (h2d)
      APOD_CUDA(cudaMemset(buf.device_dst.get(), 0xA5, bytes));
    else
      std::memset(host_dst, 0xA5, bytes);
  }

  /// Words of the destination that differ from the source's fill.
  size_t wrong_words() const {
    const size_t words = bytes / 8;
    if (zero_copy) {
      APOD_CUDA(cudaDeviceSynchronize());
      return count_wrong(buf.mapped_out.get(), words, h2d_seed);
    }
    if (h2d) {
      APOD_CUDA(cudaMemcpy(buf.check.get(), buf.device_dst.get(), bytes, cudaMemcpyDeviceToHost));
      return count_wrong(buf.check.get(), words, h2d_seed);
    }
    return count_wrong(host_dst, words, d2h_seed);
  }

  Buffers& buf;
  std::string direction, memory;
  size_t bytes;
  bool h2d = false, zero_copy = false;
  const uint64_t* host_src = nullptr;
  uint64_t* host_dst = nullptr;
  unsigned zero_copy_grid = 1;
};

/// Times `batch` transfers per sample (1: the single-transfer series) and records the point.
void record_point(ExperimentContext& ctx, const Transfer& t, int batch, double single_ms) {
  const bool batched = batch > 1;
  SamplingPolicy policy = ctx.options.sampling;
  const bool short_single = !batched && single_ms < min_single_transfer_ms;
  policy.max_point_s =
      std::min(policy.max_point_s, short_single ? short_single_time_cap_s : point_time_cap_s);
  t.poison();
  const Series times_ms = time_samples_ms(policy, nullptr, [&](cudaStream_t s) {
    for (int i = 0; i < batch; ++i)
      t.once(s);
  });
  const size_t wrong = t.wrong_words();

  const double bytes_per_transfer = t.zero_copy ? 2.0 * t.bytes : double(t.bytes);
  json params = {
      {transfer::direction.key, t.direction},
      {transfer::memory.key, t.memory},
      {transfer::bytes.key, t.bytes},
      {transfer::transfers.key, batched ? "batched" : "single"},
      {transfer::series.key, t.direction + " " + t.memory + (batched ? " batched" : "")}};
  json extra = limits(ctx.device, t.direction);
  extra[transfer::transfers_per_sample] = batch;
  extra[transfer::bytes_per_transfer] = bytes_per_transfer;
  extra["single_transfer_ms"] = single_ms;
  if (t.zero_copy)
    extra["bytes_counted"] = "read from host + written to host, both over PCIe";
  extra[keys::words_wrong] = wrong;
  ctx.record(bandwidth_measurement(std::move(params), batch * bytes_per_transfer, times_ms,
                                   wrong == 0, std::move(extra)));
}

/// The single-transfer point of one route and size, and the batched one when a transfer is short.
void measure_size(ExperimentContext& ctx, Buffers& buf, const Route& route, size_t bytes) {
  const Transfer t(ctx, buf, route, bytes);
  const double single_ms = fastest_single_ms(nullptr, [&](cudaStream_t s) { t.once(s); });
  record_point(ctx, t, 1, single_ms);
  if (single_ms < min_single_transfer_ms)
    record_point(ctx, t,
                 int(std::min(4096.0, std::ceil(batch_target_ms / std::max(single_ms, 1e-4)))),
                 single_ms);
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const std::vector<size_t> sizes = transfer::sizes(ctx.options.quick);
  Buffers buf(sizes.back());
  const Route routes[] = {{"h2d", "pageable"},
                          {"h2d", "pinned"},
                          {"d2h", "pageable"},
                          {"d2h", "pinned"},
                          {"zero_copy", "mapped"}};
  for (const Route& route : routes)
    for (size_t bytes : sizes)
      measure_size(ctx, buf, route, bytes);
}

} // namespace

APOD_EXPERIMENT(transfer::experiment, run);

} // namespace apod
