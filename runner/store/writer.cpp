#include "store/writer.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace apod {

namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

std::string pid_namespace() {
  char target[128] = {};
  const ssize_t n = readlink("/proc/self/ns/pid", target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

/// Field 22 of /proc/PID/stat (starttime), or -1 when there is no such process or it has exited
/// and waits to be reaped (a zombie, state Z or X). The command name (field 2) may hold spaces
/// and parentheses, so fields are counted after its last ')'.
int64_t start_ticks(int64_t pid) {
  const std::string stat = first_line("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos)
    return -1;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 3 && (field == "Z" || field == "X"))
      return -1;
    if (i == 22)
      return std::strtoll(field.c_str(), nullptr, 10);
  }
  return -1;
}

} // namespace

Writer current_writer() {
  Writer me;
  me.host = host_name();
  me.boot_id = first_line("/proc/sys/kernel/random/boot_id");
  me.pid_namespace = pid_namespace();
  me.pid = getpid();
  me.start_ticks = start_ticks(me.pid);
  return me;
}

WriterState writer_state(const Writer& w) {
  if (w.host.empty() || w.boot_id.empty() || w.pid <= 0 || w.start_ticks < 0 ||
      w.host != host_name())
    return WriterState::unknown;
  if (w.boot_id != first_line("/proc/sys/kernel/random/boot_id"))
    return WriterState::gone;
  if (w.pid_namespace != pid_namespace())
    return WriterState::unknown;
  return start_ticks(w.pid) == w.start_ticks ? WriterState::alive : WriterState::gone;
}

} // namespace apod
