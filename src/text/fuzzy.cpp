// fuzzy.cpp — fzf-style alignment: a Smith-Waterman table with affine gaps, kept one row at a
// time (memory is a few ints per path byte, whatever the query length).
#include "text/fuzzy.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace text {
namespace {

constexpr int kMatch = 16;
constexpr int kGapStart = -3;
constexpr int kGapExtension = -1;
constexpr int kBoundary = 8;
constexpr int kBoundaryDelimiter = kBoundary + 1;  // after '/': a path component starts
constexpr int kBoundaryWhite = kBoundary + 2;
constexpr int kNonWord = kBoundary;
constexpr int kCamel = kBoundary + kGapExtension;
constexpr int kConsecutive = -(kGapStart + kGapExtension);
constexpr int kFirstMultiplier = 2;
constexpr int kBasename = 2;
constexpr int kNone = INT_MIN / 4;  // no alignment ends here (far from overflow when added to)

enum class Class { White, Delimiter, NonWord, Lower, Upper, Digit };

Class class_of(unsigned char c) {
  if (c >= 'a' && c <= 'z') return Class::Lower;
  if (c >= 'A' && c <= 'Z') return Class::Upper;
  if (c >= '0' && c <= '9') return Class::Digit;
  if (c == ' ' || c == '\t' || c == '\n') return Class::White;
  if (c == '/') return Class::Delimiter;
  // Bytes of a multi-byte UTF-8 character count as word bytes: a name in another script is
  // one word, not a run of boundaries.
  if (c >= 0x80) return Class::Lower;
  return Class::NonWord;
}

int bonus_for(Class prev, Class cur) {
  bool word = cur == Class::Lower || cur == Class::Upper || cur == Class::Digit;
  if (word) {
    switch (prev) {
      case Class::White: return kBoundaryWhite;
      case Class::Delimiter: return kBoundaryDelimiter;
      case Class::NonWord: return kBoundary;
      default: break;
    }
    if (prev == Class::Lower && cur == Class::Upper) return kCamel;
    if (prev != Class::Digit && cur == Class::Digit) return kCamel;
    return 0;
  }
  if (cur == Class::White) return kBoundaryWhite;
  return kNonWord;
}

unsigned char fold(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

}  // namespace

std::optional<int> fuzzy_score(std::string_view query, std::string_view path) {
  const size_t n = query.size(), m = path.size();
  if (n == 0 || n > m) return std::nullopt;
  // Cheap rejection first: most paths of a tree do not hold the query as a subsequence.
  {
    size_t i = 0;
    for (size_t j = 0; j < m && i < n; ++j)
      if (fold(static_cast<unsigned char>(query[i])) == fold(static_cast<unsigned char>(path[j])))
        ++i;
    if (i < n) return std::nullopt;
  }
  const size_t base = path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1;
  std::vector<int> bonus(m);
  Class prev = Class::Delimiter;  // the path's start is a component's start
  for (size_t j = 0; j < m; ++j) {
    Class cur = class_of(static_cast<unsigned char>(path[j]));
    bonus[j] = bonus_for(prev, cur) + (j >= base ? kBasename : 0);
    prev = cur;
  }
  // h[j]: best score of the query so far with its last byte matched at path[j];
  // run[j]: the bonus the consecutive run ending at j carries.
  std::vector<int> h(m, kNone), run(m, 0), nh(m), nrun(m);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char q = fold(static_cast<unsigned char>(query[i]));
    int gap = kNone;  // best h[k] + gap penalties for a match at the current j, k <= j-2
    for (size_t j = 0; j < m; ++j) {
      if (i > 0 && j >= 2) {
        int opened = h[j - 2] == kNone ? kNone : h[j - 2] + kGapStart;
        int extended = gap == kNone ? kNone : gap + kGapExtension;
        gap = std::max(opened, extended);
      }
      nh[j] = kNone;
      nrun[j] = 0;
      if (fold(static_cast<unsigned char>(path[j])) != q) continue;
      if (i == 0) {
        nh[j] = kMatch + bonus[j] * kFirstMultiplier;
        nrun[j] = bonus[j];
        continue;
      }
      if (j > 0 && h[j - 1] != kNone) {
        int b = std::max({run[j - 1], kConsecutive, bonus[j]});
        nh[j] = h[j - 1] + kMatch + b;
        nrun[j] = b;
      }
      if (gap != kNone && gap + kMatch + bonus[j] > nh[j]) {
        nh[j] = gap + kMatch + bonus[j];
        nrun[j] = bonus[j];
      }
    }
    h.swap(nh);
    run.swap(nrun);
  }
  int best = *std::max_element(h.begin(), h.end());
  if (best == kNone) return std::nullopt;
  return best;
}

}  // namespace text
