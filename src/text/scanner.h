// scanner.h — the Scanner's class, shared by scan.cpp (the pass over a file: reads, regions,
// matches, context) and scan_long.cpp (lines past the cap, and the parts of a file joined).
// Internal to text/scan: callers use scan() (scan.h).
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/scan.h"

namespace text::scan_detail {

constexpr size_t kBinaryProbe = 8192;  // a NUL in the first 8 KiB makes a file binary (as peek)
constexpr size_t npos = std::string_view::npos;
constexpr size_t kPastPart = 64 * 1024;  // a part's read past its end, for its last line's '\n'

struct LineRef {
  uint64_t line, off, len;  // the raw line [off, off + len), without its '\n'
  bool too_long;
};

// One file, one pass. Invariants: the buffer holds the file bytes [base_, base_ + len_), and
// base_ is a line start; everything before pos_ has been searched; count_line_ is the number
// of the line starting at count_off_. Context lines are remembered as LineRefs (offsets), so
// a line that has left the buffer is read back with one pread when it is shown.
class Scanner {
 public:
  Scanner(const Matcher& m, const ScanOptions& o, const ReadAt& read, const LineSink& sink,
          ScanBuffer& buf)
      : m_(m),
        o_(o),
        read_(read),
        sink_(sink),
        chunk_(std::max<size_t>(1, std::min(o.chunk, o.max_line))),
        n_(o.context),
        buf_(buf) {}

  ScanResult run();

 private:
  // The byte at file offset `base_` sits `lead_` bytes into the buffer (see ScanBuffer).
  char* data() const { return buf_.data() + lead_; }
  const char* at(uint64_t off) const { return data() + (off - base_); }
  uint64_t off_of(const void* p) const { return base_ + (static_cast<const char*>(p) - data()); }
  uint64_t end() const { return base_ + len_; }

  bool fill();
  bool start_part();
  void drop(uint64_t to);   // forgets the bytes before `to`
  void shift(uint64_t to);  // drop() after counting lines and noting context up to `to`
  uint64_t line_of(uint64_t off);
  bool crlf();
  void shown(const LineRef& r, uint64_t& off, uint64_t& len);
  std::string_view text_of(uint64_t off, uint64_t len);

  void search_region(uint64_t from, uint64_t to);
  uint64_t next_hit(const Matcher& m, uint64_t p, uint64_t to);
  void count_region(uint64_t from, uint64_t to);
  template <typename F>
  void count_each(const Matcher& m, uint64_t from, uint64_t to, F&& counted);
  void on_line(uint64_t ls, uint64_t le);
  void long_line();

  void post_part();
  void identify_after(uint64_t limit);
  void flush_pend(uint64_t below_line);
  uint64_t before_match(uint64_t line, uint64_t k);
  void update_hist(uint64_t to, uint64_t line);
  void emit_context(const LineRef& r, uint64_t lo, uint64_t hi);

  const Matcher& m_;
  const ScanOptions& o_;
  const ReadAt& read_;
  const LineSink& sink_;
  const size_t chunk_;  // never more than the cap: a line past it cannot hide inside one read
  const uint64_t n_;    // context lines
  ScanResult r_;
  bool stop_ = false;

  ScanBuffer& buf_;  // the caller's, reused from file to file
  uint64_t base_ = 0;
  size_t lead_ = 0;  // base_ % ScanBuffer::kAlign
  size_t len_ = 0;
  bool eof_ = false;
  bool post_ = false;  // past a part's end (post_part): reads ignore ScanOptions::to
  uint64_t pos_ = 0;
  uint64_t count_off_ = 0, count_line_ = 1;
  bool bom_ = false, line_mode_ = false;
  bool crlf_known_ = false, crlf_ = false;
  std::vector<Span> spans_;
  std::string scratch_;
  std::vector<uint64_t> marks_;  // count_region: the ends of the lines counted, a bit each

  // Context: lines after the last match not yet shown (pend_, at most n_), how many more of
  // them are still to be found (after_want_, starting at after_next_), the number of the
  // last line that is the last match or one of its pend_ lines, and the last n_ lines before
  // the buffer (hist_), for before-context that reaches back past it.
  std::vector<LineRef> pend_;
  uint64_t after_want_ = 0, after_next_ = 0, pend_last_line_ = 0;
  std::deque<LineRef>& hist() { return hist_ ? *hist_ : hist_.emplace(); }
  std::optional<std::deque<LineRef>> hist_;  // made at first use: a deque allocates when made
};

}  // namespace text::scan_detail
