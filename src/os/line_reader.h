// line_reader.h — a bounded chunked line reader: one fixed buffer plus a carry for a line
// that spans chunks, capped. Memory is independent of the file's size; a line past the cap
// is reported with its full length and no text, never clipped silently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace os {

struct Line {
  std::string_view text;  // the line's bytes without '\n' (a '\r' before it is kept: raw);
                          // empty when too_long. Valid until the next call to next().
  uint64_t offset = 0;    // byte offset of the line's first byte in the file
  uint64_t length = 0;    // the line's full length in bytes, without '\n'
  bool too_long = false;  // length > max_line: text is empty
  bool newline = false;   // the line ended with '\n' (false only for a last line without one)
};

class LineReader {
 public:
  // Reads fd sequentially from `start` (pread; the fd's position is not used).
  LineReader(int fd, size_t max_line, uint64_t start = 0, size_t chunk = 256 * 1024);
  // The next line, or false at end of file or on a read error (see error()).
  bool next(Line& line);
  int error() const { return error_; }        // errno of a failed read, else 0
  uint64_t position() const { return pos_; }  // offset just past the last line returned

 private:
  bool fill();
  void carry_tail();
  int fd_;
  size_t max_line_;
  size_t chunk_;
  // Not zero-filled: pread touches only the pages it fills, and on a small file the rest of
  // the chunk would cost a page fault each (about a millisecond of startup per 256 KiB).
  std::unique_ptr<char[]> buf_;
  size_t begin_ = 0, end_ = 0;  // unread bytes in buf_
  uint64_t file_off_;           // file offset of buf_[end_]
  uint64_t pos_;
  bool eof_ = false;
  int error_ = 0;
  std::string carry_;            // a line spanning chunks, at most max_line_ bytes
  uint64_t carry_len_ = 0;       // its full length so far, counted past the cap
  bool carry_too_long_ = false;  // carry_len_ passed max_line_: carry_ holds nothing
  bool carry_done_ = false;      // carry_ was handed out; clear it on the next call
};

}  // namespace os
