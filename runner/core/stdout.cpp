#include "core/stdout.hpp"

#include "core/errors.hpp"
#include "core/output_file.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <iostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace apod {

// std::cout's own buffer ends in C stdio, whose errors nobody reads: a full disk made apod print
// nothing and exit 0. This one keeps the first error for finish().
class CheckedStdout::Buffer : public std::streambuf {
public:
  Buffer() : line_buffered_(isatty(STDOUT_FILENO) == 1) { pending_.reserve(capacity); }

  bool flush_pending() {
    std::string_view rest(pending_);
    while (!rest.empty() && error_ == 0) {
      const ssize_t n = ::write(STDOUT_FILENO, rest.data(), rest.size());
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        error_ = n < 0 ? errno : EIO;
      else
        rest.remove_prefix(static_cast<std::size_t>(n));
    }
    pending_.clear();
    return error_ == 0;
  }
  int error() const { return error_; }

protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (error_ != 0)
      return 0; // std::cout turns bad: nothing more is formatted for a lost output
    const std::string_view bytes(s, static_cast<std::size_t>(n));
    pending_.append(bytes);
    if (pending_.size() >= capacity || (line_buffered_ && bytes.find('\n') != bytes.npos))
      flush_pending();
    return error_ == 0 ? n : 0;
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof()))
      return sync() == 0 ? traits_type::not_eof(c) : traits_type::eof();
    const char ch = traits_type::to_char_type(c);
    return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
  }
  int sync() override { return flush_pending() ? 0 : -1; }

private:
  static constexpr std::size_t capacity = 64 * 1024;
  std::string pending_;
  bool line_buffered_;
  int error_ = 0;
};

CheckedStdout::CheckedStdout() : buffer_(std::make_unique<Buffer>()) {
  std::cout.flush();
  previous_ = std::cout.rdbuf(buffer_.get());
}

CheckedStdout::~CheckedStdout() {
  buffer_->flush_pending();
  std::cout.rdbuf(previous_);
}

void CheckedStdout::finish() {
  buffer_->flush_pending();
  if (const int err = buffer_->error())
    throw InputError(fmt::format("cannot write to standard output: {}", write_error_reason(err)));
}

} // namespace apod
