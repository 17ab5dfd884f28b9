// numa_transfer's host side: the host's NUMA nodes as sysfs lists them, the GPU's node, the choice
// of a near and a far node, and pinned-to-be memory placed on one node with mbind (a raw system
// call: no libnuma dependency). Host code (numa.cpp), testable without a GPU.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace apod::numa {

/// Where the kernel lists its nodes (tests pass a folder of their own).
inline constexpr const char* sysfs_node_root = "/sys/devices/system/node";

/// A sysfs node list ("0", "0-3", "0,2-3,8\n") as node ids in order; throws std::invalid_argument
/// on anything else.
std::vector<int> parse_node_list(const std::string& text);

/// A sysfs distance row ("10 21 21\n"): the distance to node 0, 1, ... (ACPI SLIT: 10 is local).
std::vector<int> parse_distances(const std::string& text);

/// The nodes that are online and have memory (has_memory where the kernel has it), read from
/// `root`; empty when unreadable.
std::vector<int> memory_nodes(const std::string& root = sysfs_node_root);

/// The distance row of `node` (empty when unreadable).
std::vector<int> node_distances(int node, const std::string& root = sysfs_node_root);

/// The NUMA node of the PCI device `bus_id` ("0000:1B:00.0"; case does not matter), as the
/// runner records it (environment.gpu_numa_node): -1 when the platform reports none.
int pci_numa_node(const std::string& bus_id, const std::string& pci_root = "/sys/bus/pci/devices");

/// The nodes measured: the GPU's own and the one farthest from it.
struct NodeChoice {
  int near = -1, far = -1;
  int distance = 0; ///< SLIT distance near -> far (0: unknown)
};

/// The choice, or why there is none (one sentence, the experiment's skip reason). `distances_of`
/// gives a node's distance row. The far node is the memory node farthest from the GPU's by the
/// distance table, the lowest id among equals (the first other node when no table is readable).
struct Choice {
  std::optional<NodeChoice> nodes;
  std::string why_not;
};
Choice choose_nodes(const std::vector<int>& memory_node_ids, int gpu_node,
                    const std::vector<int>& gpu_node_distances);

/// Anonymous memory bound to one node (mbind MPOL_BIND before the first touch, then touched so
/// every page is allocated there), unmapped by the destructor. Throws NumaUnavailable when the
/// system refuses the binding (a container's seccomp profile refuses mbind without
/// CAP_SYS_NICE).
class NodeMemory {
public:
  NodeMemory(size_t bytes, int node);
  ~NodeMemory();
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;
  void* get() const { return p_; }
  size_t bytes() const { return bytes_; }
  int node() const { return node_; }
  /// The share of its pages that are on its node now (move_pages, query only); nothing when
  /// the system refuses the query.
  std::optional<double> share_on_node() const;

private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
  int node_ = -1;
};

struct NumaUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace apod::numa
