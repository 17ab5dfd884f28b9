#include "green_context.cuh"

#include "core/cuda_check.cuh"
#include "core/errors.hpp"
#include "model.hpp"

#include <cudaTypedefs.h>

#include <algorithm>
#include <string>

namespace apod {
namespace {

// The driver entry points green contexts need, loaded once; a driver that lacks one gets a
// CudaError naming it and the driver version.
struct Driver {
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetDevResource_v12040 device_get_dev_resource = nullptr;
  PFN_cuDevSmResourceSplitByCount_v12040 split_by_count = nullptr;
  PFN_cuDevResourceGenerateDesc_v12040 generate_desc = nullptr;
  PFN_cuGreenCtxCreate_v12040 green_ctx_create = nullptr;
  PFN_cuGreenCtxDestroy_v12040 green_ctx_destroy = nullptr;
  PFN_cuGreenCtxStreamCreate_v12050 green_ctx_stream_create = nullptr;
  PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;

  template <class Fn> static void load(Fn& fn, const char* symbol, unsigned cuda_version) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion(symbol, &p, cuda_version, cudaEnableDefault, &status);
    if (err != cudaSuccess || status != cudaDriverEntryPointSuccess || !p) {
      int driver = 0;
      cudaDriverGetVersion(&driver);
      throw ExperimentSkipped(std::string("green contexts unavailable: the CUDA driver (version ") +
                              std::to_string(driver) + ") does not provide " + symbol + " (needs " +
                              std::to_string(cuda_version) + "+)");
    }
    fn = reinterpret_cast<Fn>(p);
  }

  static const Driver& get() {
    static const Driver d = [] {
      Driver d;
      load(d.get_error_name, "cuGetErrorName", 6000);
      load(d.device_get, "cuDeviceGet", 2000);
      load(d.device_get_dev_resource, "cuDeviceGetDevResource", 12040);
      load(d.split_by_count, "cuDevSmResourceSplitByCount", 12040);
      load(d.generate_desc, "cuDevResourceGenerateDesc", 12040);
      load(d.green_ctx_create, "cuGreenCtxCreate", 12040);
      load(d.green_ctx_destroy, "cuGreenCtxDestroy", 12040);
      load(d.green_ctx_stream_create, "cuGreenCtxStreamCreate", 12050);
      load(d.stream_destroy, "cuStreamDestroy", 4000);
      return d;
    }();
    return d;
  }
};

// A device or driver that has the entry points but not the feature (a GPU too old for SM
// partitions) answers "not supported": the experiment is skipped with that reason, not failed.
[[noreturn]] void throw_cu_error(CUresult r, const char* call, const char* file, int line) {
  const char* name = nullptr;
  if (Driver::get().get_error_name(r, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUresult";
  const std::string what =
      std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + name;
  if (r == CUDA_ERROR_NOT_SUPPORTED)
    throw ExperimentSkipped("green contexts unavailable: " + what);
  throw CudaError(what, int(r));
}

#define APOD_CU(call)                                                                              \
  do {                                                                                             \
    const CUresult apod_cu_err_ = (call);                                                          \
    if (apod_cu_err_ != CUDA_SUCCESS)                                                              \
      throw_cu_error(apod_cu_err_, #call, __FILE__, __LINE__);                                     \
  } while (0)

} // namespace

SmPartition::SmPartition(int all_sms) : sm_count_(all_sms) {
  APOD_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

SmPartition::SmPartition(CUdevice device, CUdevResource group) : sm_count_(int(group.sm.smCount)) {
  const Driver& d = Driver::get();
  CUdevResourceDesc desc{};
  APOD_CU(d.generate_desc(&desc, &group, 1));
  APOD_CU(d.green_ctx_create(&green_, desc, device, CU_GREEN_CTX_DEFAULT_STREAM));
  try {
    APOD_CU(d.green_ctx_stream_create(&stream_, green_, CU_STREAM_NON_BLOCKING, 0));
  } catch (...) {
    d.green_ctx_destroy(green_);
    throw;
  }
}

SmPartition::~SmPartition() {
  if (green_) {
    Driver::get().stream_destroy(stream_); // streams first: destroying the context leaks them
    Driver::get().green_ctx_destroy(green_);
  } else if (stream_) {
    cudaStreamDestroy(stream_);
  }
}

std::vector<std::unique_ptr<SmPartition>> sm_partitions(int ordinal, int max_below_total,
                                                        bool smallest, json& facts) {
  const Driver& d = Driver::get();
  CUdevice device{};
  APOD_CU(d.device_get(&device, ordinal));
  CUdevResource all{};
  APOD_CU(d.device_get_dev_resource(device, &all, CU_DEV_RESOURCE_TYPE_SM));
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
    CUdevResource group{}, rest{};
    unsigned groups = 1;
    APOD_CU(d.split_by_count(&group, &groups, &all, &rest, 0, unsigned(want)));
    if (groups != 1 || int(group.sm.smCount) >= total)
      continue; // no such partition on this GPU
    if (!parts.empty() && int(group.sm.smCount) <= parts.back()->sm_count())
      continue;
    parts.push_back(std::make_unique<SmPartition>(device, group));
  }
  parts.push_back(std::make_unique<SmPartition>(total));
  return parts;
}

} // namespace apod
