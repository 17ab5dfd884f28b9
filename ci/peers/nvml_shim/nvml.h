/* The few NVML declarations BabelStream's CUDA model and nvbandwidth use, so that they build where
 * the toolkit ships no nvml.h (this machine) and run where NVML is absent (they print their usage
 * here; on a GPU machine nvml_shim.c forwards every call to the driver's libnvidia-ml.so.1).
 * Values are NVML's documented ones (nvml.h, NVML API Reference: nvmlReturn_t, nvmlClockType_t). */
#ifndef APOD_PEERS_NVML_SHIM_H
#define APOD_PEERS_NVML_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nvmlReturn_enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef enum nvmlClockType_enum {
  NVML_CLOCK_GRAPHICS = 0,
  NVML_CLOCK_SM = 1,
  NVML_CLOCK_MEM = 2,
  NVML_CLOCK_VIDEO = 3
} nvmlClockType_t;

typedef struct nvmlDevice_st* nvmlDevice_t;

#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80

/* As in NVML's header, the unversioned names map to the current entry points (_v2). */
nvmlReturn_t nvmlInit(void);
const char* nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char* pci_bus_id, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock);
nvmlReturn_t nvmlDeviceSetCpuAffinity(nvmlDevice_t device);

#ifdef __cplusplus
}
#endif

#endif
