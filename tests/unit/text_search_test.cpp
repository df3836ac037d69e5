// text_search_test.cpp — the literal matcher: spans, ASCII-only case folding, word bounds, the
// empty needle, and find() held to a naive search across the SIMD block edges. (The Scanner
// that drives it is tested in text_scan_test.cpp.)
#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

#include "text/search.h"

namespace {

using text::Span;

std::vector<Span> spans_of(const text::Matcher& m, std::string_view line) {
  std::vector<Span> out;
  m.spans(line, out);
  return out;
}

TEST(LiteralMatcher, SpansAreLeftmostFirstNonOverlapping) {
  auto m = text::literal_matcher("aa", false, false);
  EXPECT_EQ(spans_of(*m, "aaaaa"), (std::vector<Span>{{0, 2}, {2, 4}}));
  EXPECT_EQ(spans_of(*m, "xaxaa"), (std::vector<Span>{{3, 5}}));
  EXPECT_TRUE(spans_of(*m, "a").empty());
}

TEST(LiteralMatcher, CaseFoldingIsAsciiOnly) {
  auto m = text::literal_matcher("Straße", true, false);
  EXPECT_EQ(spans_of(*m, "STRAße"), (std::vector<Span>{{0, 7}}));
  EXPECT_TRUE(spans_of(*m, "STRASSE").empty());
  auto e = text::literal_matcher("é", true, false);  // not folded: É is other bytes
  EXPECT_TRUE(spans_of(*e, "É").empty());
  auto at = text::literal_matcher("@", true, false);  // '@' | 0x20 is '`': never confused
  EXPECT_TRUE(spans_of(*at, "`").empty());
  EXPECT_EQ(spans_of(*at, "a@b"), (std::vector<Span>{{1, 2}}));
}

TEST(LiteralMatcher, WordBoundaries) {
  auto m = text::literal_matcher("foo", false, true);
  EXPECT_EQ(spans_of(*m, "foo foofoo (foo) _foo foo_ foo"),
            (std::vector<Span>{{0, 3}, {12, 15}, {27, 30}}));
  auto dash = text::literal_matcher("-x", false, true);  // a non-word edge needs no word
  EXPECT_EQ(spans_of(*dash, "a-x -x"), (std::vector<Span>{{4, 6}}));
  auto latin = text::literal_matcher("caf", false, true);  // a Latin-1 byte is not a word byte
  EXPECT_EQ(spans_of(*latin, "caf\xe9"), (std::vector<Span>{{0, 3}}));
}

TEST(LiteralMatcher, EmptyNeedleMatchesEveryLineOnce) {
  auto m = text::literal_matcher("", false, false);
  EXPECT_EQ(spans_of(*m, "abc"), (std::vector<Span>{{0, 0}}));
  EXPECT_EQ(spans_of(*m, ""), (std::vector<Span>{{0, 0}}));
  auto w = text::literal_matcher("", false, true);
  EXPECT_EQ(spans_of(*w, "ab  cd"), (std::vector<Span>{{3, 3}}));
  EXPECT_TRUE(spans_of(*w, "abcd").empty());
}

TEST(LiteralMatcher, FindsEveryOccurrenceAcrossSimdBlocks) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::string hay(rng() % 300, 'x');
    for (char& c : hay) c = "abcAB\n"[rng() % 6];
    std::string needle(1 + rng() % 5, 'a');
    for (char& c : needle) c = "abcAB"[rng() % 5];
    const bool icase = rng() % 2;
    auto m = text::literal_matcher(needle, icase, false);
    auto eq = [&](size_t p) {
      for (size_t i = 0; i < needle.size(); ++i) {
        char a = hay[p + i], b = needle[i];
        if (icase) a = static_cast<char>(std::tolower(a)), b = static_cast<char>(std::tolower(b));
        if (a != b) return false;
      }
      return true;
    };
    size_t from = rng() % (hay.size() + 1);
    size_t want = std::string::npos;
    for (size_t p = from; p + needle.size() <= hay.size(); ++p)
      if (eq(p)) {
        want = p;
        break;
      }
    EXPECT_EQ(m->find(hay, from), want) << needle << " in " << hay << " from " << from;
  }
}

// matches() says whether spans() would find anything, on short lines over a small alphabet
// (edges, repeats, case, word bounds, the empty needle).
TEST(LiteralMatcher, MatchesIsWhetherSpansFindsAny) {
  std::mt19937 rng(11);
  const char alphabet[] = "aAb_ -";
  for (int i = 0; i < 4000; ++i) {
    auto word = [&](size_t n) {
      std::string s;
      for (size_t k = 0; k < n; ++k) s += alphabet[rng() % 6];
      return s;
    };
    const std::string needle = word(rng() % 3), line = word(rng() % 9);
    const bool icase = rng() % 2, bounded = rng() % 2;
    auto m = text::literal_matcher(needle, icase, bounded);
    EXPECT_EQ(m->matches(line), !spans_of(*m, line).empty()) << needle << " in " << line;
  }
}

// first_in: where in a piece of a long line a match starts, with the same word and edge rules
// as spans() on a whole line; probe() is whether there is one.
TEST(LiteralMatcher, FirstInSaysWhereAMatchStartsInAPiece) {
  auto m = text::literal_matcher("key", true, true);
  ASSERT_TRUE(m->positions());
  const std::string w = "xkey KEY_ key,Key";
  EXPECT_EQ(m->first_in(w, 0, w.size(), true, true), (Span{10, 13}));
  EXPECT_EQ(m->first_in(w, 11, w.size(), true, true), (Span{14, 17}));
  // the window's end is not the line's: a word byte may follow, so the last is not yet known
  EXPECT_EQ(m->first_in(w, 11, w.size(), true, false), std::nullopt);
  // the window's start is not the line's: "key" at 0 may follow a word byte
  EXPECT_EQ(m->first_in("key x", 0, 5, false, true), std::nullopt);
  EXPECT_EQ(m->first_in("key x", 0, 5, true, true), (Span{0, 3}));
  // only starts in [begin, end) count
  EXPECT_EQ(m->first_in(w, 0, 10, true, true), std::nullopt);
  auto empty = text::literal_matcher("", false, true);
  EXPECT_EQ(empty->first_in("ab  c", 0, 5, true, true), (Span{3, 3}));  // between two spaces
  EXPECT_EQ(empty->first_in("ab c", 0, 4, true, true), std::nullopt);
  // probe agrees with first_in on random pieces
  std::mt19937 rng(9);
  for (int round = 0; round < 500; ++round) {
    std::string hay(rng() % 80, 'x');
    for (char& c : hay) c = "ab_ A"[rng() % 5];
    auto lit = text::literal_matcher(rng() % 2 ? "ab" : "a", rng() % 2, rng() % 2);
    const size_t b = rng() % (hay.size() + 1), e = b + rng() % (hay.size() + 1 - b);
    const bool s = rng() % 2, t = rng() % 2;
    const auto h = lit->first_in(hay, b, e, s, t);
    EXPECT_EQ(lit->probe(hay, b, e, s, t), h.has_value());
    if (h) {
      EXPECT_GE(h->start, b);
      EXPECT_LT(h->start, e);
    }
  }
}

}  // namespace
