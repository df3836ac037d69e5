// tail.h — seek --last: the last N matching lines of the answer, with their context, kept in a
// ring while the search runs to the end, and written in answer order once it is over. The ring
// holds at most N matches and never more than the byte budget needs (a match whose successors
// already fill the budget cannot be shown and is dropped at once), so memory is bounded by
// N and --max-bytes, never by the input.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "contract/error.h"

namespace seek {

class Tail {
 public:
  Tail(uint64_t n, uint64_t budget, uint64_t context) : n_(n), budget_(budget), context_(context) {}

  // Records in answer order, each rendered (without its '\n'); `seq` is the file's place in the
  // walk, `ordinal` the match's among all the answer's matching lines.
  void context(uint64_t seq, uint64_t line, std::string bytes);
  void match(uint64_t seq, uint64_t line, uint64_t ordinal, std::string bytes);
  // The file a match was found in, when it is done (or when the search stopped in it).
  void file(uint64_t seq, std::string path, uint64_t bytes, bool binary);
  // An error met at the file `seq`: written in walk order among the records (after the
  // file's own lines, before its file record). Every error is written, shown matches or not.
  void error(uint64_t seq, contract::Error e) { errors_.emplace_back(seq, std::move(e)); }
  bool holds(uint64_t seq) const { return !entries_.empty() && entries_.back().seq == seq; }

  struct Shown {
    uint64_t matches = 0;
    uint64_t first = 0;  // the ordinal of the first match shown
    bool cut_by_bytes = false;
  };
  struct File {
    uint64_t seq;
    std::string path;
    uint64_t bytes;
    bool binary;
  };
  // Writes the chosen records through `line` (a record's bytes), `file` (a file's record,
  // with the number of its matches shown) and `err` (an error, taken), and says what was
  // shown.
  template <class Line, class FileRec, class Err>
  Shown write(Line line, FileRec file_rec, Err err);

 private:
  struct Ctx {
    uint64_t seq, line;
    std::string bytes;
  };
  struct Entry {
    uint64_t seq, line, ordinal;
    std::vector<Ctx> before;  // context records met since the match before it
    std::string bytes;
    uint64_t size;            // before's bytes and its own, each with a '\n'
  };
  uint64_t first_index() const;  // the first entry shown
  bool before_context(const Ctx& c, const Entry& e) const {
    return c.seq == e.seq && c.line + context_ >= e.line;
  }

  uint64_t n_, budget_, context_;
  std::deque<Entry> entries_;
  std::vector<Ctx> pending_;  // context since the last match: its after-context, or the
                              // before-context of a match past --before
  uint64_t held_ = 0;         // the bytes of entries_
  uint64_t pending_bytes_ = 0;
  std::deque<File> files_;
  std::deque<std::pair<uint64_t, contract::Error>> errors_;  // in walk order
};

template <class Line, class FileRec, class Err>
Tail::Shown Tail::write(Line line, FileRec file_rec, Err err) {
  Shown s;
  // The errors of the files before `seq` (through it, with `through`), in walk order.
  auto errors_before = [&](uint64_t seq, bool through) {
    while (!errors_.empty() && (errors_.front().first < seq || (through && errors_.front().first == seq))) {
      err(std::move(errors_.front().second));
      errors_.pop_front();
    }
  };
  if (entries_.empty()) {
    errors_before(UINT64_MAX, true);
    return s;
  }
  const uint64_t from = first_index();
  errors_before(entries_[from].seq, false);
  s.first = entries_[from].ordinal;
  s.matches = entries_.size() - from;
  s.cut_by_bytes = s.matches < n_;
  size_t f = 0;
  uint64_t in_file = 0;
  auto close_file = [&](uint64_t seq) {
    errors_before(seq, true);
    while (f < files_.size() && files_[f].seq < seq) ++f;
    if (f < files_.size() && files_[f].seq == seq) file_rec(files_[f], in_file);
    in_file = 0;
  };
  for (uint64_t i = from; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (i > from && entries_[i - 1].seq != e.seq) {
      close_file(entries_[i - 1].seq);
      errors_before(e.seq, false);
    }
    for (const Ctx& c : e.before)
      if (i > from || before_context(c, e)) line(c.bytes);
    line(e.bytes);
    ++in_file;
  }
  const Entry& last = entries_.back();
  for (const Ctx& c : pending_)
    if (c.seq == last.seq && c.line <= last.line + context_) line(c.bytes);
  close_file(last.seq);
  errors_before(UINT64_MAX, true);
  return s;
}

}  // namespace seek
