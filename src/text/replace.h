// replace.h — the algorithms of exact-text replacement, apart from any file: finding every
// occurrence of a text in bytes that arrive in windows (Finder), deciding from the
// occurrences whether an edit applies (decide), and putting the new text in the old one's
// places, all at once (splice) or as the bytes stream past (Splicer). Pure: no I/O.
//
// Overlaps: "aa" in "aaa" is found twice. When occurrences overlap, which of them to replace
// is a guess, so decide refuses the edit (precondition.count-mismatch, overlapping:true).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "contract/error.h"
#include "contract/json.h"
#include "text/edits.h"
#include "text/eol.h"

namespace text {

struct Found {
  uint64_t pos;   // byte offset in the text
  uint64_t line;  // 0-based line it starts on
};

// Every occurrence of a needle (raw_form) in bytes that arrive in windows, overlapping ones
// included, with its line. In a CRLF file (crlf) a match whose last byte is the '\r' of a
// "\r\n" is not one (see raw_form); a match that starts below skip_below (inside the BOM) is
// not in the text matched.
class Finder {
 public:
  Finder(std::string needle, bool crlf) : needle_(std::move(needle)), crlf_(crlf) {}
  void skip_below(uint64_t pos) { skip_ = pos; }
  // w holds the bytes [base, base + w.size()) of the text, lines_at_base '\n's come before
  // it; eof: nothing follows them. Precondition: base <= keep_from(). Lines are counted from
  // the window's start to each match only: a finder that finds nothing counts nothing (the
  // caller counts every '\n' once, for all finders).
  void scan(std::string_view w, uint64_t base, uint64_t lines_at_base, bool eof);
  // The first byte this finder still needs to see again.
  uint64_t keep_from() const { return next_; }
  const std::string& needle() const { return needle_; }
  bool crlf() const { return crlf_; }
  std::vector<Found> found;

 private:
  void count_to(std::string_view w, uint64_t base, uint64_t pos);
  std::string needle_;
  bool crlf_;
  uint64_t skip_ = 0, next_ = 0, counted_ = 0, lines_ = 0;
};

// The finders of one edit's old and new texts in both line-ending forms, for a file read once
// whose policy is known only at its end; each distinct needle is searched for once (an empty
// new text finds nothing).
class EditFinders {
 public:
  explicit EditFinders(const ReplaceEdit& e);
  std::vector<Finder>& all() { return finders_; }
  // Where the old (at) and new (fresh) texts occur in the file's form (crlf).
  const std::vector<Found>& at(bool crlf) const { return of(crlf ? old_crlf_ : old_lf_); }
  const std::vector<Found>& fresh(bool crlf) const { return of(crlf ? new_crlf_ : new_lf_); }

 private:
  int finder_of(std::string needle, bool crlf);
  const std::vector<Found>& of(int i) const;
  std::vector<Finder> finders_;
  int old_lf_, old_crlf_, new_lf_, new_crlf_;
};

struct Applied {
  uint64_t replacements = 0;
  bool already = false;  // the edit's result is there already: nothing to do
};

// Whether one edit applies, from where its old and new texts occur (`at` and `fresh`, raw
// forms of old_len and new_len bytes), or the precondition.count-mismatch that refuses it.
// Occurrences of old inside one of new are what an earlier identical call left ("foo" ->
// "foobar"): not live, so a repeat answers already. `index` (>= 0) is the edit's place in a
// list; `near` is asked for only when the old text occurs nowhere.
std::variant<Applied, contract::Error> decide(const ReplaceEdit& e, size_t old_len, size_t new_len,
                                              const std::vector<Found>& at,
                                              const std::vector<Found>& fresh, int64_t index,
                                              const std::function<contract::Json()>& near);

// `text` with the old_len bytes at each of at[0, n) replaced by `repl` (positions relative to
// `offset`, ascending, not overlapping), appended to out.
void splice(std::string_view text, uint64_t offset, const Found* at, size_t n, size_t old_len,
            std::string_view repl, std::string& out);

// splice over a text that arrives in consecutive chunks: each piece of the result is handed
// to `emit` as soon as it is known.
class Splicer {
 public:
  Splicer(const std::vector<Found>& at, size_t old_len, std::string_view repl)
      : at_(at), old_len_(old_len), repl_(repl) {}
  // The chunk holds the bytes [pos, pos + chunk.size()); chunks come in order, without gaps.
  void feed(std::string_view chunk, uint64_t pos,
            const std::function<void(std::string_view)>& emit);
  // Every occurrence has been replaced.
  bool done() const { return next_ == at_.size(); }

 private:
  const std::vector<Found>& at_;
  size_t old_len_;
  std::string_view repl_;
  size_t next_ = 0;      // the next occurrence to replace
  uint64_t resume_ = 0;  // bytes before this are emitted (or replaced)
};

// The changed regions of a text for its diff: from `context` lines before the line of each
// occurrence to `context` lines after the line its end reaches (that line too may change: a
// new text without the old one's final '\n' joins it to the next); regions that touch are one.
struct Region {
  uint64_t start, end, line;  // bytes [start, end) of the text, line: 0-based of start
  size_t first, last;         // the occurrences in it: at[first, last)
};
// back(pos, n): the offset just after the n-th '\n' before pos (0 if there are fewer) and how
// many '\n' lie between it and pos; forward(pos, n): the offset just after the n-th '\n' at
// or after pos, or the end. Either may fail (nullopt): then so does regions.
using BackFn = std::function<std::optional<std::pair<uint64_t, uint64_t>>(uint64_t, size_t)>;
using ForwardFn = std::function<std::optional<uint64_t>(uint64_t, size_t)>;
std::optional<std::vector<Region>> regions(const std::vector<Found>& at, size_t old_len,
                                           size_t context, const BackFn& back,
                                           const ForwardFn& forward);

// A list of edits applied in order to a whole text, each to the result of the one before:
// their texts in the file's line-ending form (raw_form, crlf when eol is Crlf), a BOM (bom)
// kept out of matching. `text` is the result once an edit replaced anything (it may still
// equal the input); already: every edit was found done. The first edit refused refuses all.
struct EditsApplied {
  std::optional<std::string> text;
  uint64_t replacements = 0;
  bool already = true;
};
std::variant<EditsApplied, contract::Error> apply_edits(std::string_view text, bool bom, Eol eol,
                                                        const std::vector<ReplaceEdit>& edits);

// How many '\n' a text holds.
uint64_t newlines(std::string_view s);

}  // namespace text
