/* Forwards the calls declared in nvml.h to the driver's libnvidia-ml.so.1, opened on first use.
 * Why not link -lnvidia-ml: this build machine has no NVML at all (neither header nor stub), and a
 * binary linked to it would not even start here to print its usage. Where the library or a symbol
 * is missing the call returns NVML's own error code, which the peers report and stop on. */
#include "nvml.h"

#include <dlfcn.h>
#include <stddef.h>

static void* nvml_library(void) {
  static void* lib = NULL;
  if (!lib)
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  return lib;
}

static void* nvml_symbol(const char* name) {
  void* lib = nvml_library();
  return lib ? dlsym(lib, name) : NULL;
}

/* One forwarder per entry point: look the symbol up, call it, or say why not. */
#define FORWARD(name, symbol, params, args)                                                        \
  nvmlReturn_t name params {                                                                       \
    typedef nvmlReturn_t(*fn_t) params;                                                            \
    if (!nvml_library())                                                                           \
      return NVML_ERROR_LIBRARY_NOT_FOUND;                                                         \
    fn_t fn = (fn_t)nvml_symbol(symbol);                                                           \
    return fn ? fn args : NVML_ERROR_FUNCTION_NOT_FOUND;                                           \
  }

FORWARD(nvmlInit, "nvmlInit_v2", (void), ())
FORWARD(nvmlSystemGetDriverVersion, "nvmlSystemGetDriverVersion",
        (char* version, unsigned int length), (version, length))
FORWARD(nvmlDeviceGetHandleByPciBusId, "nvmlDeviceGetHandleByPciBusId_v2",
        (const char* pci_bus_id, nvmlDevice_t* device), (pci_bus_id, device))
FORWARD(nvmlDeviceGetHandleByUUID, "nvmlDeviceGetHandleByUUID",
        (const char* uuid, nvmlDevice_t* device), (uuid, device))
FORWARD(nvmlDeviceGetClockInfo, "nvmlDeviceGetClockInfo",
        (nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock), (device, type, clock))
FORWARD(nvmlDeviceSetCpuAffinity, "nvmlDeviceSetCpuAffinity", (nvmlDevice_t device), (device))

const char* nvmlErrorString(nvmlReturn_t result) {
  typedef const char* (*fn_t)(nvmlReturn_t);
  fn_t fn = (fn_t)nvml_symbol("nvmlErrorString");
  if (fn)
    return fn(result);
  switch (result) {
  case NVML_SUCCESS:
    return "Success";
  case NVML_ERROR_LIBRARY_NOT_FOUND:
    return "NVML Shared Library Not Found (libnvidia-ml.so.1)";
  case NVML_ERROR_FUNCTION_NOT_FOUND:
    return "Function Not Found in libnvidia-ml.so.1";
  default:
    return "NVML error (libnvidia-ml.so.1 not loaded)";
  }
}
