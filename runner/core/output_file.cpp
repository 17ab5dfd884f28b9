#include "core/output_file.hpp"

#include "core/errors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <regex>

namespace apod {

namespace fs = std::filesystem;

namespace {

// The name `path` finally stands for: every symbolic link followed (a dangling one included,
// which fs::weakly_canonical would keep as the link's own name), then made absolute.
fs::path resolved(const fs::path& path) {
  fs::path p = fs::absolute(path);
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    const fs::path to = fs::read_symlink(p, ec);
    if (ec)
      break;
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  const fs::path canonical = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : canonical;
}

// The descriptor a name such as /dev/stdout or /proc/self/fd/3 stands for, directly or through
// links: written through that descriptor, a shell's redirection (> or >>) is kept.
std::optional<int> descriptor_name(fs::path p) {
  static const std::regex fd_path("/(dev|proc/self)/fd/([0-9]+)");
  std::error_code ec;
  for (int hops = 0; hops < 40; ++hops) {
    const std::string s = fs::absolute(p).lexically_normal().string();
    if (s == "/dev/stdout")
      return 1;
    if (s == "/dev/stderr")
      return 2;
    std::smatch m;
    if (std::regex_match(s, m, fd_path) && m[2].length() < 6)
      return std::stoi(m[2]);
    if (!fs::is_symlink(p, ec))
      return std::nullopt;
    const fs::path to = fs::read_symlink(p, ec);
    if (ec)
      return std::nullopt;
    p = to.is_absolute() ? to : fs::absolute(p).parent_path() / to;
  }
  return std::nullopt;
}

const char* sidecar_role(const std::string& suffix) {
  return suffix == "-wal"       ? "the write-ahead log of "
         : suffix == "-shm"     ? "the shared-memory index of "
         : suffix == "-journal" ? "the rollback journal of "
                                : "";
}

} // namespace

void refuse_if_input(const std::string& path, const std::vector<OutputInput>& inputs,
                     const std::string& what) {
  struct stat out {};
  const bool out_exists = stat(path.c_str(), &out) == 0;
  const fs::path out_name = resolved(path);
  for (const OutputInput& input : inputs) {
    for (const std::string suffix : {"", "-wal", "-shm", "-journal"}) {
      if (!suffix.empty() && !input.database)
        break;
      const std::string file = input.path + suffix;
      struct stat in {};
      const bool same_file = out_exists && stat(file.c_str(), &in) == 0 &&
                             in.st_dev == out.st_dev && in.st_ino == out.st_ino;
      // SQLite puts -wal and -shm beside the file it opened, links resolved.
      const bool same_name = out_name == resolved(file) ||
                             out_name == fs::path(resolved(input.path).string() + suffix);
      if (same_file || same_name)
        throw InputError(fmt::format("{} '{}' is {}{} '{}'; refusing to overwrite an input of this "
                                     "command",
                                     what, path, sidecar_role(suffix), input.role, input.path));
    }
  }
}

struct OutputFile::Gzip {
  z_stream z{};
  Gzip() {
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) // 16: a gzip header and trailer (zlib.h)
      throw ResourceError("cannot start zlib to compress the output");
  }
  ~Gzip() { deflateEnd(&z); }
};

OutputFile::OutputFile(const std::string& path, const std::vector<OutputInput>& inputs)
    : path_(path) {
  if (path.empty())
    throw InputError("--out is empty: name a file, or - for standard output");
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0)
    gzip_ = std::make_unique<Gzip>();
  if (path == "-") {
    in_place_ = true;
    return;
  }
  refuse_if_input(path, inputs, "--out");
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT)
      fail(errno);
    std::error_code ec;
    if (fs::is_symlink(path, ec))
      throw InputError(fmt::format("--out '{}' is a symbolic link to a missing file", path));
    target_ = path;
    return;
  }
  if (S_ISDIR(st.st_mode))
    throw InputError(fmt::format("--out '{}' is a directory", path));
  if (S_ISSOCK(st.st_mode) || S_ISBLK(st.st_mode))
    throw InputError(fmt::format("--out '{}' is a {}; apod writes regular files, character "
                                 "devices and pipes",
                                 path, S_ISSOCK(st.st_mode) ? "socket" : "block device"));
  in_place_ = !S_ISREG(st.st_mode) || descriptor_name(path).has_value();
  if (in_place_)
    return;
  target_ = resolved(path).string();
  mode_ = static_cast<int>(st.st_mode & 07777);
  uid_ = static_cast<int>(st.st_uid);
  gid_ = static_cast<int>(st.st_gid);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0)
    close(fd_);
  if (!temp_.empty())
    unlink(temp_.c_str());
  temp_registered_.release();
}

std::string write_error_reason(int err) {
  if (err == ENOSPC || err == EDQUOT || err == EFBIG)
    return fmt::format("the disk is full or a file-size limit was reached ({})",
                       std::strerror(err));
  return std::strerror(err);
}

void OutputFile::fail(int err) const {
  if (path_ == "-")
    throw InputError(fmt::format("cannot write to standard output: {}", write_error_reason(err)));
  throw InputError(fmt::format("cannot write '{}': {}", path_, write_error_reason(err)));
}

void OutputFile::open_target() {
  if (in_place_) {
    const std::optional<int> fd = path_ == "-" ? 1 : descriptor_name(path_);
    fd_ = fd ? fcntl(*fd, F_DUPFD_CLOEXEC, 3)
             : ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0)
      fail(errno);
    return;
  }
  std::string temp = temp_name_beside(target_, ".XXXXXX");
  fd_ = temp_registered_.create(temp, false);
  if (fd_ < 0)
    fail(errno);
  temp_ = temp;
  if (mode_ < 0) {
    const mode_t mask = umask(0);
    umask(mask);
    mode_ = static_cast<int>(0666 & ~mask); // what creat() would have given a new file
  }
  if (fchmod(fd_, static_cast<mode_t>(mode_)) != 0)
    fail(errno);
  if (uid_ >= 0 && fchown(fd_, static_cast<uid_t>(uid_), static_cast<gid_t>(gid_)) != 0) {
    // Only root may give a file away; another user's file becomes this user's, as with cp.
  }
}

void OutputFile::write_raw(std::string_view bytes) {
  if (fd_ < 0)
    open_target();
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      fail(errno);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void OutputFile::write(std::string_view bytes) {
  written_ += bytes.size();
  if (!gzip_)
    return write_raw(bytes);
  unsigned char buffer[64 * 1024];
  z_stream& z = gzip_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  do {
    z.next_out = buffer;
    z.avail_out = sizeof buffer;
    deflate(&z, Z_NO_FLUSH);
    write_raw(std::string_view(reinterpret_cast<char*>(buffer), sizeof buffer - z.avail_out));
  } while (z.avail_out == 0);
}

void OutputFile::commit() {
  if (gzip_) {
    unsigned char buffer[64 * 1024];
    z_stream& z = gzip_->z;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      z.next_out = buffer;
      z.avail_out = sizeof buffer;
      rc = deflate(&z, Z_FINISH);
      write_raw(std::string_view(reinterpret_cast<char*>(buffer), sizeof buffer - z.avail_out));
    }
  }
  if (fd_ < 0)
    open_target(); // an empty output still exists afterwards
  if (!in_place_ && fsync(fd_) != 0)
    fail(errno);
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0 && !in_place_)
    fail(errno);
  if (in_place_)
    return;
  if (std::rename(temp_.c_str(), target_.c_str()) != 0)
    fail(errno);
  temp_.clear();
  temp_registered_.release(); // only now: until the rename, a signal must still remove it
}

void write_output(const std::string& path, std::string_view content,
                  const std::vector<OutputInput>& inputs) {
  OutputFile out(path, inputs);
  out.write(content);
  out.commit();
}

} // namespace apod
