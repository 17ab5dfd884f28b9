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

std::string mib(std::size_t bytes) {
  return fmt::format("{:.0f} MiB", bytes / double(limits::MiB));
}

InputError too_large(const std::string& source, const limits::JsonLimits& limits) {
  return InputError(fmt::format("'{}' is larger than {}, the limit for {}", source,
                                mib(limits.max_bytes), limits.what));
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0)
      close(fd);
  }
};

} // namespace

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string read_input_file(const std::string& path, const limits::JsonLimits& limits) {
  const auto cannot = [&](int err) {
    return InputError(fmt::format("cannot read '{}': {}", path, std::strerror(err)));
  };
  Fd in{path == "-" ? dup(STDIN_FILENO) : open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0)
    throw cannot(errno);
  struct stat st {};
  if (fstat(in.fd, &st) != 0)
    throw cannot(errno);
  if (S_ISDIR(st.st_mode))
    throw InputError(fmt::format("'{}' is a directory, not a file", path));
  // A regular file's size is known: refuse before reading a byte.
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > limits.max_bytes)
    throw too_large(path, limits);
  std::string bytes;
  std::vector<char> chunk(sniff_bytes);
  bool sniffed = false;
  for (;;) {
    const ssize_t got = read(in.fd, chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      throw cannot(errno);
    if (got == 0)
      break;
    bytes.append(chunk.data(), static_cast<std::size_t>(got));
    if (bytes.size() > limits.max_bytes)
      throw too_large(path, limits);
    // JSON text never holds a NUL byte: binary data (/dev/zero, an image) is refused at once.
    if (!sniffed && (bytes.size() >= sniff_bytes || is_gzip(bytes))) {
      sniffed = true;
      if (!is_gzip(bytes) && bytes.find('\0') != std::string::npos)
        throw InputError(fmt::format("'{}' holds binary data, not {}", path, limits.what));
    }
  }
  if (is_gzip(bytes))
    bytes = gunzip(bytes, limits.max_bytes, path);
  if (bytes.substr(0, sniff_bytes).find('\0') != std::string::npos)
    throw InputError(fmt::format("'{}' holds binary data, not {}", path, limits.what));
  return bytes;
}

std::string gunzip(const std::string& bytes, std::size_t max_bytes, const std::string& source) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) // 16: a gzip header and trailer (zlib.h)
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
      if (z.avail_in == 0)
        break;
      inflateReset(&z); // a further gzip member follows (RFC 1952, 2.2)
      continue;
    }
    if (rc != Z_OK && !(rc == Z_BUF_ERROR && produced > 0))
      break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    throw InputError(fmt::format("'{}' is a damaged or truncated gzip file ({})", source,
                                 z.msg ? z.msg : zError(rc)));
  return out;
}

namespace {

// Builds the tree event by event (nlohmann's SAX interface) and checks the bounds as it goes.
// nlohmann's own callback parser searches the parent's members at every object's end and so
// takes quadratic time (a million measurements: hours), and ordered_json's operator[] searches
// an object's keys at every key; this builder appends, and finds repeats in a set per object.
class BoundedBuilder : public json::json_sax_t {
public:
  BoundedBuilder(const std::string& source, const limits::JsonLimits& limits)
      : source_(source), limits_(limits) {}
  json take() { return std::move(root_); }

  bool null() override { return value(nullptr); }
  bool boolean(bool v) override { return value(v); }
  bool number_integer(number_integer_t v) override { return value(v); }
  bool number_unsigned(number_unsigned_t v) override { return value(v); }
  bool number_float(number_float_t v, const string_t&) override { return value(v); }
  bool string(string_t& v) override {
    check_text(v);
    return value(std::move(v));
  }
  bool binary(binary_t&) override { throw refuse("holds binary data"); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    check_text(k);
    std::set<std::string>& seen = keys_.back();
    if (!seen.insert(k).second)
      throw refuse(fmt::format("repeats the key {} in one object", json(k).dump()));
    if (seen.size() > limits_.max_members)
      throw refuse(fmt::format("has an object of more than {} members", limits_.max_members));
    auto& members =
        static_cast<json::object_t::Container&>(stack_.back()->get_ref<json::object_t&>());
    members.emplace_back(std::move(k), nullptr);
    slot_ = &members.back().second;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw InputError(fmt::format("'{}' is not valid JSON: {}", source_, e.what()));
  }

private:
  InputError refuse(const std::string& why) const {
    return InputError(fmt::format("'{}' {}; not {}", source_, why, limits_.what));
  }
  void check_text(const std::string& text) const {
    if (text.size() > limits_.max_string_bytes)
      throw refuse(fmt::format("holds a string of {} bytes, more than {}", text.size(),
                               limits_.max_string_bytes));
  }
  json* place(json&& v) {
    if (++values_ > limits_.max_values)
      throw refuse(fmt::format("holds more than {} values", limits_.max_values));
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    if (stack_.back()->is_array()) {
      auto& items = stack_.back()->get_ref<json::array_t&>();
      items.push_back(std::move(v));
      return &items.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }
  bool value(json&& v) {
    place(std::move(v));
    return true;
  }
  bool open(json&& container) {
    if (static_cast<int>(stack_.size()) + 1 > limits_.max_depth)
      throw refuse(
          fmt::format("nests arrays and objects deeper than {} levels", limits_.max_depth));
    const bool object = container.is_object();
    stack_.push_back(place(std::move(container)));
    if (object)
      keys_.emplace_back();
    return true;
  }
  bool close() {
    if (stack_.back()->is_object())
      keys_.pop_back();
    stack_.pop_back();
    return true;
  }

  const std::string& source_;
  const limits::JsonLimits& limits_;
  json root_;
  std::vector<json*> stack_;                // the open arrays and objects, innermost last
  std::vector<std::set<std::string>> keys_; // the keys of each open object
  json* slot_ = nullptr;                    // where the value after a key goes
  std::size_t values_ = 0;
};

} // namespace

json parse_bounded_json(const std::string& text, const std::string& source,
                        const limits::JsonLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw too_large(source, limits);
  BoundedBuilder builder(source, limits);
  try {
    json::sax_parse(text, &builder);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("'{}' is not valid JSON: {}", source, e.what()));
  }
  return builder.take();
}

json read_json_file(const std::string& path, const limits::JsonLimits& limits) {
  return parse_bounded_json(read_input_file(path, limits), path, limits);
}

} // namespace apod
