// Provenance recorded with every run, so a number can be traced to the machine and build that
// produced it.
#include "run.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
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
      while (!v.empty() && (v.back() == '"' || v.back() == ' ')) v.pop_back();
      return v;
    }
  return "";
}
}  // namespace

json collect_environment() {
  utsname u{};
  uname(&u);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return {
      {"host", host},
      {"os", first_line_with("/etc/os-release", "PRETTY_NAME")},
      {"kernel", std::string(u.sysname) + " " + u.release},
      {"machine", u.machine},
      {"cpu_model", first_line_with("/proc/cpuinfo", "model name")},
      {"cpu_count", std::thread::hardware_concurrency()},
      {"apod_version", APOD_VERSION},
      {"apod_commit", APOD_COMMIT},
      {"compiler", APOD_COMPILER},
      {"build_type", APOD_BUILD_TYPE},
      {"cuda_architectures", APOD_CUDA_ARCHS},
  };
}

}  // namespace apod
