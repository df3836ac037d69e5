// text_any_of_test.cpp — several patterns as one matcher (any_of.h): spans merged and the
// patterns named per line, and the Scanner driving it held to a naive reference (each part
// asked about every line) on generated files, chunk sizes down to one byte, so the bounded
// candidate search can never skip a line that one of the parts matches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "text/any_of.h"
#include "text/regex.h"
#include "text/scan.h"

namespace {

using text::Span;

std::vector<std::unique_ptr<text::Matcher>> literals(std::vector<std::string> needles,
                                                     bool icase = false, bool word = false) {
  std::vector<std::unique_ptr<text::Matcher>> v;
  for (auto& n : needles) v.push_back(text::literal_matcher(n, icase, word));
  return v;
}

struct Line {
  std::vector<Span> spans;
  std::vector<uint32_t> patterns;
};

Line line_of(const text::Matcher& m, std::string_view line) {
  Line l;
  m.spans(line, l.spans);
  if (m.patterns()) l.patterns = *m.patterns();
  return l;
}

TEST(AnyOf, NamesThePatternsAndMergesOverlappingSpans) {
  auto m = text::any_of(literals({"foo", "bar", "bcd", "abc"}));
  Line l = line_of(*m, "foo bar");
  EXPECT_EQ(l.spans, (std::vector<Span>{{0, 3}, {4, 7}}));
  EXPECT_EQ(l.patterns, (std::vector<uint32_t>{0, 1}));
  l = line_of(*m, "abcd");
  EXPECT_EQ(l.spans, (std::vector<Span>{{0, 4}}));
  EXPECT_EQ(l.patterns, (std::vector<uint32_t>{2, 3}));
  l = line_of(*m, "nothing");
  EXPECT_TRUE(l.spans.empty());
  EXPECT_TRUE(l.patterns.empty());
  // Adjacent spans stay apart; one inside another disappears into it.
  auto n = text::any_of(literals({"ab", "cd", "abcdef", "c"}));
  l = line_of(*n, "abcd abcdef");
  EXPECT_EQ(l.spans, (std::vector<Span>{{0, 2}, {2, 4}, {5, 11}}));
  EXPECT_EQ(l.patterns, (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(AnyOf, EmptyMatchesOnlyWhereNothingElseMatches) {
  auto m = text::any_of(literals({"", "b"}));
  Line l = line_of(*m, "ab");
  EXPECT_EQ(l.spans, (std::vector<Span>{{1, 2}}));
  EXPECT_EQ(l.patterns, (std::vector<uint32_t>{0, 1}));
  l = line_of(*m, "");
  EXPECT_EQ(l.spans, (std::vector<Span>{{0, 0}}));
  EXPECT_EQ(l.patterns, (std::vector<uint32_t>{0}));
  // Duplicates are both named; their spans are one.
  auto d = text::any_of(literals({"x", "x"}));
  l = line_of(*d, "x x");
  EXPECT_EQ(l.spans, (std::vector<Span>{{0, 1}, {2, 3}}));
  EXPECT_EQ(l.patterns, (std::vector<uint32_t>{0, 1}));
}

TEST(AnyOf, LongLinesAreSearchableOnlyWhenEveryPartIs) {
  EXPECT_EQ(text::any_of(literals({"a", "abcd"}))->needle_size(), 5u);
  std::vector<std::unique_ptr<text::Matcher>> mixed = literals({"a"});
  text::RegexError err;
  mixed.push_back(text::regex_matcher("b+", false, false, err));
  ASSERT_TRUE(mixed.back());
  mixed.push_back(text::literal_matcher("abc", false, false));  // a part after it
  EXPECT_EQ(text::any_of(std::move(mixed))->needle_size(), 0u);
}

// --- the Scanner over any_of, against each part asked line by line --------------------------

std::string random_file(std::mt19937& rng) {
  const char* bits[] = {"a", "b", "ab", "A", " ", "_", "x", "\r", "\n", "\n", "ba", "abc"};
  std::string f;
  const size_t n = rng() % 400;
  while (f.size() < n) {
    if (rng() % 60 == 0) f += std::string(50 + rng() % 80, "ab"[rng() % 2]);
    f += bits[rng() % 12];
  }
  return f;
}

TEST(AnyOf, ScannerAgreesWithTheParts) {
  std::mt19937 rng(77);
  const std::vector<std::string> lits = {"ab", "a", "b a", "x", "", "_a", "abc", "ba"};
  const std::vector<std::string> res = {"b+a", "^a", "a$", "x.?b", "c\\b"};
  int matched_lines = 0, long_seen = 0;
  for (int round = 0; round < 2000; ++round) {
    const bool icase = rng() % 3 == 0, word = rng() % 4 == 0, use_re = rng() % 3 == 0;
    const size_t k = 1 + rng() % 4;
    std::vector<std::unique_ptr<text::Matcher>> parts, single;
    std::string what = "round " + std::to_string(round) + ":";
    for (size_t i = 0; i < k; ++i) {
      text::RegexError err;
      if (use_re && rng() % 2) {
        const std::string& p = res[rng() % res.size()];
        parts.push_back(text::regex_matcher(p, icase, word, err));
        single.push_back(text::regex_matcher(p, icase, word, err));
        what += " /" + p + "/";
      } else {
        const std::string& p = lits[rng() % lits.size()];
        parts.push_back(text::literal_matcher(p, icase, word));
        single.push_back(text::literal_matcher(p, icase, word));
        what += " '" + p + "'";
      }
    }
    auto m = text::any_of(std::move(parts));
    const std::string file = random_file(rng);
    text::ScanOptions o;
    o.chunk = 1 + rng() % 64;
    o.max_line = rng() % 3 == 0 ? 40 + rng() % 40 : 1 << 20;

    // The reference: each line as shown, each part asked.
    size_t nls = 0, crs = 0;
    for (size_t i = 0; i < file.size(); ++i)
      if (file[i] == '\n') ++nls, crs += i > 0 && file[i - 1] == '\r';
    const bool crlf = nls > 0 && crs == nls;
    std::vector<std::pair<uint64_t, std::vector<uint32_t>>> want;
    std::vector<uint64_t> want_long;
    uint64_t number = 0;
    for (size_t at = 0; at < file.size();) {
      const size_t nl = file.find('\n', at);
      const size_t e = nl == std::string::npos ? file.size() : nl;
      std::string s = file.substr(at, e - at);
      ++number;
      const bool too_long = s.size() > o.max_line;
      if (crlf && !s.empty() && s.back() == '\r') s.pop_back();
      std::vector<uint32_t> hit;
      for (size_t i = 0; i < single.size(); ++i) {
        std::vector<Span> sp;
        single[i]->spans(s, sp);
        if (!sp.empty()) hit.push_back(static_cast<uint32_t>(i));
      }
      if (too_long) {
        if (!hit.empty() || m->needle_size() == 0) want_long.push_back(number);
      } else if (!hit.empty()) {
        want.emplace_back(number, hit);
      }
      at = e + 1;
    }

    std::vector<std::pair<uint64_t, std::vector<uint32_t>>> got;
    text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
      if (off >= file.size()) return 0;
      const size_t n = std::min<size_t>(len, file.size() - off);
      std::memcpy(buf, file.data() + off, n);
      return static_cast<long long>(n);
    };
    text::LineSink sink = [&](const text::LineEvent& ev) {
      if (ev.kind != text::LineEvent::Kind::Match) return true;
      EXPECT_NE(ev.patterns, nullptr);
      if (ev.patterns) got.emplace_back(ev.line, *ev.patterns);
      // The spans are disjoint and ascending.
      for (size_t i = 1; i < ev.spans->size(); ++i)
        EXPECT_LE((*ev.spans)[i - 1].end, (*ev.spans)[i].start) << what;
      return true;
    };
    text::ScanBuffer buffer;
    const text::ScanResult r = text::scan(*m, o, read, sink, buffer);
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(got, want) << what << " chunk " << o.chunk << " cap " << o.max_line;
    ASSERT_EQ(r.long_lines, want_long) << what << " cap " << o.max_line;
    matched_lines += static_cast<int>(got.size());
    long_seen += !want_long.empty();
  }
  EXPECT_GT(matched_lines, 5000);
  EXPECT_GT(long_seen, 50);
}

// In a piece of a long line, the earliest start of any pattern, so a long line's occurrences
// are found for several patterns as for one; a part that cannot say where makes it say none.
TEST(AnyOf, FirstInIsTheEarliestOfEveryPart) {
  std::vector<std::unique_ptr<text::Matcher>> parts;
  parts.push_back(text::literal_matcher("key", false, false));
  parts.push_back(text::literal_matcher("ab", false, false));
  auto m = text::any_of(std::move(parts));
  ASSERT_TRUE(m->positions());
  const std::string w = "xxabxkeyab";
  auto s = m->first_in(w, 0, w.size(), true, true);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->start, 2u);
  s = m->first_in(w, 3, w.size(), true, true);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->start, 5u);
  EXPECT_FALSE(m->first_in(w, 9, w.size(), true, true));
  std::vector<std::unique_ptr<text::Matcher>> mixed;
  mixed.push_back(text::literal_matcher("key", false, false));
  text::RegexError err;
  mixed.push_back(text::regex_matcher("k.y", false, false, err));
  EXPECT_FALSE(text::any_of(std::move(mixed))->positions());
}

}  // namespace
