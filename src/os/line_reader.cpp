// line_reader.cpp — split a file into lines with memory bounded by chunk + max_line. A line
// wholly inside the chunk is handed out as a view into the buffer (no copy); only a line that
// straddles chunks is assembled in carry_, and carry_ stops growing at max_line while the
// length keeps counting, so a 1 GiB line without a newline costs no more than a short one.
#include "os/line_reader.h"

#include <cerrno>
#include <cstring>

#include "os/open.h"

namespace os {

LineReader::LineReader(int fd, size_t max_line, uint64_t start, size_t chunk)
    : fd_(fd),
      max_line_(max_line),
      chunk_(chunk == 0 ? 1 : chunk),
      buf_(std::make_unique_for_overwrite<char[]>(chunk_)),
      file_off_(start),
      pos_(start) {}

bool LineReader::fill() {
  long long n = pread_full(fd_, buf_.get(), chunk_, file_off_);
  if (n < 0) {
    error_ = static_cast<int>(-n);
    return false;
  }
  begin_ = 0;
  end_ = static_cast<size_t>(n);
  file_off_ += static_cast<uint64_t>(n);
  // A short read is the end of the file (pread_full retries everything else); remembering it
  // saves one empty read per file.
  if (static_cast<size_t>(n) < chunk_) eof_ = true;
  return n > 0;
}

// Moves the unread tail of the buffer into carry_, keeping at most max_line bytes.
void LineReader::carry_tail() {
  const size_t n = end_ - begin_;
  if (!carry_too_long_) {
    if (carry_.size() + n <= max_line_) {
      carry_.append(buf_.get() + begin_, n);
    } else {
      carry_too_long_ = true;
      carry_.clear();
    }
  }
  carry_len_ += n;
  begin_ = end_;
}

bool LineReader::next(Line& line) {
  if (error_ != 0) return false;
  // The previous line's view into carry_ is released now, as the header promises.
  if (carry_done_) {
    carry_.clear();
    carry_len_ = 0;
    carry_too_long_ = false;
    carry_done_ = false;
  }
  line = Line{};
  line.offset = pos_;
  for (;;) {
    if (begin_ < end_) {
      const char* start = buf_.get() + begin_;
      const void* nl = std::memchr(start, '\n', end_ - begin_);
      if (nl != nullptr) {
        const size_t n = static_cast<const char*>(nl) - start;
        begin_ += n + 1;
        line.newline = true;
        if (carry_len_ == 0) {
          // The common case: the whole line is in the buffer.
          line.length = n;
          if (n <= max_line_) {
            line.text = std::string_view(start, n);
          } else {
            line.too_long = true;
          }
        } else {
          line.length = carry_len_ + n;
          if (!carry_too_long_ && line.length <= max_line_) {
            carry_.append(start, n);
            line.text = carry_;
          } else {
            line.too_long = true;
          }
          carry_done_ = true;
        }
        pos_ += line.length + 1;
        return true;
      }
      carry_tail();
    }
    if (eof_ || !fill()) break;
  }
  if (error_ != 0 || carry_len_ == 0) return false;
  // The last line of a file that does not end in '\n'.
  line.length = carry_len_;
  line.too_long = carry_too_long_;
  if (!carry_too_long_) line.text = carry_;
  carry_done_ = true;
  pos_ += line.length;
  return true;
}

}  // namespace os
