// peer_to_peer's declaration (declaration.cpp registers it): its params and metrics as named
// constants, and the sizes and routes it measures, which peer_to_peer.cu records under.
#pragma once

#include "core/catalog.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace apod::p2p {

inline constexpr const char* experiment = "peer_to_peer";

inline constexpr const char* copy_engine = "copy_engine";
inline constexpr const char* sm_copy = "sm_copy";
inline constexpr const char* to_peer = "to_peer";
inline constexpr const char* from_peer = "from_peer";
inline constexpr const char* both_ways = "both";
inline constexpr const char* peer_memory = "peer";
inline constexpr const char* local_memory = "local";

inline const Param peer{.key = "peer", .title = "peer GPU (CUDA ordinal)"};
inline const Param method{.key = "method",
                          .title = "copy method",
                          .labels = {{copy_engine, "copy engine (cudaMemcpyPeerAsync)"},
                                     {sm_copy, "SM copy kernel over peer pointers"}}};
inline const Param direction{.key = "direction",
                             .title = "direction",
                             .labels = {{to_peer, "this GPU to the peer"},
                                        {from_peer, "the peer to this GPU"},
                                        {both_ways, "both at once"}}};
inline const Param bytes{.key = "bytes", .title = "bytes per direction", .unit = "bytes"};
/// The curve a point belongs to: method and direction in words ("copy engine to peer"); for the
/// chases, whose memory ("GPU 1's memory").
inline const Param route{.key = "route", .title = "route"};
inline const Param memory{.key = "memory",
                          .title = "memory chased",
                          .labels = {{peer_memory, "the peer's memory, over the link"},
                                     {local_memory, "this GPU's own memory"}}};

/// Bytes over the link per second: GPU-to-GPU transfers are the gpu_link class (NVLink or PCIe
/// peer to peer), read against each point's own limit (the link's theoretical rate, extra).
inline const Metric bandwidth{.name = "bandwidth",
                              .unit = "GB/s",
                              .direction = Direction::higher,
                              .metric_class = MetricClass::gpu_link,
                              .title = "GPU-to-GPU bandwidth"};
/// One dependent load's time; the local chase is a device-memory figure.
inline const Metric latency{.name = "latency",
                            .unit = "ns",
                            .direction = Direction::lower,
                            .metric_class = MetricClass::gpu_link,
                            .title = "pointer-chase latency",
                            .cases = {{.key = memory.key,
                                       .equals = local_memory,
                                       .then = MetricClass::device_memory,
                                       .why = "the local chase never leaves this GPU's memory"}}};
/// The peer chase over the local one, sample by sample: what the link adds to a load.
inline const Metric latency_ratio{.name = "peer_over_local_latency",
                                  .unit = "1",
                                  .direction = Direction::lower,
                                  .metric_class = MetricClass::derived,
                                  .title = "peer latency over local latency"};

/// Transfer sizes per direction: quick {1, 16} MiB; default {4 MiB, 64 MiB, 1 GiB}; --full
/// powers of 4 from 4 KiB to 1 GiB (a superset of the default's).
std::vector<size_t> sizes(bool quick, bool full);

/// The routes measured with every peer at every size, in order.
struct Route {
  const char* method;
  const char* direction;
};
const std::vector<Route>& routes();
/// The route param of the chases: "this GPU's memory", "GPU 1's memory".
inline constexpr const char* local_route = "this GPU's memory";
std::string peer_route(int peer);
/// The route param's words, the same for every peer (a chart's series; the peer is its own
/// param): "copy engine to peer", "SM copy both ways".
std::string route_words(const Route& r);

/// Copies timed in one sample at `bytes`: enough that a sample lasts well over the events'
/// resolution (64 MiB's worth), at most 16; 1 from 64 MiB up.
int copies_per_sample(size_t bytes);

} // namespace apod::p2p
