// search.cpp — the literal matcher: a SIMD filter on the needle's two rarest bytes, then a
// compare.
#include "text/search.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "text/cpu.h"

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

const bool kAvx2 = has_avx2();

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
  bool exact() const override {
    return !word_ && !needle_.empty() && needle_.find_first_of("\r\n") == std::string::npos;
  }
  bool matches(std::string_view line) const override {
    return probe(line, 0, line.size(), true, true);
  }
  size_t needle_size() const override { return needle_.size() + 1; }

  bool probe(std::string_view w, size_t begin, size_t end, bool at_start,
             bool at_end) const override {
    return first_in(w, begin, end, at_start, at_end).has_value();
  }

  bool positions() const override { return true; }
  std::optional<Span> first_in(std::string_view w, size_t begin, size_t end, bool at_start,
                               bool at_end) const override {
    const size_t n = needle_.size();
    if (n == 0) {  // an empty match at any position, the line's end included
      for (size_t p = begin; p < end || (at_end && p == end); ++p)
        if (bounded(w, p, p, at_start, at_end)) return Span{p, p};
      return std::nullopt;
    }
    for (size_t pos = begin; pos < end && pos + n <= w.size();) {
      size_t s = occurrence(w.data(), w.size(), pos);
      if (s == npos || s >= end) return std::nullopt;
      if (bounded(w, s, s + n, at_start, at_end)) return Span{s, s + n};
      pos = s + 1;
    }
    return std::nullopt;
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
    size_t s = from;
    // Two blocks a turn, tested together: in text without the pair the loop does not branch
    // once per 32 bytes.
    for (; s + 32 <= last; s += 64) {
      const char* q = p + s;
      const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i1_));
      const __m256i y0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i2_));
      const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 + i1_));
      const __m256i y1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 + i2_));
      const __m256i e0 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(x0, f1), v1),
                                          _mm256_cmpeq_epi8(_mm256_or_si256(y0, f2), v2));
      const __m256i e1 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(x1, f1), v1),
                                          _mm256_cmpeq_epi8(_mm256_or_si256(y1, f2), v2));
      const __m256i any = _mm256_or_si256(e0, e1);
      if (_mm256_testz_si256(any, any)) continue;
      for (uint64_t mask = static_cast<uint32_t>(_mm256_movemask_epi8(e0)) |
                           static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(e1))) << 32;
           mask; mask &= mask - 1) {
        const size_t c = s + static_cast<size_t>(__builtin_ctzll(mask));
        if (equal_at(p + c)) return c;
      }
    }
    for (;;) {
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

}  // namespace

std::unique_ptr<Matcher> literal_matcher(std::string needle, bool icase, bool word) {
  return std::make_unique<LiteralMatcher>(std::move(needle), icase, word);
}

}  // namespace text
