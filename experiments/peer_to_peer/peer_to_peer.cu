// GPU to GPU over NVLink or PCIe, peer to peer (Best Practices Guide 9.1.4: UVA is the
// precondition for peer-to-peer transfers "directly across the PCIe bus or NVLink ... bypassing
// host memory"; Pascal Tuning Guide 1.4.4: NVLink). For every other visible GPU that this one can
// reach peer to peer both ways, with peer access enabled for the measurement: the copy engines
// (cudaMemcpyPeerAsync) each way and both ways at once, an SM copy kernel on this GPU over peer
// pointers each way and both ways, and a pointer chase by one thread of this GPU through the
// peer's memory against the same chase through its own. nvbandwidth (NVIDIA) is the peer tool:
// its device_to_device memcpy_ce and memcpy_sm tests are these copies. Every destination is
// poisoned before a point and checked word by word on its own GPU after it.
#include "core/cuda_memory.cuh"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "declaration.hpp"
#include "link.hpp"
#include "run/nvml.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace apod {
namespace {

constexpr int block_size = 256;
constexpr uint64_t local_seed = 0x9EE21A11, peer_seed = 0x9EE2B0B2;
constexpr uint64_t chain_seed = 0xC4A125EED;
constexpr size_t line_words = 16; // one chain node per 128-byte line of 8-byte words
// Per point: the large copies take their minimum samples (10 x 2.7 ms at 1 GiB over an H100's
// 18 NVLinks); the short ones stop here when they do not settle. 18 copy points a peer: ~0.5 s.
constexpr double point_time_cap_s = 0.025;
constexpr size_t large_copy_bytes = size_t(256) << 20;

/// Makes `device` current while it lives, then the device that was.
class CurrentDevice {
public:
  explicit CurrentDevice(int device) {
    APOD_CUDA(cudaGetDevice(&previous_));
    APOD_CUDA(cudaSetDevice(device));
  }
  ~CurrentDevice() { cudaSetDevice(previous_); }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

private:
  int previous_ = 0;
};

/// Peer access from `from` to `to`'s memory while it lives; left on if it was on before.
class PeerAccess {
public:
  PeerAccess(int from, int to) : from_(from), to_(to) {
    CurrentDevice on(from);
    const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      cudaGetLastError(); // clears the sticky-free error so the next check does not see it
      was_enabled_ = true;
    } else {
      APOD_CUDA(e);
    }
  }
  ~PeerAccess() {
    if (was_enabled_)
      return;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(from_);
    cudaDeviceDisablePeerAccess(to_);
    cudaSetDevice(previous);
  }
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;
  bool was_enabled() const { return was_enabled_; }

private:
  int from_, to_;
  bool was_enabled_ = false;
};

// Blocks `block` of `blocks` copy 16-byte words [0, n) grid-stride, four loads in flight each.
__device__ __forceinline__ void copy_range(uint4* __restrict__ dst, const uint4* __restrict__ src,
                                           size_t n, unsigned block, unsigned blocks) {
  const size_t threads = size_t(blocks) * blockDim.x;
  size_t i = block * size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * threads < n; i += 4 * threads) {
    const uint4 a = src[i], b = src[i + threads], c = src[i + 2 * threads],
                d = src[i + 3 * threads];
    dst[i] = a, dst[i + threads] = b, dst[i + 2 * threads] = c, dst[i + 3 * threads] = d;
  }
  for (; i < n; i += threads)
    dst[i] = src[i];
}

__global__ void __launch_bounds__(block_size)
    sm_copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, size_t n) {
  copy_range(dst, src, n, blockIdx.x, gridDim.x);
}

// Counts the words of `p` that differ from fill_value(seed, i); run on the GPU that owns `p`.
__global__ void count_wrong_kernel(const uint64_t* __restrict__ p, size_t n, uint64_t seed,
                                   unsigned long long* wrong) {
  unsigned long long bad = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    bad += p[i] != fill_value(seed, i);
  for (int offset = 16; offset > 0; offset /= 2)
    bad += __shfl_down_sync(0xFFFFFFFFu, bad, offset);
  if (threadIdx.x % 32 == 0 && bad)
    atomicAdd(wrong, bad);
}

// Node order[k] points at node order[k + 1], cyclically: one cycle through every line.
__global__ void link_kernel(unsigned long long* chain, const uint32_t* order, uint32_t n) {
  for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
    chain[size_t(order[k]) * line_words] = reinterpret_cast<unsigned long long>(
        chain + size_t(order[k + 1 == n ? 0 : k + 1]) * line_words);
}

struct ChaseOut {
  unsigned long long end, ns;
};

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

// One thread, `steps` dependent loads through the L2 path (ld.global.cg: not kept in the L1).
__global__ void chase_kernel(const unsigned long long* start, uint32_t steps, ChaseOut* out) {
  const unsigned long long* p = start;
  const unsigned long long t0 = global_ns();
  for (uint32_t i = 0; i < steps; ++i)
    p = reinterpret_cast<const unsigned long long*>(__ldcg(p));
  const unsigned long long t1 = global_ns();
  out->end = reinterpret_cast<unsigned long long>(p);
  out->ns = t1 - t0;
}

/// One GPU's buffers: a filled source, a destination, a chain, and the checker's counter.
struct Side {
  Side(int ordinal, size_t bytes, uint64_t fill_seed, const std::vector<uint32_t>& order)
      : device(ordinal), seed(fill_seed), words(bytes / 8) {
    CurrentDevice on(device);
    APOD_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    src = DeviceBuffer<uint64_t>(words);
    dst = DeviceBuffer<uint64_t>(words);
    counter = DeviceBuffer<unsigned long long>(1);
    fill_device(src.get(), words, seed);
    chain = DeviceBuffer<unsigned long long>(order.size() * line_words);
    DeviceBuffer<uint32_t> order_on_device(order.size());
    APOD_CUDA(cudaMemcpy(order_on_device.get(), order.data(), order.size() * sizeof(uint32_t),
                         cudaMemcpyHostToDevice));
    link_kernel<<<4 * sm_count, block_size>>>(chain.get(), order_on_device.get(),
                                              uint32_t(order.size()));
    APOD_CUDA_LAUNCH();
    APOD_CUDA(cudaDeviceSynchronize());
  }

  /// Words of [0, n) of `p` (this GPU's) that are not fill_value(expected_seed, i).
  size_t wrong(const uint64_t* p, size_t n, uint64_t expected_seed) const {
    CurrentDevice on(device);
    APOD_CUDA(cudaMemset(counter.get(), 0, sizeof(unsigned long long)));
    count_wrong_kernel<<<4 * sm_count, block_size>>>(p, n, expected_seed, counter.get());
    APOD_CUDA_LAUNCH();
    unsigned long long h = 0;
    APOD_CUDA(cudaMemcpy(&h, counter.get(), sizeof h, cudaMemcpyDeviceToHost));
    return size_t(h);
  }
  void poison_dst(size_t bytes) const {
    CurrentDevice on(device);
    APOD_CUDA(cudaMemset(dst.get(), 0xA5, bytes));
    APOD_CUDA(cudaDeviceSynchronize());
  }
  /// Reads the whole source on this GPU: checks it, and leaves the L2 holding none of the chain.
  size_t evict_l2() const { return wrong(src.get(), words, seed); }

  int device;
  uint64_t seed;
  size_t words;
  int sm_count = 0;
  DeviceBuffer<uint64_t> src, dst;
  DeviceBuffer<unsigned long long> counter, chain;
};

/// The cyclic chain's node order: a seeded shuffle of every line.
std::vector<uint32_t> chain_order(size_t chain_bytes) {
  std::vector<uint32_t> order(chain_bytes / (line_words * 8));
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 rng(chain_seed);
  for (size_t i = order.size() - 1; i > 0; --i)
    std::swap(order[i], order[std::uniform_int_distribution<size_t>(0, i)(rng)]);
  return order;
}

/// A chase through `owner`'s chain by this GPU: ns per step per sample, and wrong ends.
struct Chase {
  Series ns_per_step;
  size_t samples_wrong = 0;
};

Chase chase(const ExperimentContext& ctx, const Side& owner, const std::vector<uint32_t>& order,
            uint32_t steps, cudaStream_t stream) {
  owner.evict_l2();
  DeviceBuffer<ChaseOut> out(1);
  const unsigned long long* chain = owner.chain.get();
  const auto node = [&](size_t k) { return chain + size_t(order[k % order.size()]) * line_words; };
  size_t k = 0;
  const auto once = [&](bool timed) {
    chase_kernel<<<1, 1, 0, stream>>>(node(k), steps, out.get());
    APOD_CUDA_LAUNCH();
    ChaseOut h{};
    APOD_CUDA(cudaMemcpyAsync(&h, out.get(), sizeof h, cudaMemcpyDeviceToHost, stream));
    APOD_CUDA(cudaStreamSynchronize(stream));
    k += steps; // the next chase starts where this one ended: on lines not touched since
    return std::pair{h, h.end == reinterpret_cast<unsigned long long>(node(k)) || !timed};
  };
  once(false);
  Chase c;
  const SamplingPolicy& policy = ctx.options.sampling;
  for (int i = 0; i < std::max(policy.min_samples, 3); ++i) {
    const auto [h, right] = once(true);
    c.samples_wrong += !right;
    c.ns_per_step.add(double(h.ns) / steps, policy.check_sample());
  }
  return c;
}

/// The peer's stream and the events that start and join a copy on each GPU at once.
struct CrossStreams {
  explicit CrossStreams(int peer) {
    APOD_CUDA(cudaEventCreateWithFlags(&go, cudaEventDisableTiming)); // on the current GPU
    CurrentDevice on(peer);
    APOD_CUDA(cudaStreamCreateWithFlags(&peer_stream, cudaStreamNonBlocking));
    APOD_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  }
  ~CrossStreams() {
    if (peer_stream) {
      cudaStreamSynchronize(peer_stream);
      cudaStreamDestroy(peer_stream);
    }
    if (go)
      cudaEventDestroy(go);
    if (done)
      cudaEventDestroy(done);
  }
  CrossStreams(const CrossStreams&) = delete;
  CrossStreams& operator=(const CrossStreams&) = delete;
  cudaStream_t peer_stream = nullptr;
  cudaEvent_t go = nullptr, done = nullptr; // go: on this GPU; done: on the peer
};

struct PeerRun {
  ExperimentContext& ctx;
  Side& local;
  Side& peer;
  int self, other;
  unsigned grid, peer_grid;
  cudaStream_t stream;
  const CrossStreams& cross;
  json facts;
  p2p::LinkFacts link;

  /// One sample's work: `copies` copies of `bytes` each way the route goes. Both ways: one
  /// stream per GPU, started by an event of this GPU's stream and joined back into it.
  void copy(const p2p::Route& r, size_t bytes, int copies, cudaStream_t s) const {
    const size_t vectors = bytes / 16;
    auto* peer_dst = reinterpret_cast<uint4*>(peer.dst.get());
    auto* local_dst = reinterpret_cast<uint4*>(local.dst.get());
    const auto* peer_src = reinterpret_cast<const uint4*>(peer.src.get());
    const auto* local_src = reinterpret_cast<const uint4*>(local.src.get());
    const std::string direction = r.direction;
    const bool engine = r.method == std::string(p2p::copy_engine);
    const bool both = direction == p2p::both_ways;
    if (both) {
      APOD_CUDA(cudaEventRecord(cross.go, s));
      APOD_CUDA(cudaStreamWaitEvent(cross.peer_stream, cross.go, 0));
    }
    for (int i = 0; i < copies; ++i) {
      if (engine) {
        if (direction != p2p::from_peer) // this GPU to the peer, on this GPU's stream
          APOD_CUDA(cudaMemcpyPeerAsync(peer_dst, other, local_src, self, bytes, s));
        if (direction == p2p::from_peer)
          APOD_CUDA(cudaMemcpyPeerAsync(local_dst, self, peer_src, other, bytes, s));
        else if (both) // the peer to this GPU, on the peer's stream
          APOD_CUDA(
              cudaMemcpyPeerAsync(local_dst, self, peer_src, other, bytes, cross.peer_stream));
        continue;
      }
      if (direction == p2p::to_peer) {
        sm_copy_kernel<<<grid, block_size, 0, s>>>(peer_dst, local_src, vectors);
        APOD_CUDA_LAUNCH();
        continue;
      }
      // Reading from the peer; both ways, the peer's SMs read from this GPU at the same time
      // (nvbandwidth's device_to_device_bidirectional_memcpy_read_sm).
      sm_copy_kernel<<<grid, block_size, 0, s>>>(local_dst, peer_src, vectors);
      APOD_CUDA_LAUNCH();
      if (both) {
        CurrentDevice on(other);
        sm_copy_kernel<<<peer_grid, block_size, 0, cross.peer_stream>>>(peer_dst, local_src,
                                                                        vectors);
        APOD_CUDA_LAUNCH();
      }
    }
    if (both) {
      APOD_CUDA(cudaEventRecord(cross.done, cross.peer_stream));
      APOD_CUDA(cudaStreamWaitEvent(s, cross.done, 0));
    }
  }

  void measure(const p2p::Route& r, size_t bytes) {
    const std::string direction = r.direction;
    const bool to = direction != p2p::from_peer, from = direction != p2p::to_peer;
    if (to)
      peer.poison_dst(bytes);
    if (from)
      local.poison_dst(bytes);
    SamplingPolicy policy = ctx.options.sampling;
    policy.max_point_s = std::min(policy.max_point_s, point_time_cap_s);
    if (bytes >= large_copy_bytes) // a 1 GiB copy warms itself up: one untimed is enough
      policy.warmup = std::min(policy.warmup, 1);
    const int copies = p2p::copies_per_sample(bytes);
    const Series times_ms(
        time_samples_ms(policy, stream, [&](cudaStream_t s) { copy(r, bytes, copies, s); }));
    APOD_CUDA(cudaStreamSynchronize(stream));
    const size_t wrong = (to ? peer.wrong(peer.dst.get(), bytes / 8, local.seed) : 0) +
                         (from ? local.wrong(local.dst.get(), bytes / 8, peer.seed) : 0);
    const double bytes_over_link = double(bytes) * (to && from ? 2 : 1) * copies;
    json extra = facts;
    extra[keys::bytes_moved] = bytes_over_link;
    extra["copies_per_sample"] = copies;
    extra[keys::words_wrong] = wrong;
    if (r.method == std::string(p2p::sm_copy))
      extra["grid"] = grid; // and as many blocks per SM on the peer, both ways
    if (const auto limit = p2p::point_limit_gbs(link, to && from)) {
      extra[keys::limit_gbs] = *limit;
      extra[keys::limit_label] = link.limit_label + (to && from ? ", both directions" : "");
    }
    ctx.record(make_measurement({{p2p::peer.key, other},
                                 {p2p::method.key, r.method},
                                 {p2p::direction.key, r.direction},
                                 {p2p::bytes.key, bytes},
                                 {p2p::route.key, p2p::route_words(r)}},
                                p2p::bandwidth, bandwidth_gbs(times_ms, bytes_over_link),
                                wrong == 0, std::move(extra)));
  }
};

std::string pci_bus_id(int device) {
  char id[32] = {};
  APOD_CUDA(cudaDeviceGetPCIBusId(id, sizeof id, device));
  return id;
}

int p2p_attribute(cudaDeviceP2PAttr attribute, int from, int to) {
  int value = 0;
  APOD_CUDA(cudaDeviceGetP2PAttribute(&value, attribute, from, to));
  return value;
}

/// The other GPUs this one reaches peer to peer both ways.
std::vector<int> reachable_peers(int self, int count) {
  std::vector<int> peers;
  for (int p = 0; p < count; ++p) {
    if (p == self)
      continue;
    int there = 0, back = 0;
    APOD_CUDA(cudaDeviceCanAccessPeer(&there, self, p));
    APOD_CUDA(cudaDeviceCanAccessPeer(&back, p, self));
    if (there && back)
      peers.push_back(p);
  }
  return peers;
}

void run(ExperimentContext& ctx) {
  const int self = ctx.device.ordinal;
  APOD_CUDA(cudaSetDevice(self));
  const int count = device_count();
  if (count < 2)
    throw ExperimentSkipped("only one GPU is visible: peer-to-peer needs two");
  const std::vector<int> peers = reachable_peers(self, count);
  if (peers.empty())
    throw ExperimentSkipped("no other visible GPU can access this one peer to peer both ways "
                            "(cudaDeviceCanAccessPeer)");

  const std::vector<size_t> sizes = p2p::sizes(ctx.options.quick, ctx.options.full);
  const size_t chain_bytes = (ctx.options.quick ? size_t(32) : size_t(256)) << 20;
  const uint32_t steps = ctx.options.quick ? 256 : 2048;
  const std::vector<uint32_t> order = chain_order(chain_bytes);
  Side local(self, sizes.back(), local_seed, order);
  OwnedStream stream;

  // This GPU's NVLinks as NVML sees them (none without NVML), and every visible GPU's bus id.
  GpuState state;
  {
    Nvml nvml(ctx.device.pci_bus_id);
    if (nvml.available())
      state = nvml.device_state();
  }
  std::vector<std::string> bus_ids;
  for (int d = 0; d < count; ++d)
    bus_ids.push_back(pci_bus_id(d));

  int sm_blocks = 0;
  APOD_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&sm_blocks, sm_copy_kernel, block_size, 0));
  const unsigned grid = unsigned(sm_blocks * ctx.device.sm_count);

  // The local chase runs once, after the first peer's copies: a single thread's chase on an idle
  // GPU is timed before its clock rises, and the clock monitor rightly flagged every sample of it
  // as the first point of `apod run --only peer_to_peer` (two H200s).
  std::optional<Chase> local_chase;
  const auto local_latency = [&]() -> const Chase& {
    if (!local_chase) {
      local_chase = chase(ctx, local, order, steps, stream.get());
      ctx.record(make_measurement(
          {{p2p::memory.key, p2p::local_memory}, {p2p::route.key, p2p::local_route}}, p2p::latency,
          local_chase->ns_per_step, local_chase->samples_wrong == 0,
          {{"chain_bytes", chain_bytes},
           {"steps", steps},
           {"samples_wrong", local_chase->samples_wrong}}));
    }
    return *local_chase;
  };

  for (const int other : peers) {
    cudaDeviceProp prop{};
    APOD_CUDA(cudaGetDeviceProperties(&prop, other));
    const bool atomics = p2p_attribute(cudaDevP2PAttrNativeAtomicSupported, self, other) != 0;
    const p2p::LinkFacts link =
        p2p::link_facts(state.nvlinks, bus_ids[other], bus_ids, ctx.device.cc_major,
                        ctx.device.cc_minor, atomics, ctx.device.theoretical_pcie_gbs());
    json facts = {
        {"peer_name", prop.name},
        {"peer_pci_bus_id", bus_ids[other]},
        {"link", link.kind},
        {"nvlinks_to_peer", link.nvlinks_to_peer},
        {"nvlinks_to_switch", link.nvlinks_to_switch},
        {"nvlinks_far_end_hidden", link.nvlinks_far_end_hidden},
        {"nvlink_generation", link.generation},
        {"p2p_performance_rank", p2p_attribute(cudaDevP2PAttrPerformanceRank, self, other)},
        {"p2p_native_atomics", atomics}};
    for (const NvLink& l : state.nvlinks)
      if (l.active && l.version && p2p::same_pci_device(l.remote_pci_bus_id, bus_ids[other])) {
        facts["nvlink_version_nvml"] = *l.version;
        break;
      }

    Side peer(other, sizes.back(), peer_seed, order);
    const PeerAccess there(self, other), back(other, self);
    facts["peer_access_was_enabled"] = there.was_enabled();
    const CrossStreams cross(other);
    const unsigned peer_grid = unsigned(sm_blocks * peer.sm_count);
    PeerRun pair{ctx, local, peer, self, other, grid, peer_grid, stream.get(), cross, facts, link};
    for (const size_t size : sizes)
      for (const p2p::Route& r : p2p::routes())
        pair.measure(r, size);

    const Chase& local_chase = local_latency();
    const double local_ns = local_chase.ns_per_step.summary().median;
    const Chase peer_chase = chase(ctx, peer, order, steps, stream.get());
    json chase_facts = facts;
    chase_facts["chain_bytes"] = chain_bytes;
    chase_facts["steps"] = steps;
    chase_facts["samples_wrong"] = peer_chase.samples_wrong;
    chase_facts["local_latency_ns"] = local_ns;
    const bool chased = peer_chase.samples_wrong == 0 && local_chase.samples_wrong == 0;
    const json params = {{p2p::peer.key, other},
                         {p2p::memory.key, p2p::peer_memory},
                         {p2p::route.key, p2p::peer_route(other)}};
    ctx.record(make_measurement(params, p2p::latency, peer_chase.ns_per_step,
                                peer_chase.samples_wrong == 0, chase_facts));
    ctx.record(make_measurement(params, p2p::latency_ratio,
                                Series::zip(peer_chase.ns_per_step, local_chase.ns_per_step,
                                            [](double peer_ns, double local_ns_sample) {
                                              return peer_ns / local_ns_sample;
                                            }),
                                chased, std::move(chase_facts)));
  }
}

} // namespace

APOD_EXPERIMENT(p2p::experiment, run);

} // namespace apod
