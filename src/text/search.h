// search.h — line search: a Matcher says where a pattern matches in a line (all matches,
// leftmost-first, non-overlapping, as byte spans) and where in a buffer of whole lines one may
// be; the Scanner (scan.h) runs one over a file.
//
// The literal matcher is here; the RE2 matcher is in regex.h, a unit of its own so that only
// the binaries that search with a regex link RE2.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace text {

struct Span {
  uint64_t start, end;  // half-open, bytes within the shown line
  bool operator==(const Span&) const = default;
};

// True for the bytes of a word: ASCII letters, digits and '_' (grep -w in the C locale).
inline bool word_byte(unsigned char c) {
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_';
}

class Matcher {
 public:
  virtual ~Matcher() = default;
  // A position in buf[from, buf.size()) inside some line that may hold a match, or npos. The
  // buffer holds whole lines; a line with a match must never be skipped over (the Scanner
  // confirms each candidate line with spans()).
  virtual size_t find(std::string_view buf, size_t from) const = 0;
  // The matches in `line` (the line as shown: no '\n', no BOM, no CRLF '\r'), appended to
  // `out` in order; the line matches when at least one was appended. Empty matches count
  // only when nothing non-empty matches: then the first one is the line's single span.
  virtual void spans(std::string_view line, std::vector<Span>& out) const = 0;
  // Whether `line` (as for spans()) holds a match at all: what a count of lines needs,
  // without finding every match.
  virtual bool matches(std::string_view line) const {
    std::vector<Span> s;
    spans(line, s);
    return !s.empty();
  }
  // The bytes of the buffer find() was last given are about to change (the Scanner reads on,
  // moves them, or starts another file): a matcher that keeps what it found ahead in that
  // buffer forgets it. Until then the buffer's bytes stay as they were.
  virtual void forget() const {}
  // True when find() cannot be trusted on this file and every line must go through spans()
  // (an RE2 pattern whose `$` would see the '\r' of a CRLF file, or that uses \A or \z).
  virtual bool line_by_line(bool crlf) const = 0;
  // Whether the Scanner must know the file's line ending before searching (see line_by_line).
  virtual bool wants_eol_first() const { return false; }
  // Long lines (past the cap) are never held. A matcher that can search a piece of one says
  // so with `needle_size() > 0`: probe() then reports whether a match starts in
  // window[begin, end) (window holds at least needle_size() bytes past `end` unless it ends
  // the line; `at_start`/`at_end`: the window's edges are the line's).
  virtual size_t needle_size() const { return 0; }
  virtual bool probe(std::string_view window, size_t begin, size_t end, bool at_start,
                     bool at_end) const {
    (void)window, (void)begin, (void)end, (void)at_start, (void)at_end;
    return false;
  }
  // A matcher of several patterns (any_of.h): the indices of the patterns that matched in the
  // line of the last spans() call, ascending. Null for a matcher of one pattern.
  virtual const std::vector<uint32_t>* patterns() const { return nullptr; }
  // A matcher of a few patterns searched one by one (any_of.h, without a set): how many, and
  // each, so that lines only counted are counted pattern by pattern, each over the buffer on
  // its own (Scanner). 0 for any other matcher.
  virtual size_t parts() const { return 0; }
  // Whether every position find() returns starts a match that lies within its line as shown
  // (a literal without --word that holds no '\r' or '\n'): a count need not confirm it.
  virtual bool exact() const { return false; }
  virtual const Matcher& part(size_t i) const {
    (void)i;
    return *this;
  }
  // Whether first_in() can say where in a piece a match is (not only whether one starts
  // there): then each occurrence in a long line is found, not just the first.
  virtual bool positions() const { return false; }
  // The first match starting in window[begin, end), as probe() sees one, with its bytes
  // relative to the window; nullopt for none.
  virtual std::optional<Span> first_in(std::string_view window, size_t begin, size_t end,
                                       bool at_start, bool at_end) const {
    (void)window, (void)begin, (void)end, (void)at_start, (void)at_end;
    return std::nullopt;
  }
  // A matcher that cannot search a piece (needle_size() == 0) may still name a literal every
  // match contains: a long line without it cannot match, and where it occurs are the only
  // places a match can be. Null when there is none.
  virtual const Matcher* long_filter() const { return nullptr; }
};

// Literal bytes. `icase`: ASCII case folding only (A-Z = a-z; other bytes exact). `word`: a
// match must have a non-word byte or the line's edge on each side.
std::unique_ptr<Matcher> literal_matcher(std::string needle, bool icase, bool word);

}  // namespace text
