// scan.cpp — the Scanner, which drives any matcher over a file read in chunks: its reads,
// regions, matches and context (lines past the cap and joined parts: scan_long.cpp).
#include "text/scan.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "text/scanner.h"

namespace text {
namespace {

// Whether the file has a '\n' and every '\n' follows a '\r', read from its start to its first
// bare '\n' (to its end when it is CRLF); false with `error` set when a read fails.
bool file_crlf(const ReadAt& read, int& error) {
  std::string tmp(64 * 1024, '\0');
  uint64_t off = 0;
  char prev = 0;
  bool seen = false;
  for (;;) {
    long long n = read(tmp.data(), tmp.size(), off);
    if (n < 0) {
      error = static_cast<int>(-n);
      return false;
    }
    for (const char* p = tmp.data();
         (p = static_cast<const char*>(std::memchr(p, '\n', tmp.data() + n - p))); ++p) {
      char before = p == tmp.data() ? prev : p[-1];
      if (before != '\r') return false;
      seen = true;
    }
    if (n > 0) prev = tmp[static_cast<size_t>(n) - 1];
    off += static_cast<uint64_t>(n);
    if (static_cast<size_t>(n) < tmp.size()) return seen;
  }
}

}  // namespace

namespace scan_detail {

bool Scanner::fill() {
  if (eof_) return true;
  if (o_.cancel && o_.cancel->load(std::memory_order_relaxed)) {
    stop_ = true;
    return false;
  }
  // A part reads to its end and then only as far as the '\n' that ends its last line.
  size_t want = chunk_;
  const uint64_t from = end();
  const bool part = o_.to != UINT64_MAX && !post_;
  if (part)
    want = from < o_.to ? static_cast<size_t>(std::min<uint64_t>(chunk_, o_.to - from))
                        : std::min<size_t>(chunk_, kPastPart);
  if (buf_.size() < lead_ + len_ + want) buf_.grow(lead_ + len_ + want, lead_ + len_);
  long long n = read_(data() + len_, want, from);
  if (n < 0) {
    r_.error = static_cast<int>(-n);
    stop_ = true;
    return false;
  }
  len_ += static_cast<size_t>(n);
  if (static_cast<size_t>(n) < want) eof_ = true;
  // The first line start at or past `to` (after a '\n' at to - 1 or later) is the next part's.
  if (part && end() >= o_.to) {
    const uint64_t look = std::max(from, o_.to - 1);
    if (const void* nl = std::memchr(at(look), '\n', static_cast<size_t>(end() - look))) {
      len_ = static_cast<size_t>(off_of(nl) + 1 - base_);
      eof_ = true;
      r_.more = true;
    }
  }
  return true;
}

void Scanner::drop(uint64_t to) {
  const size_t k = static_cast<size_t>(to - base_);
  if (k == 0) return;
  const size_t lead = static_cast<size_t>(to % ScanBuffer::kAlign);
  std::memmove(buf_.data() + lead, data() + k, len_ - k);
  len_ -= k;
  base_ = to;
  lead_ = lead;
}

void Scanner::shift(uint64_t to) {
  const uint64_t line = line_of(to);
  if (n_ > 0) {
    identify_after(to);
    flush_pend(line);
    update_hist(to, line);
  }
  drop(to);
}

uint64_t Scanner::line_of(uint64_t off) {
  count_line_ += count_newlines(at(count_off_), static_cast<size_t>(off - count_off_));
  count_off_ = off;
  return count_line_;
}

// The file is CRLF when it has a '\n' and every '\n' follows a '\r'. Most files answer at
// their first line; only a CRLF file is read to the end (once, and only when a line of it is
// shown or a regex needs to know).
bool Scanner::crlf() {
  if (crlf_known_) return crlf_;
  crlf_known_ = true;
  crlf_ = false;
  if (base_ == 0) {
    if (const void* nl = std::memchr(data(), '\n', len_)) {
      const char* p = static_cast<const char*>(nl);
      if (p == data() || p[-1] != '\r') return false;
    }
  }
  int error = 0;
  if (o_.eol) {
    std::call_once(o_.eol->once, [&] { o_.eol->crlf = file_crlf(read_, o_.eol->error); });
    crlf_ = o_.eol->crlf;
    error = o_.eol->error;
  } else {
    crlf_ = file_crlf(read_, error);
  }
  if (error) {
    r_.error = error;
    stop_ = true;
  }
  return crlf_;
}

// The line as shown: without a leading BOM on line 1, without the '\r' of a CRLF file's line
// ending (a '\r' that ends an unterminated last line is the line's own, as peek shows it).
void Scanner::shown(const LineRef& r, uint64_t& off, uint64_t& len) {
  off = r.off;
  len = r.len;
  if (r.off == 0 && bom_) {
    off += 3;
    len -= std::min<uint64_t>(3, len);
  }
  const uint64_t raw_end = r.off + r.len;  // its '\n', or the end of the file
  char after = 0;
  const bool terminated = raw_end >= base_ && raw_end < end() ? true
                          : raw_end == end() && eof_          ? false
                                                              : read_(&after, 1, raw_end) == 1;
  if (len > 0 && terminated && crlf()) {
    char last;
    if (off + len - 1 >= base_ && off + len <= end()) {
      last = *at(off + len - 1);
    } else if (read_(&last, 1, off + len - 1) != 1) {
      last = 0;
    }
    if (last == '\r') --len;
  }
}

std::string_view Scanner::text_of(uint64_t off, uint64_t len) {
  if (off >= base_ && off + len <= end()) return {at(off), static_cast<size_t>(len)};
  scratch_.resize(static_cast<size_t>(len));
  long long n = read_(scratch_.data(), scratch_.size(), off);
  if (n < 0) {
    r_.error = static_cast<int>(-n);
    stop_ = true;
    n = 0;
  }
  scratch_.resize(static_cast<size_t>(n));
  return scratch_;
}

void Scanner::emit_context(const LineRef& r, uint64_t lo, uint64_t hi) {
  if (stop_) return;
  LineEvent ev{LineEvent::Kind::Context, r.line, 0, {}, 0, r.too_long, nullptr, lo, hi};
  ev.binary = r_.binary;
  shown(r, ev.offset, ev.length);
  if (!r.too_long) ev.text = text_of(ev.offset, ev.length);
  if (!stop_ && !sink_(ev)) stop_ = true;
}

void Scanner::identify_after(uint64_t limit) {
  while (after_want_ > 0 && after_next_ < limit) {
    const void* nl = std::memchr(at(after_next_), '\n', static_cast<size_t>(limit - after_next_));
    const uint64_t le = nl ? off_of(nl) : limit;
    pend_.push_back({++pend_last_line_, after_next_, le - after_next_, false});
    --after_want_;
    after_next_ = le + 1;
  }
}

void Scanner::flush_pend(uint64_t below_line) {
  size_t k = 0;
  while (k < pend_.size() && pend_[k].line + n_ < below_line) {
    emit_context(pend_[k], r_.found - 1, r_.found - 1);
    ++k;
  }
  pend_.erase(pend_.begin(), pend_.begin() + static_cast<long>(k));
}

void Scanner::update_hist(uint64_t to, uint64_t line) {
  std::vector<LineRef> found;
  uint64_t e = to;
  while (found.size() < n_ && e > base_) {
    const uint64_t le = e - 1;  // the '\n' ending the line
    const void* nl =
        le > base_ ? memrchr(at(base_), '\n', static_cast<size_t>(le - base_)) : nullptr;
    const uint64_t ls = nl ? off_of(nl) + 1 : base_;
    found.push_back({--line, ls, le - ls, false});
    e = ls;
  }
  std::deque<LineRef>& h = hist();
  if (found.size() >= n_) h.clear();
  for (auto it = found.rbegin(); it != found.rend(); ++it) h.push_back(*it);
  while (h.size() > n_) h.pop_front();
}

// Before the k-th match, at `line`: the after-context lines still pending go out (those within
// --context of it are its before-context too), and the first line its before-context may show
// (none already shown).
uint64_t Scanner::before_match(uint64_t line, uint64_t k) {
  for (const LineRef& p : pend_) emit_context(p, k - 1, p.line + n_ >= line ? k : k - 1);
  pend_.clear();
  return std::max<uint64_t>(line > n_ ? line - n_ : 1, pend_last_line_ + 1);
}

void Scanner::on_line(uint64_t ls, uint64_t le) {
  LineRef ref{0, ls, le - ls, false};
  uint64_t so, sl;
  shown(ref, so, sl);
  if (stop_) return;
  spans_.clear();
  m_.spans(std::string_view(at(so), static_cast<size_t>(sl)), spans_);
  if (spans_.empty()) return;
  const uint64_t line = line_of(ls);
  const uint64_t k = r_.found;
  if (n_ > 0) {
    identify_after(ls);
    // Before-context: back from this line, not into lines already shown.
    const uint64_t first = before_match(line, k);
    std::vector<LineRef> before;
    uint64_t e = ls, num = line;
    while (num > first && e > base_) {
      const uint64_t lend = e - 1;
      const void* nl =
          lend > base_ ? memrchr(at(base_), '\n', static_cast<size_t>(lend - base_)) : nullptr;
      const uint64_t lstart = nl ? off_of(nl) + 1 : base_;
      before.push_back({--num, lstart, lend - lstart, false});
      e = lstart;
    }
    const std::deque<LineRef>& h = hist();
    for (auto it = h.rbegin(); it != h.rend() && num > first; ++it)
      if (it->line == num - 1) before.push_back(*it), --num;
    for (auto it = before.rbegin(); it != before.rend(); ++it) emit_context(*it, k, k);
  }
  if (stop_) return;
  LineEvent ev{LineEvent::Kind::Match,
               line,
               so,
               std::string_view(at(so), static_cast<size_t>(sl)),
               sl,
               false,
               &spans_,
               k,
               k};
  ev.patterns = m_.patterns();
  ev.binary = r_.binary;
  ++r_.found;
  if (!sink_(ev)) stop_ = true;
  pend_last_line_ = line;
  after_next_ = le + 1;
  after_want_ = n_;
  if (r_.found >= o_.max_matches) {
    stop_ = true;
    r_.stopped = true;
  }
}

// Where `m` finds a candidate in the region's lines [p, to), as a file offset; UINT64_MAX for
// none. A hit at `to` itself is an empty match at the end of a last line without '\n'; after
// a '\n' it would belong to the next line, which the next region holds.
uint64_t Scanner::next_hit(const Matcher& m, uint64_t p, uint64_t to) {
  const std::string_view view(data(), static_cast<size_t>(to - base_));
  const size_t h = m.find(view, static_cast<size_t>(p - base_));
  if (h == npos || base_ + h > to || (base_ + h == to && *at(to - 1) == '\n')) return UINT64_MAX;
  return base_ + h;
}

void Scanner::search_region(uint64_t from, uint64_t to) {
  m_.forget();  // the buffer has changed since the last region
  uint64_t p = from;
  auto line_end = [&](uint64_t x) {
    const void* nl = std::memchr(at(x), '\n', static_cast<size_t>(to - x));
    return nl ? off_of(nl) : to;
  };
  // Line 1 of a file with a BOM is matched as shown, which a buffer search cannot do.
  if (p == 0 && bom_ && p < to) {
    const uint64_t le = line_end(0);
    on_line(0, le);
    p = le + 1;
  }
  if (o_.count_only && !line_mode_ && (m_.patterns() == nullptr || m_.parts() > 0)) {
    count_region(p, to);
    return;
  }
  if (line_mode_) {
    for (; p < to && !stop_;) {
      const uint64_t le = line_end(p);
      on_line(p, le);
      p = le + 1;
    }
    return;
  }
  while (p < to && !stop_) {
    const uint64_t hit = next_hit(m_, p, to);
    if (hit == UINT64_MAX) return;
    const void* nl = hit > p ? memrchr(at(p), '\n', static_cast<size_t>(hit - p)) : nullptr;
    const uint64_t ls = nl ? off_of(nl) + 1 : p;
    const uint64_t le = line_end(hit);
    on_line(ls, le);
    p = le + 1;
  }
}

// Lines only counted: each candidate `m` finds is confirmed on its line as shown (unless
// every one is a match: Matcher::exact), and the search goes on from the next line; `counted`
// is given the end of each line that matches.
template <typename F>
void Scanner::count_each(const Matcher& m, uint64_t from, uint64_t to, F&& counted) {
  const bool exact = m.exact();
  for (uint64_t p = from; p < to && !stop_;) {
    const uint64_t hit = next_hit(m, p, to);
    if (hit == UINT64_MAX) return;
    const void* end = std::memchr(at(hit), '\n', static_cast<size_t>(to - hit));
    const uint64_t le = end ? off_of(end) : to;
    if (exact) {
      counted(le);
    } else {
      const void* nl = hit > p ? memrchr(at(p), '\n', static_cast<size_t>(hit - p)) : nullptr;
      const uint64_t ls = nl ? off_of(nl) + 1 : p;
      uint64_t so, sl;
      shown({0, ls, le - ls, false}, so, sl);
      if (m.matches(std::string_view(at(so), static_cast<size_t>(sl)))) counted(le);
    }
    p = le + 1;
  }
}

// A few patterns one by one: each over the whole region (its scans never restarted by the
// others' hits), a line any of them matched counted once, by its end's bit.
void Scanner::count_region(uint64_t from, uint64_t to) {
  if (from >= to) return;
  const size_t n = m_.parts();
  if (n == 0) {
    count_each(m_, from, to, [&](uint64_t) { ++r_.found; });
    return;
  }
  bool marking = false;  // the bits are cleared at the region's first match, if any
  for (size_t i = 0; i < n; ++i) {
    const Matcher& m = m_.part(i);
    m.forget();
    count_each(m, from, to, [&](uint64_t le) {
      if (o_.pattern_counts) ++o_.pattern_counts[i];
      if (!marking) marks_.assign(static_cast<size_t>((to - from) / 64 + 1), 0), marking = true;
      const uint64_t b = le - from;
      uint64_t& w = marks_[static_cast<size_t>(b / 64)];
      const uint64_t bit = uint64_t{1} << (b % 64);
      r_.found += (w & bit) == 0;
      w |= bit;
    });
  }
}

ScanResult Scanner::run() {
  if (o_.to <= o_.from) {  // a part that no line can start in
    r_.part_done = true;
    return r_;
  }
  std::string_view head;
  if (o_.from == 0) {
    if (!fill()) return r_;
    head = std::string_view(data(), std::min(len_, kBinaryProbe));
  }
  std::string probe;
  if (head.size() < kBinaryProbe && (o_.from > 0 || !eof_)) {
    probe.resize(kBinaryProbe);
    long long n = read_(probe.data(), probe.size(), 0);
    if (n < 0) {
      r_.error = static_cast<int>(-n);
      return r_;
    }
    probe.resize(static_cast<size_t>(n));
    head = probe;
  }
  r_.binary = head.find('\0') != npos;
  bom_ = head.substr(0, 3) == "\xEF\xBB\xBF";
  if (r_.binary && o_.skip_binary) {
    r_.skipped = true;
    return r_;
  }
  if (o_.from > 0 && !start_part()) return r_;
  if (m_.wants_eol_first()) crlf();
  line_mode_ = m_.line_by_line(crlf_known_ && crlf_);
  while (!stop_) {
    uint64_t cend = end();
    if (!eof_) {
      const void* nl = memrchr(at(pos_), '\n', static_cast<size_t>(end() - pos_));
      cend = nl ? off_of(nl) + 1 : pos_;
    }
    if (cend > pos_) {
      search_region(pos_, cend);
      pos_ = cend;
    }
    if (eof_ || stop_) break;
    shift(pos_);
    // Read until the line at base_ is whole, or known to be longer than the cap.
    for (;;) {
      const size_t before = len_;
      if (!fill()) break;
      if (const void* nl = std::memchr(data() + before, '\n', len_ - before)) {
        if (off_of(nl) - base_ > o_.max_line) long_line();
        break;
      }
      if (len_ > o_.max_line) {
        long_line();
        break;
      }
      if (eof_) break;
    }
  }
  // A part that ends before the file does, with context: its last match's after-context and
  // the next part's first match's before-context may cross the edge (post_part).
  const bool post = o_.to != UINT64_MAX && !stop_ && r_.more && n_ > 0;
  if (!stop_ && n_ > 0 && !post) {
    identify_after(end());
    flush_pend(UINT64_MAX);
  }
  if (o_.to != UINT64_MAX && !stop_) {
    r_.part_done = true;
    if (r_.more) r_.newlines = line_of(end()) - 1;
  }
  if (stop_) r_.more = false;
  if (post) post_part();  // after the part's own results: nothing it finds is counted
  if (crlf_known_) r_.crlf = crlf_;
  return r_;
}

// Past a part's last line, with context: what one scan of the file would show there that only
// this part can. The next part searches from its first line on and cannot see back past it, so
// its first match's before-context that lies in this part is shown here; and this part's last
// match's after-context runs on into the next part's lines, up to the first that matches (from
// there on the lines are the next part's to show). Only the next --context lines are looked at;
// a line past the cap is never a match, as in one scan. Page drops a line shown twice, here as
// after-context and by the next part as before-context.
void Scanner::post_part() {
  const uint64_t s0 = end();  // the next part's first line
  shift(s0);                  // hist_: this part's last lines
  const uint64_t s0_line = count_line_;
  post_ = true;
  eof_ = false;
  m_.forget();
  for (uint64_t line = s0_line; line < s0_line + n_ && !stop_; ++line) {
    // The line at base_, whole in the buffer or known to be past the cap.
    const void* nl = nullptr;
    for (;;) {
      nl = std::memchr(data(), '\n', len_);
      if (nl || len_ > o_.max_line || eof_) break;
      if (!fill()) return;
    }
    if (!nl && len_ == 0) break;  // the end of the file
    const uint64_t ls = base_;
    uint64_t le = nl ? off_of(nl) : end();
    if (le - ls > o_.max_line) {  // past the cap: read to its end, a context line without text
      while (!nl && !eof_) {
        drop(end());
        if (!fill()) return;
        nl = std::memchr(data(), '\n', len_);
        le = nl ? off_of(nl) : end();
      }
      if (after_want_ > 0) {
        pend_.push_back({++pend_last_line_, ls, le - ls, true});
        --after_want_;
      }
      drop(std::min(le + 1, end()));
      continue;
    }
    uint64_t so, sl;
    shown({line, ls, le - ls, false}, so, sl);
    if (stop_) return;
    spans_.clear();
    m_.spans(std::string_view(at(so), static_cast<size_t>(sl)), spans_);
    if (!spans_.empty()) {  // the next part's first match
      const uint64_t k = r_.found;
      const uint64_t first = before_match(line, k);
      for (const LineRef& h : hist())
        if (h.line >= first && h.line < s0_line) emit_context(h, k, k);
      return;
    }
    if (after_want_ > 0) {
      pend_.push_back({++pend_last_line_, ls, le - ls, false});
      --after_want_;
    }
    drop(std::min(le + 1, end()));
  }
  flush_pend(UINT64_MAX);
}

// A part's first line: the first that starts at or past `from`, after a '\n' at from - 1 or
// later. None when no '\n' is in [from - 1, to - 1): the line that holds `from` runs to the
// next part (and is the part's before it), and the part is not read to that line's end: a
// file of one long line is read once, not once for each part. false when a read failed.
bool Scanner::start_part() {
  base_ = o_.from - 1;
  lead_ = static_cast<size_t>(base_ % ScanBuffer::kAlign);
  const uint64_t last = o_.to - 1;  // a '\n' here or later starts the next part's line
  for (;;) {
    if (!fill()) return false;
    const uint64_t upto = std::min(end(), last);
    if (const void* nl = std::memchr(data(), '\n', static_cast<size_t>(upto - base_))) {
      drop(off_of(nl) + 1);
      break;
    }
    if (eof_ || end() >= last) {  // no line starts in the part
      drop(end());
      eof_ = true;
      break;
    }
    drop(end());
  }
  pos_ = count_off_ = base_;
  return true;
}

}  // namespace scan_detail

void ScanBuffer::grow(size_t n, size_t keep) {
  if (n <= size_) return;
  n = std::max(n, size_ + size_ / 2);
  n = (n + kAlign - 1) / kAlign * kAlign;
  Memory fresh(static_cast<char*>(std::aligned_alloc(kAlign, n)));
  if (!fresh) throw std::bad_alloc();
  keep = std::min(keep, size_);  // a fresh buffer has nothing to keep before a part's lead
  if (keep) std::memcpy(fresh.get(), p_.get(), keep);
  p_ = std::move(fresh);
  size_ = n;
}

ScanResult scan(const Matcher& m, const ScanOptions& opts, const ReadAt& read, const LineSink& sink,
                ScanBuffer& buffer) {
  scan_detail::Scanner s(m, opts, read, sink, buffer);
  return s.run();
}

}  // namespace text
