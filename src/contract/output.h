// output.h — checked writes to a file descriptor. Every write is checked; after the first
// failure (a closed pipe, a full disk) nothing more is written and failed() says so, so the
// tool can stop and main can end with io.write-failed instead of a silent success.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace contract {

class Out {
 public:
  explicit Out(int fd, size_t flush_at = 64 * 1024) : fd_(fd), flush_at_(flush_at) {}
  std::string& buffer() { return buf_; }
  void write(std::string_view s) {
    buf_ += s;
    maybe_flush();
  }
  void maybe_flush() {
    if (buf_.size() >= flush_at_) flush();
  }
  // Writes the buffer out; false once any write has failed.
  bool flush();
  // Appends `bytes`, which must never change again (a large answer's part that lies ready in
  // memory): small ones are buffered; large ones follow the buffer out as they lie, into a pipe
  // without a copy (vmsplice hands their pages to the reader).
  void stable(std::string_view bytes);
  bool failed() const { return err_ != 0; }
  // Every byte handed to the writer so far, written or still buffered: what an answer's byte
  // budget (--max-bytes) is measured against.
  uint64_t produced() const { return flushed_ + buf_.size(); }
  int error() const { return err_; }

 private:
  // Writes all of `bytes` (waiting out a full non-blocking fd), recording the first error;
  // `by_reference`: a pipe may take the pages themselves (bytes that never change again).
  void send(std::string_view bytes, bool by_reference);
  int fd_;
  int pipe_ = -1;  // whether fd_ is a pipe (vmsplice takes it); -1 until asked
  size_t flush_at_;
  std::string buf_;
  uint64_t flushed_ = 0;
  int err_ = 0;
};

}  // namespace contract
