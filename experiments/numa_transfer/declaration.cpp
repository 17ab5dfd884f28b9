// numa_transfer's declaration: pinned host-device bandwidth from memory on the GPU's NUMA node
// and on the farthest node, Best Practices Guide 9.4.
#include "declaration.hpp"

namespace apod::numa {

size_t transfer_bytes(bool quick) {
  return quick ? size_t(8) << 20 : size_t(64) << 20;
}

namespace {

const char* const condition = "the host has more than one NUMA node with memory and the GPU "
                              "reports its own (environment.gpu_numa_node is not -1)";

std::vector<PlannedPoint> plan(const PlanInput& in) {
  std::vector<PlannedPoint> points;
  const size_t size = transfer_bytes(in.quick);
  for (const char* way : {"h2d", "d2h"}) {
    for (const char* where : {"near", "far"})
      points.push_back({{{direction.key, way}, {node.key, where}, {bytes.key, size}},
                        {bandwidth.name},
                        condition});
    points.push_back({{{direction.key, way}, {bytes.key, size}}, {far_over_near.name}, condition});
  }
  return points;
}

Chart bandwidth_chart() {
  Chart c = Chart::bars_of(bandwidth).along(direction).colour(node);
  c.says("Pinned host-device bandwidth from memory on the GPU's own NUMA node and on the farthest "
         "node, each way",
         {"The Best Practices Guide (9.4) gives no figure: it advises binding memory to the "
          "GPU's node (numactl --membind) and turning automatic NUMA balancing off."});
  return c;
}

} // namespace

APOD_DECLARE(Declaration{
    .name = experiment,
    .title = "NUMA: pinned transfers from the near and the far node",
    .description =
        "Where the host has more than one NUMA node with memory and the GPU reports its own "
        "(sysfs numa_node, recorded as environment.gpu_numa_node), host-to-device (h2d) and "
        "device-to-host (d2h) cudaMemcpyAsync of 64 MiB (--quick 8 MiB) from pinned memory "
        "placed on the GPU's node and on the node farthest from it by the ACPI distance table: "
        "anonymous memory bound with mbind (MPOL_BIND) before its first touch, then pinned with "
        "cudaHostRegister; the share of its pages on the node is read back (move_pages) and "
        "recorded. far_over_near: the far node's rate over the near node's, sample by sample. "
        "Elsewhere (one node, or the GPU reports -1, as on the H100 and H200 machines measured "
        "so far) the experiment is skipped and says why. Every transfer's destination is "
        "poisoned first and checked word by word.",
    .citation = "CUDA C++ Best Practices Guide 9.4 (NUMA Best Practices)",
    .version = 1,
    .order = 52,
    .chapter = Chapter::host_link,
    .params = {direction, node, bytes},
    .metrics = {bandwidth, far_over_near},
    .extras = {{"host_memory_node", "the node the host memory was bound to"},
               {"gpu_node", "the GPU's node as sysfs reports it"},
               {"node_distance", "ACPI SLIT distance from the GPU's node to the far node"},
               {"pages_on_node", "share of the buffer's pages on its node (move_pages)"}},
    .charts = {bandwidth_chart()},
    .plan = plan,
});

} // namespace apod::numa
