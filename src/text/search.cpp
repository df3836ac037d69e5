// search.cpp — the literal matcher (a SIMD two-byte filter, then a compare), newline
// counting, and the Scanner that drives any matcher over a file read in chunks.
#include "text/search.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace text {
namespace {

// How common each byte is in text and source code, 0 = rarest (measured once on a mixed
// corpus of C headers, Python and documentation). The filter tests the two rarest bytes of
// the needle, so it wakes up for candidates as seldom as possible.
constexpr unsigned char kRank[256] = {
    0,   1,   2,   3,   4,   5,   6,   7,   8,   188, 242, 9,   108, 143, 10,  11,  12,  13,  14,
    15,  16,  17,  18,  19,  61,  20,  21,  22,  23,  24,  25,  26,  255, 162, 207, 208, 161, 160,
    170, 191, 232, 233, 231, 166, 222, 211, 217, 238, 215, 212, 202, 192, 190, 195, 184, 178, 187,
    194, 206, 198, 213, 199, 214, 159, 171, 220, 193, 221, 205, 234, 201, 200, 186, 227, 169, 185,
    226, 204, 229, 228, 216, 164, 223, 240, 230, 196, 181, 175, 197, 179, 165, 183, 177, 182, 155,
    251, 180, 247, 224, 245, 243, 254, 237, 225, 239, 249, 189, 218, 244, 235, 250, 248, 241, 172,
    246, 252, 253, 236, 209, 203, 210, 219, 176, 174, 163, 173, 156, 27,  154, 104, 144, 113, 105,
    101, 97,  124, 117, 111, 67,  81,  95,  110, 82,  88,  123, 85,  84,  114, 153, 77,  86,  71,
    130, 147, 92,  89,  148, 146, 74,  149, 167, 141, 100, 127, 131, 106, 120, 122, 119, 152, 79,
    150, 115, 126, 96,  76,  132, 136, 134, 121, 137, 133, 145, 63,  140, 75,  135, 109, 128, 129,
    139, 94,  28,  29,  168, 158, 125, 138, 65,  30,  68,  78,  64,  70,  83,  31,  90,  107, 151,
    142, 32,  33,  34,  35,  36,  102, 72,  73,  37,  38,  39,  40,  41,  42,  116, 112, 157, 87,
    98,  118, 99,  93,  91,  103, 58,  43,  44,  45,  46,  80,  69,  47,  48,  62,  59,  49,  60,
    50,  51,  52,  57,  53,  54,  66,  55,  56,
};

bool is_alpha(unsigned char c) {
  return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}
unsigned char lower(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? c | 0x20 : c;
}

const bool kAvx2 = __builtin_cpu_supports("avx2");

__attribute__((target("avx2"))) uint64_t count_avx2(const char* p, size_t n) {
  const __m256i nl = _mm256_set1_epi8('\n');
  uint64_t total = 0;
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    const __m256i* q = reinterpret_cast<const __m256i*>(p + i);
    const uint32_t a =
        static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(q), nl)));
    const uint32_t b = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(q + 1), nl)));
    const uint32_t c = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(q + 2), nl)));
    const uint32_t d = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256(q + 3), nl)));
    total += __builtin_popcount(a) + __builtin_popcount(b) + __builtin_popcount(c) +
             __builtin_popcount(d);
  }
  for (; i + 32 <= n; i += 32) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    total +=
        __builtin_popcount(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl))));
  }
  for (; i < n; ++i) total += p[i] == '\n';
  return total;
}

uint64_t count_sse2(const char* p, size_t n) {
  const __m128i nl = _mm_set1_epi8('\n');
  uint64_t total = 0;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    total += __builtin_popcount(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl))));
  }
  for (; i < n; ++i) total += p[i] == '\n';
  return total;
}

class LiteralMatcher final : public Matcher {
 public:
  LiteralMatcher(std::string needle, bool icase, bool word)
      : needle_(std::move(needle)), icase_(icase), word_(word) {
    folded_ = needle_;
    if (icase_)
      for (char& c : folded_) c = static_cast<char>(lower(static_cast<unsigned char>(c)));
    const size_t n = needle_.size();
    if (n == 0) return;
    // The rarest byte first, then the rarest at another offset.
    auto rank = [&](size_t i) {
      unsigned char c = static_cast<unsigned char>(folded_[i]);
      if (icase_ && is_alpha(c)) return std::max(kRank[c], kRank[c & ~0x20]);
      return kRank[c];
    };
    i1_ = 0;
    for (size_t i = 1; i < n; ++i)
      if (rank(i) < rank(i1_)) i1_ = i;
    i2_ = i1_;
    for (size_t i = 0; i < n; ++i) {
      if (i == i1_) continue;
      if (i2_ == i1_ || rank(i) < rank(i2_) ||
          (rank(i) == rank(i2_) && folded_[i] != folded_[i1_] && folded_[i2_] == folded_[i1_]))
        i2_ = i;
    }
    if (i2_ < i1_) std::swap(i1_, i2_);
    c1_ = static_cast<unsigned char>(folded_[i1_]);
    c2_ = static_cast<unsigned char>(folded_[i2_]);
    m1_ = icase_ && is_alpha(c1_) ? 0x20 : 0;
    m2_ = icase_ && is_alpha(c2_) ? 0x20 : 0;
  }

  size_t find(std::string_view buf, size_t from) const override {
    if (needle_.empty()) return from < buf.size() || (from == 0 && buf.empty()) ? from : npos;
    return occurrence(buf.data(), buf.size(), from);
  }

  void spans(std::string_view line, std::vector<Span>& out) const override {
    const size_t n = needle_.size();
    if (n == 0) {
      for (size_t p = 0; p <= line.size(); ++p) {
        if (bounded(line, p, p, true, true)) {
          out.push_back({p, p});
          return;
        }
      }
      return;
    }
    size_t pos = 0;
    while (pos + n <= line.size()) {
      size_t s = occurrence(line.data(), line.size(), pos);
      if (s == npos) return;
      if (bounded(line, s, s + n, true, true)) {
        out.push_back({s, s + n});
        pos = s + n;
      } else {
        pos = s + 1;
      }
    }
  }

  bool line_by_line(bool) const override { return false; }
  size_t needle_size() const override { return needle_.size() + 1; }

  bool probe(std::string_view w, size_t begin, size_t end, bool at_start,
             bool at_end) const override {
    const size_t n = needle_.size();
    if (n == 0) {  // an empty match at any position, the line's end included
      for (size_t p = begin; p < end || (at_end && p == end); ++p)
        if (bounded(w, p, p, at_start, at_end)) return true;
      return false;
    }
    for (size_t pos = begin; pos < end && pos + n <= w.size();) {
      size_t s = occurrence(w.data(), w.size(), pos);
      if (s == npos || s >= end) return false;
      if (bounded(w, s, s + n, at_start, at_end)) return true;
      pos = s + 1;
    }
    return false;
  }

 private:
  static constexpr size_t npos = std::string_view::npos;

  // --word: a non-word byte or the line's edge on both sides of [s, e).
  bool bounded(std::string_view t, size_t s, size_t e, bool at_start, bool at_end) const {
    if (!word_) return true;
    if (s > 0 ? word_byte(static_cast<unsigned char>(t[s - 1])) : !at_start) return false;
    if (e < t.size() ? word_byte(static_cast<unsigned char>(t[e])) : !at_end) return false;
    return true;
  }

  bool equal_at(const char* p) const {
    if (!icase_) return std::memcmp(p, needle_.data(), needle_.size()) == 0;
    for (size_t i = 0; i < folded_.size(); ++i)
      if (lower(static_cast<unsigned char>(p[i])) != static_cast<unsigned char>(folded_[i]))
        return false;
    return true;
  }

  // The first occurrence of the needle starting in [from, n - len], or npos.
  size_t occurrence(const char* p, size_t n, size_t from) const {
    const size_t len = needle_.size();
    if (from > n || n - from < len) return npos;
    if (len == 1 && !m1_) {
      const void* hit = std::memchr(p + from, c1_, n - from);
      return hit ? static_cast<const char*>(hit) - p : npos;
    }
    // Whole blocks of candidates, then one last block that ends at the last candidate and
    // overlaps the ones already seen (masked off): a short line costs one block, not a loop.
    if (kAvx2 && n - from >= len + 31) return scan_avx2(p, n, from);
    if (n - from >= len + 15) return scan_sse2(p, n, from);
    for (size_t s = from; s + len <= n; ++s) {
      if ((static_cast<unsigned char>(p[s + i1_]) | m1_) != c1_) continue;
      if ((static_cast<unsigned char>(p[s + i2_]) | m2_) != c2_) continue;
      if (equal_at(p + s)) return s;
    }
    return npos;
  }

  // Candidates [from, n - len], 32 at a time; needs n - from >= len + 31.
  __attribute__((target("avx2"))) size_t scan_avx2(const char* p, size_t n, size_t from) const {
    const size_t len = needle_.size();
    const __m256i v1 = _mm256_set1_epi8(static_cast<char>(c1_));
    const __m256i v2 = _mm256_set1_epi8(static_cast<char>(c2_));
    const __m256i f1 = _mm256_set1_epi8(static_cast<char>(m1_));
    const __m256i f2 = _mm256_set1_epi8(static_cast<char>(m2_));
    const size_t last = n - len - 31;  // the start of the last whole block
    for (size_t s = from;;) {
      const size_t b = std::min(s, last);
      __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + b + i1_));
      __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + b + i2_));
      __m256i eq = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(x, f1), v1),
                                    _mm256_cmpeq_epi8(_mm256_or_si256(y, f2), v2));
      uint32_t mask = static_cast<uint32_t>(_mm256_movemask_epi8(eq));
      mask &= ~0u << (s - b);  // candidates before s were seen in the block before
      while (mask) {
        size_t c = b + static_cast<size_t>(__builtin_ctz(mask));
        if (equal_at(p + c)) return c;
        mask &= mask - 1;
      }
      if (b == last) return npos;
      s = b + 32;
    }
  }

  // The same, 16 at a time; needs n - from >= len + 15.
  size_t scan_sse2(const char* p, size_t n, size_t from) const {
    const size_t len = needle_.size();
    const __m128i v1 = _mm_set1_epi8(static_cast<char>(c1_));
    const __m128i v2 = _mm_set1_epi8(static_cast<char>(c2_));
    const __m128i f1 = _mm_set1_epi8(static_cast<char>(m1_));
    const __m128i f2 = _mm_set1_epi8(static_cast<char>(m2_));
    const size_t last = n - len - 15;
    for (size_t s = from;;) {
      const size_t b = std::min(s, last);
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + b + i1_));
      __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + b + i2_));
      __m128i eq = _mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(x, f1), v1),
                                 _mm_cmpeq_epi8(_mm_or_si128(y, f2), v2));
      uint32_t mask = static_cast<uint32_t>(_mm_movemask_epi8(eq));
      mask &= ~0u << (s - b);
      while (mask) {
        size_t c = b + static_cast<size_t>(__builtin_ctz(mask));
        if (equal_at(p + c)) return c;
        mask &= mask - 1;
      }
      if (b == last) return npos;
      s = b + 16;
    }
  }

  std::string needle_, folded_;
  bool icase_, word_;
  size_t i1_ = 0, i2_ = 0;
  unsigned char c1_ = 0, c2_ = 0, m1_ = 0, m2_ = 0;
};

// --- Scanner -------------------------------------------------------------------------------

constexpr size_t kBinaryProbe = 8192;  // a NUL in the first 8 KiB makes a file binary (as peek)
constexpr size_t npos = std::string_view::npos;

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
          std::vector<char>& buf)
      : m_(m),
        o_(o),
        read_(read),
        sink_(sink),
        chunk_(std::max<size_t>(1, std::min(o.chunk, o.max_line))),
        n_(o.context),
        buf_(buf) {}

  ScanResult run();

 private:
  const char* at(uint64_t off) const { return buf_.data() + (off - base_); }
  uint64_t off_of(const void* p) const {
    return base_ + (static_cast<const char*>(p) - buf_.data());
  }
  uint64_t end() const { return base_ + len_; }

  bool fill();
  void drop(uint64_t to);   // forgets the bytes before `to`
  void shift(uint64_t to);  // drop() after counting lines and noting context up to `to`
  uint64_t line_of(uint64_t off);
  bool crlf();
  void shown(const LineRef& r, uint64_t& off, uint64_t& len);
  std::string_view text_of(uint64_t off, uint64_t len);

  void search_region(uint64_t from, uint64_t to);
  void on_line(uint64_t ls, uint64_t le);
  void long_line();

  void identify_after(uint64_t limit);
  void flush_pend(uint64_t below_line);
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

  std::vector<char>& buf_;  // the caller's, reused from file to file
  uint64_t base_ = 0;
  size_t len_ = 0;
  bool eof_ = false;
  uint64_t pos_ = 0;
  uint64_t count_off_ = 0, count_line_ = 1;
  bool bom_ = false, line_mode_ = false;
  bool crlf_known_ = false, crlf_ = false;
  std::vector<Span> spans_;
  std::string scratch_;

  // Context: lines after the last match not yet shown (pend_, at most n_), how many more of
  // them are still to be found (after_want_, starting at after_next_), the number of the
  // last line that is the last match or one of its pend_ lines, and the last n_ lines before
  // the buffer (hist_), for before-context that reaches back past it.
  std::vector<LineRef> pend_;
  uint64_t after_want_ = 0, after_next_ = 0, pend_last_line_ = 0;
  std::deque<LineRef> hist_;
};

bool Scanner::fill() {
  if (eof_) return true;
  if (buf_.size() < len_ + chunk_) buf_.resize(len_ + chunk_);
  long long n = read_(buf_.data() + len_, chunk_, base_ + len_);
  if (n < 0) {
    r_.error = static_cast<int>(-n);
    stop_ = true;
    return false;
  }
  len_ += static_cast<size_t>(n);
  if (static_cast<size_t>(n) < chunk_) eof_ = true;
  return true;
}

void Scanner::drop(uint64_t to) {
  const size_t k = static_cast<size_t>(to - base_);
  if (k == 0) return;
  std::memmove(buf_.data(), buf_.data() + k, len_ - k);
  len_ -= k;
  base_ = to;
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
    if (const void* nl = std::memchr(buf_.data(), '\n', len_)) {
      const char* p = static_cast<const char*>(nl);
      if (p == buf_.data() || p[-1] != '\r') return false;
    }
  }
  std::string tmp(64 * 1024, '\0');
  uint64_t off = 0;
  char prev = 0;
  bool seen = false;
  for (;;) {
    long long n = read_(tmp.data(), tmp.size(), off);
    if (n < 0) {
      r_.error = static_cast<int>(-n);
      stop_ = true;
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
    if (static_cast<size_t>(n) < tmp.size()) break;
  }
  crlf_ = seen;
  return crlf_;
}

// The line as shown: without a leading BOM on line 1, without the '\r' of a CRLF file.
void Scanner::shown(const LineRef& r, uint64_t& off, uint64_t& len) {
  off = r.off;
  len = r.len;
  if (r.off == 0 && bom_) {
    off += 3;
    len -= std::min<uint64_t>(3, len);
  }
  if (len > 0 && crlf()) {
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
  if (found.size() >= n_) hist_.clear();
  for (auto it = found.rbegin(); it != found.rend(); ++it) hist_.push_back(*it);
  while (hist_.size() > n_) hist_.pop_front();
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
    for (const LineRef& p : pend_) emit_context(p, k - 1, p.line + n_ >= line ? k : k - 1);
    pend_.clear();
    // Before-context: back from this line, not into lines already shown.
    const uint64_t first = std::max<uint64_t>({line > n_ ? line - n_ : 1, pend_last_line_ + 1, 1});
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
    for (auto it = hist_.rbegin(); it != hist_.rend() && num > first; ++it)
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

void Scanner::search_region(uint64_t from, uint64_t to) {
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
  if (line_mode_) {
    for (; p < to && !stop_;) {
      const uint64_t le = line_end(p);
      on_line(p, le);
      p = le + 1;
    }
    return;
  }
  const std::string_view view(buf_.data(), static_cast<size_t>(to - base_));
  while (p < to && !stop_) {
    const size_t h = m_.find(view, static_cast<size_t>(p - base_));
    // A hit at `to` itself is an empty match at the end of a last line without '\n'; after
    // a '\n' it would belong to the next line, which the next region holds.
    if (h == npos || base_ + h > to || (base_ + h == to && *at(to - 1) == '\n')) return;
    const uint64_t hit = base_ + h;
    const void* nl = hit > p ? memrchr(at(p), '\n', static_cast<size_t>(hit - p)) : nullptr;
    const uint64_t ls = nl ? off_of(nl) + 1 : p;
    const uint64_t le = line_end(hit);
    on_line(ls, le);
    p = le + 1;
  }
}

// The line at base_ is longer than the cap: it is read in pieces and never held. A literal
// is still looked for in it (each start probed once, with the bytes a --word check needs);
// a matcher that cannot search a piece leaves it unsearched, and the result says so.
void Scanner::long_line() {
  const uint64_t ls = base_;
  const uint64_t line = line_of(ls);
  const size_t need = m_.needle_size();
  const uint64_t shown_start = (ls == 0 && bom_) ? 3 : ls;
  uint64_t next = shown_start;  // the next start to probe
  uint64_t nl_from = ls;
  uint64_t le = 0;
  bool matched = false;
  for (;;) {
    const void* nl = std::memchr(at(nl_from), '\n', static_cast<size_t>(end() - nl_from));
    if (nl || eof_) {
      le = nl ? off_of(nl) : end();
      if (need && !matched) {
        uint64_t se = le;
        if (se > next && crlf() && *at(se - 1) == '\r') --se;
        const uint64_t ws = next > shown_start ? next - 1 : next;
        if (se >= next)  // (an empty needle can match at the very end)
          matched = m_.probe({at(ws), static_cast<size_t>(se - ws)}, next - ws, se - ws,
                             ws == shown_start, true);
      }
      break;
    }
    if (need && !matched && end() > next + need) {
      const uint64_t lim = end() - need;
      const uint64_t ws = next > shown_start ? next - 1 : next;
      matched = m_.probe({at(ws), static_cast<size_t>(end() - ws)}, next - ws, lim - ws,
                         ws == shown_start, false);
      next = lim;
    }
    uint64_t keep = end();
    if (need && !matched) keep = next > shown_start ? next - 1 : next;
    nl_from = end();
    drop(std::min(keep, end()));
    if (!fill() || stop_) return;
  }
  const uint64_t length = le - ls;
  if (matched || need == 0) {
    ++r_.long_count;
    r_.longest = std::max(r_.longest, length);
    if (r_.long_lines.size() < o_.max_long_lines) r_.long_lines.push_back(line);
    if (need == 0) r_.long_unsearched = true;
  }
  const LineRef ref{line, ls, length, true};
  if (n_ > 0) {
    if (after_want_ > 0) {
      pend_.push_back(ref);
      ++pend_last_line_;
      --after_want_;
    }
    hist_.push_back(ref);
    while (hist_.size() > n_) hist_.pop_front();
  }
  after_next_ = le + 1;
  drop(std::min(le + 1, end()));
  count_off_ = base_;
  count_line_ = line + 1;
  pos_ = base_;
}

ScanResult Scanner::run() {
  if (!fill()) return r_;
  std::string_view head(buf_.data(), std::min(len_, kBinaryProbe));
  std::string probe;
  if (head.size() < kBinaryProbe && !eof_) {
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
      if (const void* nl = std::memchr(buf_.data() + before, '\n', len_ - before)) {
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
  if (!stop_ && n_ > 0) {
    identify_after(end());
    flush_pend(UINT64_MAX);
  }
  if (crlf_known_) r_.crlf = crlf_;
  return r_;
}

}  // namespace

uint64_t count_newlines(const char* p, size_t n) {
  return kAvx2 ? count_avx2(p, n) : count_sse2(p, n);
}

std::unique_ptr<Matcher> literal_matcher(std::string needle, bool icase, bool word) {
  return std::make_unique<LiteralMatcher>(std::move(needle), icase, word);
}

}  // namespace text

namespace text {

ScanResult scan(const Matcher& m, const ScanOptions& opts, const ReadAt& read, const LineSink& sink,
                std::vector<char>& buffer) {
  Scanner s(m, opts, read, sink, buffer);
  return s.run();
}

}  // namespace text
