// libFuzzer target: a database file of arbitrary bytes (seeded with real apod databases),
// opened and read as `apod list --runs` and `apod export` do, then opened for writing as
// `apod import` does. Refusal with InputError is the right answer to a file that is not a
// whole apod database; any other exception, a crash or a sanitizer report is a bug.
#include "core/errors.hpp"
#include "store/store.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {
std::string scratch_path() {
  const char* dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/apod-fuzz-store-" + std::to_string(getpid()) + ".db";
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  apod::Store::creator_wait = std::chrono::milliseconds(0); // no other process creates it
  static const std::string path = scratch_path();
  for (const char* suffix : {"", "-wal", "-shm"})
    std::remove((path + suffix).c_str());
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    apod::Store store(path, apod::Store::Mode::read_only);
    for (const auto& run : store.list_runs())
      store.resolve_run_id(run.id);
    store.export_results().dump();
  } catch (const apod::InputError&) {
  }
  try {
    apod::Store store(path, apod::Store::Mode::read_write);
  } catch (const apod::InputError&) {
  }
  return 0;
}
