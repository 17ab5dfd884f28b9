// What is known of the link between two GPUs before anything is timed: NVML's NVLinks of this
// GPU (core/environment.hpp, NvLink) matched against the peer's PCI bus id, CUDA's peer
// attributes, and the link's theoretical rate. Host code, tested without a GPU (test_link.cpp).
#pragma once

#include "core/environment.hpp"

#include <optional>
#include <string>
#include <vector>

namespace apod::p2p {

/// The NVLink generation of a GPU by its compute capability: NVLink 1.0 on Pascal GP100 (6.0),
/// 2.0 on Volta (7.0, 7.2), 3.0 on Ampere A100 (8.0), 4.0 on Hopper (9.0), 5.0 on Blackwell
/// (10.x); 0 for the others (no NVLink between GPUs of that family, or none known).
int nvlink_generation(int cc_major, int cc_minor);

/// The data rate of one NVLink in one direction, GB/s: 20 for NVLink 1.0, 25 for 2.0 to 4.0,
/// 50 for 5.0; nothing for an unknown generation.
std::optional<double> nvlink_gbs_per_link(int generation);

/// PCI bus ids name the same device: CUDA writes a 4-digit domain ("0000:2A:00.0"), NVML an
/// 8-digit one ("00000000:2a:00.0"); compared as numbers, case aside. False if either is
/// unreadable.
bool same_pci_device(const std::string& a, const std::string& b);

/// How this GPU reaches a peer.
struct LinkFacts {
  std::string kind;          ///< "nvlink", "nvlink_switch", "pcie", or "unknown"
  int nvlinks_to_peer = 0;   ///< active NVLinks whose far end is the peer
  int nvlinks_to_switch = 0; ///< active NVLinks whose far end is no visible GPU (an NVSwitch)
  /// Active NVLinks whose far end NVML does not tell: in a virtual machine it answers
  /// FFFFFFFF:FF:FF.0 (two H200s of a VM, 2026-11-26), or nothing readable.
  int nvlinks_far_end_hidden = 0;
  int generation = 0;              ///< nvlink_generation of this GPU (0 on PCIe)
  std::optional<double> limit_gbs; ///< theoretical rate per direction
  std::string limit_label;         ///< its words
};

/// The link from this GPU (its `links` from NVML, its compute capability and PCIe line rate) to
/// the peer at `peer_bus_id`, among the visible GPUs at `gpu_bus_ids`. Active NVLinks to the
/// peer make it "nvlink", rate links x per-link rate; else active NVLinks to something that is
/// not a visible GPU make it "nvlink_switch" (every GPU of an NVSwitch node reaches every other
/// through all its links), rate likewise; else active NVLinks whose far end NVML hides, where
/// CUDA says peer atomics work, make it "nvlink" counting them all (right for two GPUs and for
/// NVSwitch nodes; an upper bound where a GPU's links go to several peers directly); else, where
/// CUDA says peer atomics work (which only
/// NVLink allows: Pascal Tuning Guide 1.4.4), "nvlink" with no rate; else "pcie", read against
/// this GPU's PCIe line rate when known.
LinkFacts link_facts(const std::vector<NvLink>& links, const std::string& peer_bus_id,
                     const std::vector<std::string>& gpu_bus_ids, int cc_major, int cc_minor,
                     bool native_atomics, std::optional<double> pcie_gbs);

/// The limit of a point in GB/s: the per-direction rate, twice it for both directions at once.
std::optional<double> point_limit_gbs(const LinkFacts& link, bool both_ways);

} // namespace apod::p2p
