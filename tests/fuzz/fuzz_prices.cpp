// libFuzzer target: `apod report --prices FILE`. The bytes are written to a file and read as
// the command reads it (read_input_file: size cap, gzip, bounded JSON; then parse_prices).
// Refusal with InputError is the right answer to a bad file; any other exception, a crash (a
// deeply nested file once overflowed the stack while its error message was formatted) or a
// sanitizer report is a bug.
#include "core/errors.hpp"
#include "prices.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path =
      std::string(std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp") +
      "/apod-fuzz-prices-" + std::to_string(getpid()) + ".json";
  {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    for (const auto& [model, price] : apod::report::load_prices(path))
      if (model.empty() || !(price > 0))
        __builtin_trap(); // accepted, yet not a price
  } catch (const apod::InputError&) {
  }
  return 0;
}
