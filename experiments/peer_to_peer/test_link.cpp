// The link between two GPUs as apod reads it before timing anything: NVLink generation and rate
// per link, PCI bus ids of CUDA's and NVML's forms, and the kind and limit of a link from NVML's
// NVLinks; and the declaration's sizes and plan.
#include "declaration.hpp"
#include "link.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace apod;
using namespace apod::p2p;

namespace {

const std::string gpu0 = "0000:18:00.0", gpu1 = "0000:2A:00.0";

std::vector<NvLink> links_to(const std::string& remote, int count, bool active = true) {
  std::vector<NvLink> links;
  for (int i = 0; i < count; ++i)
    links.push_back({i, active, 6, remote});
  return links;
}

TEST(PeerLink, NvlinkGenerationFollowsTheArchitecture) {
  EXPECT_EQ(nvlink_generation(6, 0), 1); // P100
  EXPECT_EQ(nvlink_generation(7, 0), 2); // V100
  EXPECT_EQ(nvlink_generation(8, 0), 3); // A100
  EXPECT_EQ(nvlink_generation(9, 0), 4); // H100, H200
  EXPECT_EQ(nvlink_generation(10, 0), 5);
  EXPECT_EQ(nvlink_generation(8, 9), 0) << "Ada has no NVLink between GPUs";
  EXPECT_EQ(nvlink_generation(7, 5), 0);
}

TEST(PeerLink, RatePerLinkAndDirection) {
  EXPECT_EQ(nvlink_gbs_per_link(1), 20.0);
  for (int g : {2, 3, 4})
    EXPECT_EQ(nvlink_gbs_per_link(g), 25.0) << g;
  EXPECT_EQ(nvlink_gbs_per_link(5), 50.0);
  EXPECT_FALSE(nvlink_gbs_per_link(0));
}

TEST(PeerLink, PciBusIdsOfCudaAndNvmlNameTheSameDevice) {
  EXPECT_TRUE(same_pci_device("0000:2A:00.0", "00000000:2a:00.0"));
  EXPECT_FALSE(same_pci_device("0000:2A:00.0", "00000000:2B:00.0"));
  EXPECT_FALSE(same_pci_device("0000:2A:00.0", "00000001:2A:00.0"));
  EXPECT_FALSE(same_pci_device("", "0000:2A:00.0"));
  EXPECT_FALSE(same_pci_device("not a bus id", "not a bus id"));
}

TEST(PeerLink, EighteenNvlinksToThePeerGiveTheH100Rate) {
  // Two H100 SXM joined by all 18 links (nvidia-smi topo -m: NV18): 18 x 25 = 450 GB/s per
  // direction, 900 GB/s both ways, NVIDIA's figure for the H100's NVLink.
  const LinkFacts f =
      link_facts(links_to("00000000:2A:00.0", 18), gpu1, {gpu0, gpu1}, 9, 0, true, 63.0);
  EXPECT_EQ(f.kind, "nvlink");
  EXPECT_EQ(f.nvlinks_to_peer, 18);
  EXPECT_EQ(f.nvlinks_to_switch, 0);
  EXPECT_EQ(f.generation, 4);
  ASSERT_TRUE(f.limit_gbs);
  EXPECT_DOUBLE_EQ(*f.limit_gbs, 450.0);
  EXPECT_DOUBLE_EQ(*point_limit_gbs(f, true), 900.0);
  EXPECT_EQ(f.limit_label, "18 NVLink 4.0 links x 25 GB/s per direction");
}

TEST(PeerLink, InactiveLinksAndLinksToAnotherGpuDoNotCount) {
  std::vector<NvLink> links = links_to("00000000:2A:00.0", 4);
  links[3].active = false;
  links.push_back({4, true, 6, "00000000:3A:00.0"}); // a third GPU
  const LinkFacts f =
      link_facts(links, gpu1, {gpu0, gpu1, "0000:3A:00.0"}, 9, 0, true, std::nullopt);
  EXPECT_EQ(f.nvlinks_to_peer, 3);
  EXPECT_EQ(f.nvlinks_to_switch, 0);
  EXPECT_DOUBLE_EQ(*f.limit_gbs, 75.0);
}

TEST(PeerLink, LinksToNoVisibleGpuAreAnNvswitch) {
  const LinkFacts f =
      link_facts(links_to("00000000:A5:00.0", 18), gpu1, {gpu0, gpu1}, 9, 0, true, 63.0);
  EXPECT_EQ(f.kind, "nvlink_switch");
  EXPECT_EQ(f.nvlinks_to_switch, 18);
  EXPECT_DOUBLE_EQ(*f.limit_gbs, 450.0);
}

TEST(PeerLink, WithoutNvlinksItIsPcieReadAgainstTheLineRate) {
  const LinkFacts f = link_facts({}, gpu1, {gpu0, gpu1}, 9, 0, false, 63.0);
  EXPECT_EQ(f.kind, "pcie");
  EXPECT_DOUBLE_EQ(*f.limit_gbs, 63.0);
  EXPECT_DOUBLE_EQ(*point_limit_gbs(f, true), 126.0);
  const LinkFacts unknown_rate = link_facts({}, gpu1, {gpu0, gpu1}, 9, 0, false, std::nullopt);
  EXPECT_EQ(unknown_rate.kind, "pcie");
  EXPECT_FALSE(point_limit_gbs(unknown_rate, false));
}

TEST(PeerLink, FarEndsHiddenInAVirtualMachineCountEveryActiveLink) {
  // Two H200s of a VM (2026-11-26): NVML answers FFFFFFFF:FF:FF.0 for every link's far end, while
  // nvidia-smi topo -m shows NV18; CUDA says peer atomics work.
  const LinkFacts f = link_facts(links_to("FFFFFFFF:FF:FF.0", 18), "0000:00:07.0",
                                 {"0000:00:06.0", "0000:00:07.0"}, 9, 0, true, 63.0);
  EXPECT_EQ(f.kind, "nvlink");
  EXPECT_EQ(f.nvlinks_far_end_hidden, 18);
  EXPECT_EQ(f.nvlinks_to_switch, 0) << "a hidden far end is not a switch";
  EXPECT_DOUBLE_EQ(*f.limit_gbs, 450.0);
  EXPECT_EQ(f.limit_label,
            "18 NVLink 4.0 links x 25 GB/s per direction (far ends hidden: every active link "
            "counted)");
  std::vector<NvLink> unreadable = links_to("", 2);
  EXPECT_EQ(link_facts(unreadable, gpu1, {gpu0, gpu1}, 9, 0, true, 63.0).nvlinks_far_end_hidden, 2);
  EXPECT_EQ(link_facts(unreadable, gpu1, {gpu0, gpu1}, 9, 0, false, 63.0).kind, "pcie")
      << "without peer atomics the links are not the path";
}

TEST(PeerLink, PeerAtomicsWithoutNvmlMeanNvlinkOfUnknownWidth) {
  const LinkFacts f = link_facts({}, gpu1, {gpu0, gpu1}, 9, 0, true, 63.0);
  EXPECT_EQ(f.kind, "nvlink");
  EXPECT_EQ(f.generation, 4);
  EXPECT_FALSE(f.limit_gbs) << "no link count, no rate";
}

TEST(PeerSizes, DefaultIsASubsetOfFullAndQuickIsSmall) {
  const auto standard = sizes(false, false), full = sizes(false, true), quick = sizes(true, false);
  EXPECT_EQ(standard, (std::vector<size_t>{4 << 20, 64 << 20, size_t(1) << 30}));
  const std::set<size_t> wide(full.begin(), full.end());
  for (size_t s : standard)
    EXPECT_TRUE(wide.count(s)) << s;
  EXPECT_EQ(full.front(), size_t(4) << 10);
  EXPECT_EQ(full.back(), size_t(1) << 30);
  EXPECT_LE(quick.back(), size_t(16) << 20);
}

TEST(PeerPlan, EveryPeerButThisGpuHasEveryRouteAtEverySizeAndTwoChases) {
  const Declaration* d = find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  PlanInput in;
  in.device.ordinal = 1;
  const std::vector<PlannedPoint> points = d->plan(in);
  std::set<int> peers;
  size_t copies = 0, chases = 0;
  for (const PlannedPoint& p : points) {
    EXPECT_FALSE(p.when.empty()) << "every point depends on the machine: " << p.params.dump();
    if (p.params.contains(peer.key))
      peers.insert(p.params[peer.key].get<int>());
    copies += p.metrics.front() == bandwidth.name;
    chases += p.metrics.front() == latency.name;
  }
  EXPECT_EQ(peers, (std::set<int>{0, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(copies, 7 * 3 * routes().size());
  EXPECT_EQ(chases, 7u + 1u) << "one chase per peer and the local one";
  EXPECT_EQ(route_words(routes()[0]), "copy engine to peer");
  EXPECT_EQ(route_words(routes()[5]), "SM copy both ways");
}

TEST(PeerSizes, SmallCopiesAreTimedSeveralToASample) {
  EXPECT_EQ(copies_per_sample(size_t(4) << 20), 16);
  EXPECT_EQ(copies_per_sample(size_t(16) << 20), 4);
  EXPECT_EQ(copies_per_sample(size_t(64) << 20), 1);
  EXPECT_EQ(copies_per_sample(size_t(1) << 30), 1);
  EXPECT_EQ(copies_per_sample(4096), 16);
}

} // namespace
