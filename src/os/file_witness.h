// file_witness.h — the witnesses (text/witness.h) of chosen lines of an open file, found in
// two more passes over it with text::WitnessFinder, so memory stays bounded by the lines
// chosen, never by the file's size. Lines are numbered and hashed as peek and edit see them:
// line 1 without its BOM; a line past the cap is hashed as it is read back in pieces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "text/scan.h"

namespace os {

// `lines`: 0-based line indices, ascending. `max_line`: the longest line held
// (os::LineReader's cap). `bom`: the file starts with a UTF-8 BOM. Fills `out` with each
// chosen line's witness value, in the order of `lines`; returns 0, or -errno when a read
// failed. `total_lines`, when the caller knows it (else 0): with a twelfth or more of the
// file's lines chosen, one pass over every line's hash (text::all_witnesses, ~28 bytes a line
// of the file) costs less than the finder (~350 bytes a chosen line) and is much faster.
int file_witnesses(int fd, size_t max_line, bool bom, const std::vector<uint64_t>& lines,
                   std::vector<uint32_t>& out, uint64_t total_lines = 0);

// Witnesses for a search that streams its answer (seek --witness): the Scanner's events are
// held in batches until the witnesses of a batch's matching lines are known, then handed on
// in order, each match with its witness text. A batch ends at 4096 events or about 4 MiB of
// text, which bounds both memory and the passes (two per batch).
class WitnessBatches {
 public:
  using Emit = std::function<void(const text::LineEvent&, const std::string* witness)>;
  WitnessBatches(int fd, size_t max_line, Emit emit)
      : fd_(fd), max_line_(max_line), emit_(std::move(emit)) {}

  void hold(const text::LineEvent& ev);  // a copy; hands the batch on when it is full
  void flush();                          // hands on what is held
  // The errno of the first failed read. From then on matches are handed on without a
  // witness (null), so the caller reports the error once and keeps the matches.
  int error() const { return error_; }

 private:
  struct Held {
    text::LineEvent ev;
    std::string text;
    std::vector<text::Span> spans;
    std::vector<uint32_t> patterns;
  };
  int fd_;
  size_t max_line_;
  Emit emit_;
  std::vector<Held> held_;
  size_t held_bytes_ = 0;
  int error_ = 0;
};

}  // namespace os
