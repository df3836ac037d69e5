// search.h — line search: a Matcher says where a pattern matches in a line (all matches,
// leftmost-first, non-overlapping, as byte spans); a Scanner runs one over a file read in
// chunks and reports matching lines and their context with line numbers and byte offsets.
//
// Speed comes from searching the whole buffer for the pattern and finding line boundaries only
// around hits (never splitting every line first), and from counting newlines only when a line
// number is needed. Memory is one chunk plus the longest line (capped): a line longer than
// the cap is never held; it is scanned in pieces and reported.
//
// The literal matcher is here; the RE2 matcher lives with seek (the only binary that links
// RE2) and plugs into the same interface.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
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
};

// Literal bytes. `icase`: ASCII case folding only (A-Z = a-z; other bytes exact). `word`: a
// match must have a non-word byte or the line's edge on each side.
std::unique_ptr<Matcher> literal_matcher(std::string needle, bool icase, bool word);

// Counts '\n' in [p, p + n).
uint64_t count_newlines(const char* p, size_t n);

// --- Scanner ------------------------------------------------------------------------------

struct ScanOptions {
  size_t max_line = 1 << 20;          // a longer line is never held (--max-line-bytes)
  uint64_t context = 0;               // lines of context before and after each match
  uint64_t max_matches = UINT64_MAX;  // stop after this many matching lines
  size_t chunk = 256 * 1024;          // bytes read at a time
  bool skip_binary = false;           // a NUL in the first 8 KiB: report binary, search nothing
  size_t max_long_lines = 100;        // long lines listed by number (all are counted)
};

struct LineEvent {
  enum class Kind { Match, Context } kind;
  uint64_t line;                   // 1-based
  uint64_t offset;                 // byte offset in the file of the line as shown
  std::string_view text;           // the line as shown; empty when too_long
  uint64_t length;                 // its length in bytes
  bool too_long;                   // a context line past the cap: no text
  const std::vector<Span>* spans;  // Match: never empty
  // Match: its ordinal among the file's matching lines (from 0). Context: the ordinals of
  // the matches whose window holds the line, [lo, hi] (hi is lo or lo + 1).
  uint64_t lo, hi;
};

struct ScanResult {
  bool binary = false;   // a NUL in the first 8 KiB
  bool skipped = false;  // binary with skip_binary: nothing searched
  bool crlf = false;     // every '\n' follows a '\r' (known once a line was shown)
  uint64_t found = 0;    // matching lines
  bool stopped = false;  // stopped at max_matches or by the sink
  // Lines longer than the cap that match (literal) or that could not be searched (regex).
  std::vector<uint64_t> long_lines;  // the first max_long_lines line numbers
  uint64_t long_count = 0, longest = 0;
  bool long_unsearched = false;  // the matcher cannot search a piece: long lines unsearched
  int error = 0;                 // errno of a failed read
};

// pread semantics: fills buf with up to len bytes at offset; returns the count (short only at
// end of file) or -errno.
using ReadAt = std::function<long long(char* buf, size_t len, uint64_t offset)>;
// Receives each event; returns false to stop the scan.
using LineSink = std::function<bool(const LineEvent&)>;

// `buffer` is scratch memory the caller keeps from file to file (it grows to a chunk plus the
// longest line held, and is never shrunk), so a walk of many small files allocates once.
ScanResult scan(const Matcher& m, const ScanOptions& opts, const ReadAt& read, const LineSink& sink,
                std::vector<char>& buffer);

}  // namespace text
