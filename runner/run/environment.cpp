// Provenance recorded with every run, so a number can be traced to the machine and build that
// produced it.
#include "run/run.hpp"
#include "version.hpp"

#include <cuda_runtime_api.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace apod {

namespace {
std::string first_line_with(const char* path, const std::string& prefix) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) {
      const auto colon = line.find_first_of(":=");
      std::string v = colon == std::string::npos ? line : line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t\""));
      while (!v.empty() && (v.back() == '"' || v.back() == ' '))
        v.pop_back();
      return v;
    }
  return "";
}
int read_numa_node(std::string bus_id) {
  for (auto& c : bus_id)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::ifstream in("/sys/bus/pci/devices/" + bus_id + "/numa_node");
  int node = -1;
  in >> node;
  return node;
}
} // namespace

GpuState nvidia_smi_state(const DeviceInfo& device) {
  const std::string fields =
      "driver_version,persistence_mode,compute_mode,mig.mode.current,power.limit,clocks.max.sm,"
      "clocks.max.memory,clocks.applications.graphics,clocks.applications.memory";
  const std::string cmd = "nvidia-smi --query-gpu=" + fields +
                          " --format=csv,noheader,nounits -i " + device.pci_bus_id + " 2>/dev/null";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p))
      out += buf;
    pclose(p);
  }
  GpuState state;
  state.nvidia_smi = out.empty() ? "unavailable" : "available";
  size_t start = 0, field_start = 0;
  for (int i = 0; i < 9 && !out.empty(); ++i) {
    const size_t comma = out.find(',', start);
    const size_t fend = fields.find(',', field_start);
    std::string value =
        out.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    value.erase(0, value.find_first_not_of(' '));
    while (!value.empty() && (value.back() == '\n' || value.back() == ' '))
      value.pop_back();
    const std::string query = fields.substr(
        field_start, fend == std::string::npos ? std::string::npos : fend - field_start);
    if (query == "driver_version")
      state.driver_version = value;
    else
      state.nvidia_smi_answers.emplace_back(query, value);
    if (comma == std::string::npos || fend == std::string::npos)
      break;
    start = comma + 1;
    field_start = fend + 1;
  }
  return state;
}

std::string device_all_value(int devices, bool all_at_once) {
  return std::to_string(devices) + (all_at_once ? " concurrent" : " one_at_a_time");
}

Environment collect_environment(const DeviceInfo& device) {
  utsname u{};
  uname(&u);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  Environment env;
  env.host = host;
  env.os = first_line_with("/etc/os-release", "PRETTY_NAME");
  env.kernel = std::string(u.sysname) + " " + u.release;
  env.machine = u.machine;
  env.cpu_model = first_line_with("/proc/cpuinfo", "model name");
  env.cpu_count = std::thread::hardware_concurrency();
  env.apod_version = APOD_VERSION;
  env.apod_commit = APOD_GIT_DESCRIBE;
  env.apod_dirty = std::string(APOD_GIT_DESCRIBE).find("-dirty") != std::string::npos;
  env.compiler = APOD_COMPILER;
  env.build_type = APOD_BUILD_TYPE;
  env.cuda_architectures = APOD_CUDA_ARCHS;
  env.cuda_toolkit_build = CUDART_VERSION;
  env.extra_cuda_flags = APOD_CUDA_FLAGS;
  env.gpu_numa_node = read_numa_node(device.pci_bus_id);
  // Set by `apod run --device all` (cmd_run.cpp) for its children: how many GPUs that command
  // ran and whether at the same time, which host-side figures depend on.
  if (const char* all = std::getenv(device_all_variable)) {
    std::istringstream in(all);
    int devices = 0;
    std::string mode;
    if (in >> devices >> mode)
      env.device_all = DeviceAll{devices, mode};
  }
  return env;
}

} // namespace apod
