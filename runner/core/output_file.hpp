// Writing an output (`--out`) so that nothing is lost: the output may not be an input (the
// database, by any spelling, symbolic or hard link, or its -wal/-shm/-journal, or an input
// file); a regular file is replaced whole (a temporary file beside it, then a rename, so a reader
// sees the old file or the new one, never a torn one) and keeps its mode and owner; a device,
// FIFO or terminal (/dev/null, /dev/stdout, a named pipe) is written into, never replaced; a
// socket, block device or directory is refused. Names ending in ".gz" are written gzip-compressed.
// The temporary file's name fits NAME_MAX whatever the target's, and a signal that ends apod
// while it exists removes it (temp_files.hpp).
#pragma once

#include "core/temp_files.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace apod {

/// A file an output must never replace, and what to call it in the message.
struct OutputInput {
  std::string path;
  std::string role;      ///< e.g. "the database", "the prices file"
  bool database = false; ///< also protect SQLite's files beside it (-wal, -shm, -journal)
};

class OutputFile {
public:
  /// Checks `path` ("-": standard output) against `inputs` and its own kind, before any work is
  /// done; nothing is created yet. Throws InputError (exit 2) naming the conflict.
  OutputFile(const std::string& path, const std::vector<OutputInput>& inputs);
  ~OutputFile(); ///< removes the temporary file of an output that was never committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Appends bytes (compressed when the name ends in ".gz"). Throws InputError on a write error.
  void write(std::string_view bytes);
  /// Finishes the output: flushes, syncs and renames a regular file into place.
  void commit();
  /// The bytes written so far, before compression.
  std::size_t size() const { return written_; }
  const std::string& path() const { return path_; }

private:
  void open_target();
  void write_raw(std::string_view bytes);
  [[noreturn]] void fail(int err) const;
  std::string path_;
  std::string target_; ///< the file renamed over (symbolic links resolved); "" when written into
  std::string temp_;   ///< the temporary file beside target_, while it exists
  TempRegistration temp_registered_; ///< temp_, for the signal handler
  bool in_place_ = false;
  int fd_ = -1;
  int mode_ = -1; ///< the replaced file's permission bits and owner, kept
  int uid_ = -1, gid_ = -1;
  std::size_t written_ = 0;
  struct Gzip;
  std::unique_ptr<Gzip> gzip_;
};

/// What a failed write's `err` (an errno value) means to the user: ENOSPC, EDQUOT and EFBIG
/// (a file-size limit, SIGXFSZ being ignored) read "the disk is full or a file-size limit was
/// reached (CAUSE)"; any other error its strerror text.
std::string write_error_reason(int err);

/// OutputFile in one call: checks, writes `content`, commits.
void write_output(const std::string& path, std::string_view content,
                  const std::vector<OutputInput>& inputs);

/// Refuses (InputError) `path` when it names one of `inputs` (same device and inode where it
/// exists; the same resolved name, or a database's -wal/-shm/-journal, where it does not).
/// `what` names `path` in the message (e.g. "--out", "the database to merge into").
void refuse_if_input(const std::string& path, const std::vector<OutputInput>& inputs,
                     const std::string& what);

} // namespace apod
