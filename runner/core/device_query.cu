// Reads a device's facts through the CUDA runtime. CUDA 13 removed cudaDeviceProp's clock
// fields, so clocks come from cudaDeviceGetAttribute; PCIe link facts come from sysfs.
// (No fmt in .cu files: nvcc 13 rejects fmt 9's consteval format strings.)
#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/timing.cuh"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <string>
#include <vector>

namespace apod {

namespace {

int attribute(cudaDeviceAttr attr, int ordinal) {
  int value = 0;
  APOD_CUDA(cudaDeviceGetAttribute(&value, attr, ordinal));
  return value;
}

std::string read_sysfs(const std::string& bus_id, const char* file) {
  std::string id = bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  std::ifstream in("/sys/bus/pci/devices/" + id + "/" + file);
  std::string line;
  std::getline(in, line);
  return line;
}

// The function's PCI configuration space; sysfs gives a non-root reader only its first 64 bytes.
std::vector<uint8_t> read_config_space(const std::string& bus_id) {
  std::string id = bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  std::ifstream in("/sys/bus/pci/devices/" + id + "/config", std::ios::binary);
  std::vector<uint8_t> bytes(4096);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return bytes;
}

std::string format_uuid(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      s += '-';
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", b[i]);
    s += hex;
  }
  return s;
}

} // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); // clear the sticky "no device" error
    return 0;
  }
  return n;
}

NoDeviceCause no_device_cause() {
  NoDeviceCause cause;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  cudaGetLastError(); // clear the sticky error
  cause.runtime_cuda_version = CUDART_VERSION;
  if (cudaDriverGetVersion(&cause.driver_cuda_version) != cudaSuccess)
    cause.driver_cuda_version = 0;
  cudaGetLastError();
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"))
    cause.visible_devices = visible;
  cause.runtime_error = err == cudaSuccess ? "" : cudaGetErrorString(err);
  if (err == cudaErrorInsufficientDriver) {
    // The runtime reports a missing driver library and a too-old driver alike; the library is in
    // the process only where the runtime could load it (RTLD_NOLOAD loads nothing).
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    cause.kind = driver ? NoDeviceCause::Kind::old_driver : NoDeviceCause::Kind::no_driver;
    if (driver)
      dlclose(driver);
  } else if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
    cause.kind = NoDeviceCause::Kind::no_gpu;
  }
  return cause;
}

NoDevice no_device_error(const std::string& command) {
  const std::string reason = no_device_reason(no_device_cause());
  return NoDevice(command.empty() ? reason : reason + ": " + command + " needs a GPU");
}

DeviceInfo query_device(int ordinal) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw no_device_error("");
  }
  if (ordinal < 0 || ordinal >= count)
    throw InputError("--device " + std::to_string(ordinal) +
                     " does not exist: " + std::to_string(count) + " CUDA device(s) visible (0.." +
                     std::to_string(count - 1) + ")");
  cudaDeviceProp prop{};
  APOD_CUDA(cudaGetDeviceProperties(&prop, ordinal));

  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = prop.name;
  d.uuid = format_uuid(prop.uuid);
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  d.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  d.sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  d.l2_bytes = prop.l2CacheSize;
  d.shared_bytes_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal);
  d.total_memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  d.ecc_enabled = attribute(cudaDevAttrEccEnabled, ordinal) != 0;
  d.copy_engines = attribute(cudaDevAttrAsyncEngineCount, ordinal);
  APOD_CUDA(cudaDriverGetVersion(&d.driver_version));
  APOD_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  char bus_id[32] = {};
  APOD_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal));
  d.pci_bus_id = bus_id;
  // max_link_* is the link the card and slot negotiate at full load; current_link_* drops at
  // idle to save power, so the theoretical limit uses the maximum.
  d.pcie_generation = pcie_generation_from_speed(read_sysfs(d.pci_bus_id, "max_link_speed"));
  d.pcie_width = std::atoi(read_sysfs(d.pci_bus_id, "max_link_width").c_str());
  d.pcie_current_generation =
      pcie_generation_from_speed(read_sysfs(d.pci_bus_id, "current_link_speed"));
  d.pcie_current_width = std::atoi(read_sysfs(d.pci_bus_id, "current_link_width").c_str());
  // The payload size the OS programmed (the link partners agree on it), for the protocol limit.
  if (const auto mps = pcie_max_payload_from_config(read_config_space(d.pci_bus_id))) {
    d.pcie_max_payload_bytes = *mps;
  } else {
    d.pcie_max_payload_bytes = pcie_assumed_max_payload_bytes;
    d.pcie_max_payload_assumed = true;
  }
  return d;
}

} // namespace apod

namespace apod {
namespace {
__global__ void probe_kernel(int* out) {
  *out = 0x5eed;
}
} // namespace

bool reset_device_after_failure(int ordinal) {
  // Drops this process's context on the device (not a GPU reset): a sticky error such as an
  // illegal address would otherwise fail every experiment after the one that caused it.
  cudaGetLastError();
  cudaSetDevice(ordinal);
  release_l2_flush_buffer();
  release_sm_clock_probe();
  cudaDeviceReset();
  // The CUDA documentation allows a sticky error to outlive the reset ("the process must be
  // terminated and relaunched"), so prove the new context works before trusting it.
  int* probe = nullptr;
  int seen = 0;
  bool ok = cudaSetDevice(ordinal) == cudaSuccess && cudaMalloc(&probe, sizeof(int)) == cudaSuccess;
  if (ok) {
    probe_kernel<<<1, 1>>>(probe);
    ok = cudaGetLastError() == cudaSuccess &&
         cudaMemcpy(&seen, probe, sizeof seen, cudaMemcpyDeviceToHost) == cudaSuccess &&
         seen == 0x5eed;
  }
  if (probe)
    cudaFree(probe);
  return ok && cudaDeviceSynchronize() == cudaSuccess;
}
} // namespace apod
