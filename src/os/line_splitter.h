// line_splitter.h — a descriptor's lines with read(), a pipe as well as a file, in memory set
// by the longest line held: tally's reader.
#pragma once

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace os {

// Splits a descriptor into lines with read(), so a pipe works as well as a file. Memory: one
// chunk, plus a carry of at most max_line bytes for a line that spans chunks; a longer line is
// measured, never held. each(text, length, too_long, newline, cr) returns false to stop;
// cr says the line's last byte (before any '\n') is '\r', even for a line too long to hold.
class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line) : max_(max_line), buf_(new char[kChunk]) {}

  // boundary() runs before each read and after each line assembled in the carry: the views
  // handed to each() are valid until then. It returns false to stop.
  template <class F, class B>
  int run(int fd, F&& each, B&& boundary) {
    carry_.clear();
    size_t carry_len = 0;
    char last = 0;  // the last byte of the carried part of a line
    auto carried = [&](F& f, bool newline) {
      bool too_long = carry_len > max_;
      return f(too_long ? std::string_view() : std::string_view(carry_), carry_len, too_long,
               newline, last == '\r');
    };
    for (;;) {
      if (!boundary()) return 0;
      ssize_t n = read(fd, buf_.get(), kChunk);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN) {  // a non-blocking pipe handed to us: wait for it
          pollfd p{fd, POLLIN, 0};
          poll(&p, 1, -1);
          continue;
        }
        return errno;
      }
      if (n == 0) break;
      const char* p = buf_.get();
      const char* end = p + n;
      while (p < end) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
        const char* stop = nl ? nl : end;
        size_t part = static_cast<size_t>(stop - p);
        if (nl && carry_len == 0) {  // the common case: the whole line is in the chunk
          bool cr = part > 0 && p[part - 1] == '\r';
          bool too_long = part > max_;
          if (!each(std::string_view(p, too_long ? 0 : part), part, too_long, true, cr)) return 0;
          p = nl + 1;
          continue;
        }
        if (carry_len + part <= max_) carry_.append(p, part);
        carry_len += part;
        if (part > 0) last = p[part - 1];
        if (!nl) break;
        if (!carried(each, true) || !boundary()) return 0;
        carry_.clear();
        carry_len = 0;
        last = 0;
        p = nl + 1;
      }
    }
    if (carry_len > 0) carried(each, false);
    return 0;
  }

 private:
  static constexpr size_t kChunk = 256 * 1024;
  size_t max_;
  std::unique_ptr<char[]> buf_;
  std::string carry_;
};

}  // namespace os
