// line_edits.h — the algorithms of edit apart from any file: a text split into the lines
// peek numbers, the lines put in place of the lines edits name, and those changes applied to
// a file's bytes as they stream past (CutSplicer). Pure: no I/O. (Which lines the witnesses
// name is text/witness_search.h.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/edits.h"
#include "text/eol.h"

namespace text {

struct Line {
  std::string_view raw;  // without '\n', '\r' kept
  bool newline = true;   // a '\n' ends it (only the last line may lack one)
};

// The lines of a text (its BOM already off), as views into it.
std::vector<Line> split_lines(std::string_view body);

// The text again (with a BOM when bom) with each line that edit_of names replaced by the
// edit's lines (none: the line deleted). New lines end as the file's lines do: "\r\n" in a
// CRLF file (eol); in a mixed file as the replaced line did. The last line keeps its missing
// final newline.
std::string apply_line_edits(const std::vector<Line>& lines,
                             const std::vector<const LineEdit*>& edit_of, Eol eol, bool bom);

// The bytes [start, end) of a text given `bytes` in their place.
struct Cut {
  uint64_t start = 0, end = 0;
  std::string bytes;
};

// Cuts (ascending, not overlapping, none empty) applied to a text that arrives in consecutive
// chunks: each piece of the result is handed to `emit` as soon as it is known, so the result
// is never held.
class CutSplicer {
 public:
  explicit CutSplicer(const std::vector<Cut>& cuts) : cuts_(cuts) {}
  // The chunk holds the bytes [pos, pos + chunk.size()); chunks come in order, without gaps.
  template <class Emit>
  void feed(std::string_view chunk, uint64_t pos, Emit&& emit) {
    const uint64_t end = pos + chunk.size();
    uint64_t at = resume_ > pos ? resume_ : pos;
    while (next_ < cuts_.size() && cuts_[next_].start < end) {
      const Cut& c = cuts_[next_];
      if (c.start >= at) {  // reached now: the bytes before it, then what takes its place
        emit(chunk.substr(static_cast<size_t>(at - pos), static_cast<size_t>(c.start - at)));
        emit(std::string_view(c.bytes));
      }
      if (c.end > end) {  // it goes on into the next chunk
        resume_ = c.end;
        return;
      }
      at = c.end;
      ++next_;
    }
    if (at < end) emit(chunk.substr(static_cast<size_t>(at - pos)));
    resume_ = end;
  }
  // Every cut has been reached, and passed.
  bool done() const { return next_ == cuts_.size(); }

 private:
  const std::vector<Cut>& cuts_;
  size_t next_ = 0;      // the first cut not yet passed
  uint64_t resume_ = 0;  // the bytes before this are emitted or cut
};

}  // namespace text
