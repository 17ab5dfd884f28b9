// Pinned transfers from near and far NUMA nodes, CUDA C++ Best Practices Guide 9.4
// (shared/seeds/000_...): on a host of several NUMA nodes, the GPU hangs off one of them, and DMA
// from memory on another node crosses the CPUs' interconnect first. The guide gives no figure; it
// advises binding memory to the GPU's node. Memory is placed with mbind (numa.cpp) and pinned with
// cudaHostRegister, so the only difference between the two buffers is their node.
#include "declaration.hpp"
#include "numa.hpp"

#include "core/cuda_memory.cuh"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "core/series.hpp"
#include "core/timing.cuh"
#include "core/verify.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace apod {
namespace {

constexpr uint64_t h2d_seed = 0x4E2D5EED, d2h_seed = 0xD24E5EED;
// Both nodes' samples are taken side by side (fixed count) so that far/near pairs sample by
// sample; 20 transfers of 64 MiB take ~25 ms at a PCIe 5.0 link's rate.
constexpr int samples_per_point = 20;

/// Host memory on one node, pinned while it lives.
class PinnedOnNode {
public:
  PinnedOnNode(size_t bytes, int node) : memory_(bytes, node) {
    APOD_CUDA(cudaHostRegister(memory_.get(), bytes, cudaHostRegisterDefault));
  }
  ~PinnedOnNode() { cudaHostUnregister(memory_.get()); }
  PinnedOnNode(const PinnedOnNode&) = delete;
  PinnedOnNode& operator=(const PinnedOnNode&) = delete;
  uint64_t* words() const { return static_cast<uint64_t*>(memory_.get()); }
  const numa::NodeMemory& memory() const { return memory_; }

private:
  numa::NodeMemory memory_;
};

size_t count_wrong(const uint64_t* p, size_t words, uint64_t seed) {
  return parallel_count(words, [&](size_t b, size_t e) {
    size_t bad = 0;
    for (size_t i = b; i < e; ++i)
      bad += p[i] != expected_fill<uint64_t>(seed, i);
    return bad;
  });
}

struct Timed {
  Series gbs;
  size_t wrong = 0;
};

/// One direction from or to one node's buffer: destination poisoned, a fixed count of transfers
/// timed, destination checked word by word.
Timed transfer(const ExperimentContext& ctx, PinnedOnNode& host, DeviceBuffer<uint64_t>& device,
               bool h2d, cudaStream_t s) {
  const size_t words = device.size(), bytes = device.bytes();
  if (h2d) {
    parallel_count(words, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i)
        host.words()[i] = expected_fill<uint64_t>(h2d_seed, i);
      return size_t(0);
    });
    APOD_CUDA(cudaMemset(device.get(), 0xA5, bytes));
  } else {
    fill_device(device.get(), words, d2h_seed);
    std::memset(host.words(), 0xA5, bytes);
  }
  APOD_CUDA(cudaDeviceSynchronize());
  SamplingPolicy policy = ctx.options.sampling;
  policy.min_samples = std::max(policy.min_samples, ctx.options.quick ? 3 : samples_per_point);
  const TimedSamples t = time_fixed_ms(policy, s, [&](cudaStream_t st) {
    if (h2d)
      APOD_CUDA(cudaMemcpyAsync(device.get(), host.words(), bytes, cudaMemcpyHostToDevice, st));
    else
      APOD_CUDA(cudaMemcpyAsync(host.words(), device.get(), bytes, cudaMemcpyDeviceToHost, st));
  });
  Timed out{bandwidth_gbs(Series(t), double(bytes))};
  if (h2d) {
    std::vector<uint64_t> back(words);
    APOD_CUDA(cudaMemcpy(back.data(), device.get(), bytes, cudaMemcpyDeviceToHost));
    out.wrong = count_wrong(back.data(), words, h2d_seed);
  } else {
    out.wrong = count_wrong(host.words(), words, d2h_seed);
  }
  return out;
}

void run(ExperimentContext& ctx) {
  APOD_CUDA(cudaSetDevice(ctx.device.ordinal));
  const int gpu_node = numa::pci_numa_node(ctx.device.pci_bus_id);
  const numa::Choice choice =
      numa::choose_nodes(numa::memory_nodes(), gpu_node,
                         gpu_node >= 0 ? numa::node_distances(gpu_node) : std::vector<int>{});
  if (!choice.nodes)
    throw ExperimentSkipped(choice.why_not);
  const numa::NodeChoice nodes = *choice.nodes;
  const size_t bytes = numa::transfer_bytes(ctx.options.quick);

  std::optional<PinnedOnNode> near, far;
  try {
    near.emplace(bytes, nodes.near);
    far.emplace(bytes, nodes.far);
  } catch (const numa::NumaUnavailable& e) {
    throw ExperimentSkipped(std::string("host memory cannot be placed on a node here: ") +
                            e.what());
  }
  DeviceBuffer<uint64_t> device(bytes / sizeof(uint64_t));
  OwnedStream stream;

  for (const bool h2d : {true, false}) {
    const char* way = h2d ? "h2d" : "d2h";
    const Timed at_near = transfer(ctx, *near, device, h2d, stream.get());
    const Timed at_far = transfer(ctx, *far, device, h2d, stream.get());
    for (const auto& [where, timed, buffer] :
         {std::tuple{"near", &at_near, &*near}, std::tuple{"far", &at_far, &*far}}) {
      json extra = {{"host_memory_node", buffer->memory().node()},
                    {"gpu_node", gpu_node},
                    {"node_distance", nodes.distance},
                    {keys::bytes_moved, double(bytes)},
                    {keys::words_wrong, timed->wrong}};
      if (const auto share = buffer->memory().share_on_node())
        extra["pages_on_node"] = *share;
      if (const auto pcie = ctx.device.theoretical_pcie_gbs())
        extra[keys::limit_gbs] = *pcie;
      ctx.record(make_measurement(
          {{numa::direction.key, way}, {numa::node.key, where}, {numa::bytes.key, bytes}},
          numa::bandwidth, timed->gbs, timed->wrong == 0, std::move(extra)));
    }
    const size_t wrong = at_near.wrong + at_far.wrong;
    ctx.record(make_measurement(
        {{numa::direction.key, way}, {numa::bytes.key, bytes}}, numa::far_over_near,
        Series::zip(at_far.gbs, at_near.gbs, [](double f, double n) { return f / n; }), wrong == 0,
        {{"host_memory_node", nodes.far},
         {"gpu_node", gpu_node},
         {"node_distance", nodes.distance},
         {keys::words_wrong, wrong}}));
  }
}

} // namespace

APOD_EXPERIMENT(numa::experiment, run);

} // namespace apod
