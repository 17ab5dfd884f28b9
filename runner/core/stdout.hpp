// Standard output through one checked path (issue 19). Every result apod prints (`list`,
// `compare`, `baseline show`, `device`, `run`'s summary) goes through std::cout, which main()
// routes into write(2) here: a write that fails (a full disk behind `> file`, /dev/full, a
// file-size limit, EPIPE where SIGPIPE is ignored) is remembered and reported once, at the end,
// as exit 2, instead of the output being lost under exit 0. (`--out -` writes the descriptor
// itself, through OutputFile, which reports its failure the same way.)
#pragma once

#include <iosfwd>
#include <memory>

namespace apod {

class CheckedStdout {
public:
  /// From now on std::cout writes with write(2) to descriptor 1: buffered, and line by line on
  /// a terminal so that progress shows as it happens.
  CheckedStdout();
  /// Flushes (errors ignored: finish() is where they are reported) and restores std::cout.
  ~CheckedStdout();
  CheckedStdout(const CheckedStdout&) = delete;
  CheckedStdout& operator=(const CheckedStdout&) = delete;

  /// Writes what is still buffered. Throws InputError (exit 2) "cannot write to standard
  /// output: CAUSE" when this or any earlier write failed; later output was dropped.
  void finish();

private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
  std::streambuf* previous_ = nullptr;
};

} // namespace apod
