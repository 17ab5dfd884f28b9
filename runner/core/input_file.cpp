#include "core/input_file.hpp"

#include "core/errors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <vector>

namespace apod {

namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t sniff_bytes = 64 * 1024;

std::string mib(std::size_t bytes) { return fmt::format("{:.0f} MiB", bytes / double(limits::MiB)); }

InputError too_large(const std::string& source, const limits::JsonLimits& limits) {
  return InputError(fmt::format("'{}' is larger than {}, the limit for {}", source,
                                mib(limits.max_bytes), limits.what));
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string read_input_file(const std::string& path, const limits::JsonLimits& limits) {
  const auto cannot = [&](int err) {
    return InputError(fmt::format("cannot read '{}': {}", path, std::strerror(err)));
  };
  Fd in{path == "-" ? dup(STDIN_FILENO) : open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) throw cannot(errno);
  struct stat st{};
  if (fstat(in.fd, &st) != 0) throw cannot(errno);
  if (S_ISDIR(st.st_mode)) throw InputError(fmt::format("'{}' is a directory, not a file", path));
  // A regular file's size is known: refuse before reading a byte.
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > limits.max_bytes)
    throw too_large(path, limits);
  std::string bytes;
  std::vector<char> chunk(sniff_bytes);
  bool sniffed = false;
  for (;;) {
    const ssize_t got = read(in.fd, chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw cannot(errno);
    if (got == 0) break;
    bytes.append(chunk.data(), static_cast<std::size_t>(got));
    if (bytes.size() > limits.max_bytes) throw too_large(path, limits);
    // JSON text never holds a NUL byte: binary data (/dev/zero, an image) is refused at once.
    if (!sniffed && (bytes.size() >= sniff_bytes || is_gzip(bytes))) {
      sniffed = true;
      if (!is_gzip(bytes) && bytes.find('\0') != std::string::npos)
        throw InputError(fmt::format("'{}' holds binary data, not {}", path, limits.what));
    }
  }
  if (is_gzip(bytes)) bytes = gunzip(bytes, limits.max_bytes, path);
  if (bytes.substr(0, sniff_bytes).find('\0') != std::string::npos)
    throw InputError(fmt::format("'{}' holds binary data, not {}", path, limits.what));
  return bytes;
}

std::string gunzip(const std::string& bytes, std::size_t max_bytes, const std::string& source) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)  // 16: a gzip header and trailer (zlib.h)
    throw ResourceError("cannot start zlib to decompress '" + source + "'");
  std::string out;
  std::vector<unsigned char> buffer(256 * 1024);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  for (;;) {
    z.next_out = buffer.data();
    z.avail_out = static_cast<uInt>(buffer.size());
    rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t produced = buffer.size() - z.avail_out;
    if (out.size() + produced > max_bytes) {
      inflateEnd(&z);
      throw InputError(fmt::format("'{}' decompresses to more than {} MiB, the limit for its "
                                   "contents; refusing it (a decompression bomb?)",
                                   source, max_bytes / limits::MiB));
    }
    out.append(reinterpret_cast<const char*>(buffer.data()), produced);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);  // a further gzip member follows (RFC 1952, 2.2)
      continue;
    }
    if (rc != Z_OK && !(rc == Z_BUF_ERROR && produced > 0)) break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    throw InputError(fmt::format("'{}' is a damaged or truncated gzip file ({})", source,
                                 z.msg ? z.msg : zError(rc)));
  return out;
}

json parse_bounded_json(const std::string& text, const std::string& source,
                        const limits::JsonLimits& limits) {
  std::vector<std::set<std::string>> keys;  // of each object being parsed, innermost last
  std::size_t values = 0;
  const auto refuse = [&](const std::string& why) {
    return InputError(fmt::format("'{}' {}; not {}", source, why, limits.what));
  };
  const auto check = [&](int depth, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    const bool starts = event == E::object_start || event == E::array_start;
    if (starts && depth + 1 > limits.max_depth)
      throw refuse(fmt::format("nests arrays and objects deeper than {} levels", limits.max_depth));
    if ((starts || event == E::value) && ++values > limits.max_values)
      throw refuse(fmt::format("holds more than {} values", limits.max_values));
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    const bool text_too_long = (event == E::key || event == E::value) && parsed.is_string() &&
                               parsed.get_ref<const std::string&>().size() > limits.max_string_bytes;
    if (text_too_long)
      throw refuse(fmt::format("holds a string of {} bytes, more than {}",
                               parsed.get_ref<const std::string&>().size(), limits.max_string_bytes));
    if (event == E::key && !keys.empty()) {
      if (!keys.back().insert(parsed.get<std::string>()).second)
        throw refuse(fmt::format("repeats the key {} in one object", parsed.dump()));
      if (keys.back().size() > limits.max_members)
        throw refuse(fmt::format("has an object of more than {} members", limits.max_members));
    }
    return true;
  };
  if (text.size() > limits.max_bytes) throw too_large(source, limits);
  try {
    return json::parse(text, check);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("'{}' is not valid JSON: {}", source, e.what()));
  }
}

json read_json_file(const std::string& path, const limits::JsonLimits& limits) {
  return parse_bounded_json(read_input_file(path, limits), path, limits);
}

}  // namespace apod
