// peer_to_peer's declaration: bandwidth between this GPU and every other it can reach peer to
// peer, by copy engine and by SM copy, each way and both ways at once, over the transfer size;
// and the latency of a load from the peer's memory against one from this GPU's own.
#include "declaration.hpp"

#include <algorithm>

namespace apod::p2p {

std::vector<size_t> sizes(bool quick, bool full) {
  constexpr size_t mib = size_t(1) << 20;
  if (quick)
    return {1 * mib, 16 * mib};
  if (!full)
    return {4 * mib, 64 * mib, 1024 * mib};
  std::vector<size_t> all;
  for (size_t b = size_t(4) << 10; b <= 1024 * mib; b *= 4)
    all.push_back(b);
  return all;
}

const std::vector<Route>& routes() {
  static const std::vector<Route> all = {{copy_engine, to_peer},   {copy_engine, from_peer},
                                         {copy_engine, both_ways}, {sm_copy, to_peer},
                                         {sm_copy, from_peer},     {sm_copy, both_ways}};
  return all;
}

std::string route_words(const Route& r) {
  const std::string how = r.method == std::string(copy_engine) ? "copy engine" : "SM copy";
  if (r.direction == std::string(to_peer))
    return how + " to peer";
  if (r.direction == std::string(from_peer))
    return how + " from peer";
  return how + " both ways";
}

int copies_per_sample(size_t bytes) {
  constexpr size_t target = size_t(64) << 20;
  return int(std::clamp<size_t>(target / bytes, 1, 16));
}

std::string peer_route(int peer) {
  return "GPU " + std::to_string(peer) + "'s memory";
}

namespace {

// The plan cannot see how many GPUs the machine has: it names peers 0 to 7 (nodes of up to
// eight GPUs), each under the condition that the run finds it.
constexpr int planned_gpus = 8;

const char* const condition = "GPU {peer} is visible beside this one and peer access works both "
                              "ways (cudaDeviceCanAccessPeer); on one GPU the experiment is "
                              "skipped";

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  points.push_back({{{memory.key, local_memory}, {route.key, local_route}},
                    {latency.name},
                    "at least one peer is reachable (the local chase is its reference)"});
  for (int p = 0; p < planned_gpus; ++p) {
    if (p == in.device.ordinal)
      continue;
    std::string when = condition;
    when.replace(when.find("{peer}"), 6, std::to_string(p));
    for (const size_t size : sizes(in.quick, in.full))
      for (const Route& r : routes())
        points.push_back({{{peer.key, p},
                           {method.key, r.method},
                           {direction.key, r.direction},
                           {bytes.key, size},
                           {route.key, route_words(r)}},
                          {bandwidth.name},
                          when});
    const json chase = {{peer.key, p}, {memory.key, peer_memory}, {route.key, peer_route(p)}};
    points.push_back({chase, {latency.name}, when});
    points.push_back({chase, {latency_ratio.name}, when});
  }
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::sweep_of(bandwidth).along(bytes, true).colour(route);
  c.mark = "point"; // a machine of more than two GPUs has a point per peer at each size
  c.says("Bandwidth between this GPU and each peer against the transfer size: copy engine "
         "(cudaMemcpyPeerAsync) and SM copy kernel, to the peer, from it, and both ways at once "
         "(the sum of the two directions; one point per peer)",
         {"The limit drawn is the link's theoretical rate: active NVLinks x 25 GB/s per "
          "direction for NVLink 2.0-4.0 (twice it both ways), or the PCIe line rate."});
  return c;
}

Chart latency_chart() {
  Chart c = Chart::sweep_of(latency).along(route);
  c.mark = "bar";
  c.says("Latency of one dependent 8-byte load by a single thread of this GPU, from each peer's "
         "memory over the link and from its own memory, on fresh lines of a 256 MiB chain");
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "GPU to GPU: peer-to-peer copies and latency",
    .description =
        "For every other visible GPU this one can access peer to peer both ways (peer access is "
        "enabled for the measurement and its state restored after): bandwidth of "
        "cudaMemcpyPeerAsync (copy engine) from this GPU to the peer, from the peer to this GPU "
        "(both issued on this GPU's stream), and both at once (one copy on each GPU's stream; "
        "the figure is the bytes of both directions over the time both take); of an SM copy "
        "kernel over peer pointers (16-byte loads and stores, grid-stride, all SMs): this GPU's "
        "SMs writing to the peer, reading from it, and both at once as nvbandwidth's "
        "bidirectional SM case does it (each GPU's SMs read from the other, one kernel on each "
        "GPU's stream); sizes 4 MiB, 64 MiB and 1 GiB per direction (--full: 4 KiB to 1 GiB in "
        "powers of 4); under 64 MiB several copies are timed back to back in one sample "
        "(copies_per_sample, at most 16). Every copy's destination is poisoned before the point "
        "and checked word by word "
        "on its own GPU afterwards (words_wrong). The latency is one thread of this GPU chasing "
        "a random cyclic chain of 128-byte lines (ld.global.cg) through 256 MiB of the peer's "
        "memory and through the same chain in its own memory (random lines: nvbandwidth's "
        "latency case walks consecutive 128-byte lines, which reads lower), after a read pass over "
        "1 GiB on "
        "the chain's GPU evicts its L2; every sample continues the chain on lines not touched "
        "since, timed with %globaltimer; the end of each chase is checked against the host's "
        "walk. Each point records the peer (name, PCI bus id), the link as NVML and CUDA see it "
        "(NVLinks to the peer and their version, CUDA's performance rank and native atomics) "
        "and its theoretical rate. `apod run --device all` runs the GPUs in turn, each child "
        "measuring its own outgoing pairs (so every pair is measured from both ends); with "
        "--all-at-once the pairs of different GPUs overlap and share links and copy engines, "
        "and the figures are not the link's alone.",
    .citation = "CUDA C++ Best Practices Guide 9.1.4 (UVA, the precondition for peer-to-peer "
                "over PCIe or NVLink); Pascal Tuning Guide 1.4.4 (NVLink, peer atomics); CUDA "
                "Runtime API, Peer Device Memory Access; nvbandwidth (the copy-engine and SM "
                "copy tests it mirrors)",
    .version = 1,
    .order = 54,
    .chapter = Chapter::gpu_link,
    .params = {peer, method, direction, bytes, route, memory},
    .metrics = {bandwidth, latency, latency_ratio},
    .extras = {{"peer_name", "the peer's device name"},
               {"peer_pci_bus_id", "the peer's PCI bus id (CUDA)"},
               {"link", "how the GPUs are joined: nvlink, nvlink_switch, pcie or unknown"},
               {"nvlinks_to_peer", "active NVLinks whose far end is the peer (NVML)"},
               {"nvlinks_to_switch", "active NVLinks whose far end is no visible GPU (NVSwitch)"},
               {"nvlinks_far_end_hidden",
                "active NVLinks whose far end NVML hides (FFFFFFFF:FF:FF.0 in a virtual machine)"},
               {"copies_per_sample", "copies timed back to back in one sample"},
               {"nvlink_generation", "NVLink generation by compute capability (0: none known)"},
               {"nvlink_version_nvml", "nvmlDeviceGetNvLinkVersion's raw answer on a link to it"},
               {"p2p_performance_rank", "cudaDevP2PAttrPerformanceRank (lower is faster)"},
               {"p2p_native_atomics", "cudaDevP2PAttrNativeAtomicSupported"},
               {"peer_access_was_enabled", "peer access was already on before the experiment"},
               {"grid", "blocks of the SM copy kernel"},
               {"chain_bytes", "bytes the chased chain spans"},
               {"steps", "dependent loads per sample"},
               {"samples_wrong", "samples whose chase ended off the host's node"},
               {"local_latency_ns", "the local chase's median, the ratio's denominator"}},
    .charts = {bandwidth_chart(), latency_chart()},
    .plan = plan,
});

} // namespace apod::p2p
