#include "sm_partitions.cuh"

#include "model.hpp"

#include <algorithm>

namespace apod {

std::vector<std::unique_ptr<SmPartition>> sm_partitions(int ordinal, int max_below_total,
                                                        bool smallest, json& facts) {
  const CUdevice device = driver_device(ordinal);
  const CUdevResource all = device_sm_resource(device);
  const int total = int(all.sm.smCount), min_size = int(std::max(1u, all.sm.minSmPartitionSize));
  const int step = smallest ? min_size : partition_step(total, min_size, max_below_total);
  facts = {{"sm_total", total},
           {"min_sm_partition", all.sm.minSmPartitionSize},
           {"sm_coscheduled_alignment", all.sm.smCoscheduledAlignment},
           {"partition_step", step}};
  std::vector<std::unique_ptr<SmPartition>> parts;
  for (int want = step; want < total; want += step) {
    if (int(parts.size()) >= max_below_total)
      break;
    const std::vector<CUdevResource> groups = split_sm_resource(all, 1, unsigned(want));
    if (groups.size() != 1 || int(groups[0].sm.smCount) >= total)
      continue; // no such partition on this GPU
    if (!parts.empty() && int(groups[0].sm.smCount) <= parts.back()->sm_count())
      continue;
    parts.push_back(std::make_unique<SmPartition>(device, groups[0]));
  }
  parts.push_back(std::make_unique<SmPartition>(total));
  return parts;
}

} // namespace apod
