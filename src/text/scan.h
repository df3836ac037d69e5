// scan.h — the Scanner: runs a Matcher (search.h) over a file read in chunks and reports
// matching lines and their context with line numbers and byte offsets.
//
// Speed comes from searching the whole buffer for the pattern and finding line boundaries only
// around hits (never splitting every line first), and from counting newlines only when a line
// number is needed. Memory is one chunk plus the longest line (capped): a line longer than
// the cap is never held; it is scanned in pieces and reported.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "text/newlines.h"
#include "text/search.h"

namespace text {

// A file's line endings (ScanResult::crlf), found once for all the parts of a file that is
// searched in parts on several threads (ScanOptions::from): one part reads the file for them,
// the others wait for its answer.
struct FileEol {
  std::once_flag once;
  bool crlf = false;
  int error = 0;  // errno of a failed read
};

struct ScanOptions {
  size_t max_line = 1 << 20;          // a longer line is never held (--max-line-bytes)
  uint64_t context = 0;               // lines of context before and after each match
  uint64_t max_matches = UINT64_MAX;  // stop after this many matching lines
  size_t chunk = 256 * 1024;          // bytes read at a time
  bool skip_binary = false;           // a NUL in the first 8 KiB: report binary, search nothing
  size_t max_long_lines = 100;        // long lines listed by number (all are counted)
  size_t max_long_offsets = 100;      // occurrences in long lines listed by offset (all counted)
  // Matching lines are only counted (no context, no max_matches): the sink hears of none
  // found in the buffer, `found` counts them, and with a matcher of several patterns searched
  // one by one (Matcher::parts) each is run over the buffer on its own, adding the lines it
  // matches to pattern_counts[i] (when given; one per pattern). Lines past the cap and, with
  // any other matcher of several patterns, every line still go to the sink as before.
  bool count_only = false;
  uint64_t* pattern_counts = nullptr;
  // One part of a file: only the lines that start in [from, to) are searched (a line that
  // starts before `to` is read to its end). Line numbers and match ordinals then count from
  // the part's first line, and ScanResult::newlines says how many lines it held, so that the
  // parts of a file, joined in order, say what one scan of it says. The binary probe, the BOM
  // and the line endings are still the whole file's; `eol` (shared by the parts) finds the
  // endings once.
  uint64_t from = 0, to = UINT64_MAX;
  FileEol* eol = nullptr;
  // Set by another thread when nothing more will be taken: the scan stops at its next read
  // (a large file without a match in sight ends there, not at its end).
  const std::atomic<bool>* cancel = nullptr;
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
  // Match, with a matcher of several patterns: which of them matched (Matcher::patterns()).
  const std::vector<uint32_t>* patterns = nullptr;
  // The file's binary probe (ScanResult::binary), known before its first event: a caller that
  // hands events to another thread as they come can say it with them.
  bool binary = false;
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
  // Where the pattern occurs in those lines, when the matcher can say (Matcher::positions):
  // the file offsets of the first max_long_offsets occurrences (non-overlapping, as spans
  // are), how many there are in all, and the shown bytes [start, end) of the line holding
  // the first. Found streaming: the line is never held.
  bool long_located = false;
  // With a matcher that cannot search a piece but names a literal every match contains
  // (Matcher::long_filter): a long line without it is proven not to match and is not
  // reported; the offsets above are then that literal's, the only places a match can start
  // near, and the lines stay unsearched.
  bool long_candidates = false;
  std::vector<uint64_t> long_offsets;
  uint64_t long_occurrences = 0;
  uint64_t first_long_start = 0, first_long_end = 0;
  int error = 0;                 // errno of a failed read
  // A part (ScanOptions::from, to) scanned to its end: part_done. `more`: it ended at the
  // '\n' at or past to - 1, not at the end of the file (the lines after it are the next
  // part's), and `newlines` is the count of '\n' in its lines (0 otherwise: no line follows).
  uint64_t newlines = 0;
  bool part_done = false;
  bool more = false;
};

// pread semantics: fills buf with up to len bytes at offset; returns the count (short only at
// end of file) or -errno.
using ReadAt = std::function<long long(char* buf, size_t len, uint64_t offset)>;
// Receives each event; returns false to stop the scan.
using LineSink = std::function<bool(const LineEvent&)>;

// Scratch memory the caller keeps from file to file: it grows to a chunk plus the longest line
// held and is never shrunk, so a walk of many small files allocates once. Never zero-filled:
// a fresh page costs a fault, and a small file should touch only the pages its bytes fill.
//
// Aligned to kAlign, and the Scanner keeps each file byte at an address congruent to its file
// offset modulo kAlign: the kernel's copy from the page cache into a destination that is not
// so aligned (malloc's 16 bytes past a page) took twice as long on the AMD EPYC machine the
// benchmarks run on, and that copy is the largest single cost of searching a source tree.
class ScanBuffer {
 public:
  static constexpr size_t kAlign = 64;
  char* data() const { return p_.get(); }
  size_t size() const { return size_; }
  // At least n bytes, the first `keep` of them kept.
  void grow(size_t n, size_t keep);

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  using Memory = std::unique_ptr<char, Free>;
  Memory p_;
  size_t size_ = 0;
};

ScanResult scan(const Matcher& m, const ScanOptions& opts, const ReadAt& read, const LineSink& sink,
                ScanBuffer& buffer);

// Adds the result of a file's next part to that of the parts before it (`into`), which held
// `lines_before` lines: what one scan of both would have said (long lines renumbered from the
// file's first line, the lists of them and of their offsets still cut at o's caps).
void join_part(ScanResult& into, const ScanResult& part, uint64_t lines_before,
               const ScanOptions& o);

// The bytes [from, to) around the first occurrence in a long line (r.long_offsets.front(),
// `needle` bytes long, which must exist): up to `side` bytes either side, within that line, and
// not cutting a UTF-8 character at either edge (a continuation byte is stepped over), so that a
// reader shows text rather than base64 where the line is UTF-8.
std::pair<uint64_t, uint64_t> window_around(const ScanResult& r, uint64_t needle, uint64_t side,
                                            const ReadAt& read);

}  // namespace text
