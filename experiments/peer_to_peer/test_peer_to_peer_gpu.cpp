// peer_to_peer on GPU 0 at reduced size, on a machine of two GPUs or more: every pair GPU 0
// reaches peer to peer has every route at every size and both chases, each verified; no figure
// passes the link's theoretical rate, and a load from the peer takes longer than a local one.
// Exits 77 (skipped) with fewer than two GPUs; skips when no pair has peer access.
#include "../../tests/gpu/gpu_support.hpp"
#include "core/errors.hpp"
#include "core/experiment.hpp"
#include "declaration.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>

using namespace apod;

namespace {

TEST(PeerToPeerGpu, EveryPairVerifiesOnEveryRouteAndSize) {
  std::vector<Measurement> points;
  try {
    points = gpu_test::run_reduced(p2p::experiment);
  } catch (const ExperimentSkipped& e) {
    GTEST_SKIP() << e.what();
  }
  ASSERT_FALSE(points.empty());
  std::map<int, size_t> copies_per_peer;
  std::set<int> chased;
  bool local_chase = false;
  for (const Measurement& m : points) {
    EXPECT_TRUE(m.ok()) << m.metric << " " << m.params.dump() << " " << m.error;
    const double median = gpu_test::median_of(m);
    std::printf("%-24s %-40s %10.2f %s  %s\n", m.metric.c_str(),
                m.params.value(p2p::route.key, std::string()).c_str(), median, m.unit.c_str(),
                m.params.contains(p2p::bytes.key) ? m.params[p2p::bytes.key].dump().c_str() : "");
    if (m.metric == p2p::bandwidth.name) {
      if (copies_per_peer[m.params[p2p::peer.key].get<int>()]++ == 0) // the link, once a peer
        std::printf("  link facts: %s\n", m.extra.dump().c_str());
      EXPECT_EQ(m.extra.value(keys::words_wrong, -1), 0) << m.params.dump();
      if (m.extra.contains(keys::limit_gbs)) {
        EXPECT_LT(median, m.extra[keys::limit_gbs].get<double>() * 1.02)
            << "over the link's theoretical rate: " << m.params.dump();
      }
    } else if (m.metric == p2p::latency.name) {
      if (m.params[p2p::memory.key] == p2p::local_memory)
        local_chase = true;
      else
        chased.insert(m.params[p2p::peer.key].get<int>());
    } else if (m.metric == p2p::latency_ratio.name) {
      EXPECT_GT(median, 1.0) << "a peer's load is not slower than a local one: " << m.params.dump();
    }
  }
  EXPECT_TRUE(local_chase);
  const size_t per_peer = p2p::sizes(true, false).size() * p2p::routes().size();
  for (const auto& [peer, copies] : copies_per_peer) {
    EXPECT_EQ(copies, per_peer) << "GPU " << peer;
    EXPECT_TRUE(chased.count(peer)) << "GPU " << peer << " was not chased";
  }
  int peer_access = 0;
  ASSERT_EQ(cudaDeviceCanAccessPeer(&peer_access, 0, 1), cudaSuccess);
  if (peer_access) {
    EXPECT_TRUE(copies_per_peer.count(1)) << "GPU 1 is reachable but was not measured";
  }
}

} // namespace

int main(int argc, char** argv) {
  if (device_count() < 2) {
    std::printf("fewer than two CUDA devices: peer-to-peer test skipped\n");
    return 77;
  }
  return gpu_test::run_gpu_tests(argc, argv);
}
