// frames.h — the server's input cut into messages as the stdio transport frames them: one
// message a line, ended by '\n'. A line longer than the cap is one oversized frame, whose
// bytes past the cap are dropped as they come, so memory stays the cap whatever a client sends.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace mcp {

class FrameReader {
 public:
  explicit FrameReader(size_t max) : max_(max) {}

  // Takes the next `n` bytes read; calls `on(line, oversized)` for each line they complete
  // (without its '\n'; blank lines too). An oversized line is given as its first `max` bytes.
  template <class On>
  void feed(const char* p, size_t n, On&& on) {
    while (n > 0) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', n));
      size_t len = nl ? static_cast<size_t>(nl - p) : n;
      size_t room = max_ - line_.size();
      if (len > room) oversized_ = true;
      line_.append(p, len < room ? len : room);
      if (!nl) return;
      on(std::string_view(line_), oversized_);
      line_.clear();
      oversized_ = false;
      p = nl + 1;
      n -= len + 1;
    }
  }

  // Bytes of an unfinished line held (at most the cap).
  size_t pending() const { return line_.size(); }

 private:
  size_t max_;
  std::string line_;
  bool oversized_ = false;
};

}  // namespace mcp
