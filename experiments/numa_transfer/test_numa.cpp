// numa_transfer's host side (numa.cpp): sysfs node lists and distance rows are read as the kernel
// writes them, the near node is the GPU's and the far one the farthest by the distance table, a
// host or GPU without a usable node gives a reason to skip, and memory bound to a node lands there.
#include "numa.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

using namespace apod::numa;
namespace fs = std::filesystem;

namespace {

TEST(NumaNodes, NodeListsParseAsTheKernelWritesThem) {
  EXPECT_EQ(parse_node_list("0\n"), (std::vector<int>{0}));
  EXPECT_EQ(parse_node_list("0-3\n"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parse_node_list("0,2-3,8"), (std::vector<int>{0, 2, 3, 8}));
  EXPECT_TRUE(parse_node_list("\n").empty());
  EXPECT_THROW(parse_node_list("0-x"), std::invalid_argument);
  EXPECT_THROW(parse_node_list("3-1"), std::invalid_argument);
  EXPECT_THROW(parse_node_list("-1"), std::invalid_argument);
  EXPECT_EQ(parse_distances("10 21 21 32\n"), (std::vector<int>{10, 21, 21, 32}));
}

TEST(NumaNodes, TheNearNodeIsTheGpusAndTheFarOneTheFarthest) {
  // Four nodes: 1 and 2 one hop from 0, 3 two hops.
  const Choice c = choose_nodes({0, 1, 2, 3}, 0, {10, 21, 21, 32});
  ASSERT_TRUE(c.nodes) << c.why_not;
  EXPECT_EQ(c.nodes->near, 0);
  EXPECT_EQ(c.nodes->far, 3);
  EXPECT_EQ(c.nodes->distance, 32);
  // Equal distances: the lowest id; the GPU on node 1.
  const Choice tie = choose_nodes({0, 1, 2}, 1, {21, 10, 21});
  ASSERT_TRUE(tie.nodes);
  EXPECT_EQ(tie.nodes->near, 1);
  EXPECT_EQ(tie.nodes->far, 0);
  // No distance table: the first other node, distance unknown.
  const Choice blind = choose_nodes({0, 1}, 1, {});
  ASSERT_TRUE(blind.nodes);
  EXPECT_EQ(blind.nodes->far, 0);
  EXPECT_EQ(blind.nodes->distance, 0);
}

TEST(NumaNodes, NoUsableNodeGivesAReasonToSkip) {
  const Choice no_node = choose_nodes({0, 1}, -1, {});
  EXPECT_FALSE(no_node.nodes);
  EXPECT_NE(no_node.why_not.find("-1"), std::string::npos) << no_node.why_not;
  const Choice one = choose_nodes({0}, 0, {10});
  EXPECT_FALSE(one.nodes);
  EXPECT_NE(one.why_not.find("one NUMA node"), std::string::npos) << one.why_not;
  const Choice memoryless = choose_nodes({0, 1}, 2, {20, 20, 10});
  EXPECT_FALSE(memoryless.nodes);
  EXPECT_NE(memoryless.why_not.find("node 2"), std::string::npos) << memoryless.why_not;
}

class SysfsTree : public ::testing::Test {
protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("apod_numa_" + std::to_string(getpid()));
    fs::create_directories(root / "node" / "node1");
    fs::create_directories(root / "pci" / "0000:1b:00.0");
  }
  void TearDown() override { fs::remove_all(root); }
  void write(const fs::path& path, const std::string& text) { std::ofstream(root / path) << text; }
  fs::path root;
};

TEST_F(SysfsTree, MemoryNodesAreTheOnlineOnesWithMemory) {
  write("node/online", "0-3\n");
  write("node/has_memory", "0,2-3\n");
  EXPECT_EQ(memory_nodes((root / "node").string()), (std::vector<int>{0, 2, 3}));
  fs::remove(root / "node" / "has_memory"); // an old kernel: every online node
  EXPECT_EQ(memory_nodes((root / "node").string()), (std::vector<int>{0, 1, 2, 3}));
  write("node/online", "garbage");
  EXPECT_TRUE(memory_nodes((root / "node").string()).empty());
  write("node/node1/distance", "21 10\n");
  EXPECT_EQ(node_distances(1, (root / "node").string()), (std::vector<int>{21, 10}));
  EXPECT_TRUE(node_distances(7, (root / "node").string()).empty());
}

TEST_F(SysfsTree, TheGpusNodeIsReadFromItsPciDeviceWhateverTheCase) {
  write("pci/0000:1b:00.0/numa_node", "1\n");
  EXPECT_EQ(pci_numa_node("0000:1B:00.0", (root / "pci").string()), 1);
  write("pci/0000:1b:00.0/numa_node", "-1\n");
  EXPECT_EQ(pci_numa_node("0000:1B:00.0", (root / "pci").string()), -1);
  EXPECT_EQ(pci_numa_node("0000:ff:00.0", (root / "pci").string()), -1); // no such device
}

TEST(NumaMemory, MemoryBoundToANodeLandsThere) {
  const std::vector<int> nodes = memory_nodes();
  if (nodes.empty())
    GTEST_SKIP() << "no NUMA node listed in sysfs";
  try {
    const NodeMemory m(size_t(4) << 20, nodes.back());
    const auto share = m.share_on_node();
    if (!share)
      GTEST_SKIP() << "move_pages refused here";
    EXPECT_EQ(*share, 1.0);
  } catch (const NumaUnavailable& e) {
    GTEST_SKIP() << e.what();
  }
}

} // namespace
