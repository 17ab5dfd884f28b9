#include "green_context.cuh"

#include "core/cuda_check.cuh"
#include "core/errors.hpp"

#include <cudaTypedefs.h>

#include <string>

namespace apod {
namespace {

// One driver entry point through the runtime; nullptr where the driver lacks it.
template <class Fn> Fn entry(const char* symbol, unsigned cuda_version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t err =
      cudaGetDriverEntryPointByVersion(symbol, &p, cuda_version, cudaEnableDefault, &status);
  if (err != cudaSuccess || status != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(p);
}

// A driver that lacks an entry point gets ExperimentSkipped naming it and the driver version.
template <class Fn> void load(Fn& fn, const char* what, const char* symbol, unsigned version) {
  fn = entry<Fn>(symbol, version);
  if (!fn) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    throw ExperimentSkipped(std::string(what) + " unavailable: the CUDA driver (version " +
                            std::to_string(driver) + ") does not provide " + symbol + " (needs " +
                            std::to_string(version) + "+)");
  }
}

// The entry points every driver since CUDA 4 has, loaded once: contexts and streams.
struct Driver {
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuCtxCreate_v3020 ctx_create = nullptr;
  PFN_cuCtxDestroy_v4000 ctx_destroy = nullptr;
  PFN_cuCtxPushCurrent_v4000 ctx_push = nullptr;
  PFN_cuCtxPopCurrent_v4000 ctx_pop = nullptr;
  PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;

  static const Driver& get() {
    static const Driver d = [] {
      Driver d;
      load(d.get_error_name, "the driver API", "cuGetErrorName", 6000);
      load(d.device_get, "the driver API", "cuDeviceGet", 2000);
      load(d.ctx_create, "created contexts", "cuCtxCreate", 3020);
      load(d.ctx_destroy, "created contexts", "cuCtxDestroy", 4000);
      load(d.ctx_push, "created contexts", "cuCtxPushCurrent", 4000);
      load(d.ctx_pop, "created contexts", "cuCtxPopCurrent", 4000);
      load(d.stream_destroy, "the driver API", "cuStreamDestroy", 4000);
      return d;
    }();
    return d;
  }
};

// The entry points green contexts need (CUDA 12.4+), loaded once.
struct GreenDriver {
  PFN_cuDeviceGetDevResource_v12040 device_get_dev_resource = nullptr;
  PFN_cuDevSmResourceSplitByCount_v12040 split_by_count = nullptr;
  PFN_cuDevResourceGenerateDesc_v12040 generate_desc = nullptr;
  PFN_cuGreenCtxCreate_v12040 green_ctx_create = nullptr;
  PFN_cuGreenCtxDestroy_v12040 green_ctx_destroy = nullptr;
  PFN_cuGreenCtxStreamCreate_v12050 green_ctx_stream_create = nullptr;

  static const GreenDriver& get() {
    static const GreenDriver d = [] {
      GreenDriver d;
      const char* what = "green contexts";
      load(d.device_get_dev_resource, what, "cuDeviceGetDevResource", 12040);
      load(d.split_by_count, what, "cuDevSmResourceSplitByCount", 12040);
      load(d.generate_desc, what, "cuDevResourceGenerateDesc", 12040);
      load(d.green_ctx_create, what, "cuGreenCtxCreate", 12040);
      load(d.green_ctx_destroy, what, "cuGreenCtxDestroy", 12040);
      load(d.green_ctx_stream_create, what, "cuGreenCtxStreamCreate", 12050);
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
  const GreenDriver& d = GreenDriver::get();
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
    GreenDriver::get().green_ctx_destroy(green_);
  } else if (stream_) {
    cudaStreamDestroy(stream_);
  }
}

CUdevice driver_device(int ordinal) {
  CUdevice device{};
  APOD_CU(Driver::get().device_get(&device, ordinal));
  return device;
}

CUdevResource device_sm_resource(CUdevice device) {
  CUdevResource all{};
  APOD_CU(GreenDriver::get().device_get_dev_resource(device, &all, CU_DEV_RESOURCE_TYPE_SM));
  return all;
}

std::vector<CUdevResource> split_sm_resource(const CUdevResource& all, unsigned groups,
                                             unsigned min_count, CUdevResource* rest) {
  std::vector<CUdevResource> result(groups);
  CUdevResource left{};
  CUdevResource input = all;
  unsigned made = groups;
  APOD_CU(GreenDriver::get().split_by_count(result.data(), &made, &input, &left, 0, min_count));
  result.resize(made);
  if (rest)
    *rest = left;
  return result;
}

CreatedContext::CreatedContext(int ordinal) {
  const Driver& d = Driver::get();
  const CUdevice device = driver_device(ordinal);
  // cuCtxCreate makes the new context current; pop it so the caller's stays current.
  APOD_CU(d.ctx_create(&context_, CU_CTX_SCHED_AUTO | CU_CTX_MAP_HOST, device));
  CUcontext popped = nullptr;
  const CUresult r = d.ctx_pop(&popped);
  if (r != CUDA_SUCCESS) {
    d.ctx_destroy(context_);
    throw_cu_error(r, "cuCtxPopCurrent", __FILE__, __LINE__);
  }
}

CreatedContext::~CreatedContext() {
  if (context_)
    Driver::get().ctx_destroy(context_);
}

ContextScope::ContextScope(CUcontext context) {
  APOD_CU(Driver::get().ctx_push(context));
}

ContextScope::~ContextScope() {
  CUcontext popped = nullptr;
  Driver::get().ctx_pop(&popped);
}

} // namespace apod
