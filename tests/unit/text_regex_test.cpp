// text_regex_test.cpp — the RE2 matcher: spans (leftmost-first, non-overlapping, the empty
// match rule), Unicode case folding, --word, patterns refused with RE2's own message, and the
// required-literal prefilter: a file scanned through find() (prefiltered or not) gives exactly
// the lines that matching every line on its own gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "text/regex.h"
#include "text/scan.h"

namespace {

using text::Span;

std::unique_ptr<text::Matcher> regex(const std::string& p, bool icase = false, bool word = false) {
  text::RegexError e;
  auto m = text::regex_matcher(p, icase, word, e);
  EXPECT_TRUE(m) << p << ": " << e.message;
  return m;
}

std::vector<Span> spans_of(const text::Matcher& m, std::string_view line) {
  std::vector<Span> out;
  m.spans(line, out);
  return out;
}

// The lines (1-based) a scan reports as matches, with their spans.
std::vector<std::pair<uint64_t, std::vector<Span>>> scanned(const text::Matcher& m,
                                                            const std::string& file) {
  std::vector<std::pair<uint64_t, std::vector<Span>>> got;
  text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
    const size_t n = off >= file.size() ? 0 : std::min<size_t>(len, file.size() - off);
    std::memcpy(buf, file.data() + off, n);
    return static_cast<long long>(n);
  };
  text::LineSink sink = [&](const text::LineEvent& e) {
    got.emplace_back(e.line, *e.spans);
    return true;
  };
  text::ScanBuffer buffer;
  text::ScanOptions o;
  o.chunk = 64;  // many chunk edges
  EXPECT_EQ(text::scan(m, o, read, sink, buffer).error, 0);
  return got;
}

// The same, one line at a time (as shown: a CRLF file's '\r' off), never through find().
std::vector<std::pair<uint64_t, std::vector<Span>>> line_by_line(const text::Matcher& m,
                                                                 const std::string& file,
                                                                 bool crlf) {
  std::vector<std::pair<uint64_t, std::vector<Span>>> want;
  uint64_t n = 0;
  for (size_t at = 0; at < file.size();) {
    size_t nl = file.find('\n', at);
    const size_t end = nl == std::string::npos ? file.size() : nl;
    std::string line = file.substr(at, end - at);
    if (crlf && !line.empty() && line.back() == '\r') line.pop_back();
    ++n;
    auto sp = spans_of(m, line);
    if (!sp.empty()) want.emplace_back(n, sp);
    at = end + 1;
  }
  return want;
}

TEST(RegexMatcher, SpansAreLeftmostFirstNonOverlapping) {
  auto m = regex("a+");
  EXPECT_EQ(spans_of(*m, "caaab aa"), (std::vector<Span>{{1, 4}, {6, 8}}));
  EXPECT_TRUE(spans_of(*m, "bcd").empty());
  auto alt = regex("ab|abc");  // leftmost-first, not leftmost-longest
  EXPECT_EQ(spans_of(*alt, "abc"), (std::vector<Span>{{0, 2}}));
}

TEST(RegexMatcher, AnEmptyMatchCountsOnlyWhenNothingElseDoes) {
  auto m = regex("x*");
  EXPECT_EQ(spans_of(*m, "abc"), (std::vector<Span>{{0, 0}}));
  EXPECT_EQ(spans_of(*m, "axxbx"), (std::vector<Span>{{1, 3}, {4, 5}}));
  EXPECT_EQ(spans_of(*m, ""), (std::vector<Span>{{0, 0}}));
}

TEST(RegexMatcher, CaseFoldingIsUnicode) {
  auto m = regex("café", true);
  EXPECT_EQ(spans_of(*m, "CAFÉ"), (std::vector<Span>{{0, 5}}));
  // RE2 folds k with the Kelvin sign and s with the long s; a prefilter on ASCII bytes
  // would miss those lines, so the scan must still find them.
  auto kelvin = regex("kelvin", true);
  const std::string file =
      "abc\n\xE2\x84\xAA"
      "ELVIN\nkelvin\n";
  EXPECT_EQ(scanned(*kelvin, file), line_by_line(*kelvin, file, false));
  EXPECT_EQ(scanned(*kelvin, file).size(), 2u);
  auto sun = regex("sunset", true);
  const std::string s2 = "x\n\xC5\xBFunset\n";
  EXPECT_EQ(scanned(*sun, s2).size(), 1u);
}

TEST(RegexMatcher, WordBoundsAreAsciiWordBytes) {
  auto m = regex("fo+", false, true);
  EXPECT_EQ(spans_of(*m, "foo foofoo (fooo) _foo foo_ fo"),
            (std::vector<Span>{{0, 3}, {12, 16}, {28, 30}}));
  auto latin = regex("caf", false, true);  // é is not a word character
  EXPECT_EQ(spans_of(*latin, "café"), (std::vector<Span>{{0, 3}}));
}

TEST(RegexMatcher, ABadPatternIsRefusedWithRe2sMessage) {
  text::RegexError e;
  EXPECT_FALSE(text::regex_matcher("a(b", false, false, e));
  EXPECT_NE(e.message.find("missing )"), std::string::npos) << e.message;
  EXPECT_EQ(e.argument, "a(b");
  // Wrapped for --word, "a)(b" would compile; the pattern as given is what is judged.
  e = {};
  EXPECT_FALSE(text::regex_matcher("a)(b", false, true, e));
  EXPECT_NE(e.message.find("unexpected )"), std::string::npos) << e.message;
  e = {};
  EXPECT_FALSE(text::regex_matcher("x{2,1001}", false, false, e));  // past RE2's repeat limit
  EXPECT_FALSE(e.message.empty());
}

TEST(RegexMatcher, APatternWithoutLiteralsStillScans) {
  for (const char* p : {".", "[0-9]+", "^$", "\\d\\s\\w", "(?i)[a-z]{3}"}) {
    auto m = regex(p);
    const std::string file = "abc 12\n\n a1 b\nXYZ\n";
    EXPECT_EQ(scanned(*m, file), line_by_line(*m, file, false)) << p;
  }
}

// Random files over an alphabet that makes the patterns' literals common, rare, and nearly
// there (other case, one byte short), LF or CRLF, scanned in small chunks.
TEST(RegexMatcher, PrefilteredScanAgreesWithEveryLineOnItsOwn) {
  const char* patterns[] = {"[A-Z]+_RESUME", "_RESUME$",      "PM_[A-Z]+", "ab+c",
                            "(?i)_resume",   "x_?RESUME|abc", "^PM",       "RES.ME",
                            "[a-z]+c\\b",    "\\bab",         "c$",        "(?i:pm)_RESUME",
                            // alternations: one of several literals in every match
                            "PM_RESUME|abc|_RESUM", "(?i)pm_resume|ABC", "RESUME$|abc",
                            "(PM|pm)_RES(UME|UM)", "abc|ABC|x_RESUM"};
  const char* pieces[] = {"PM_RESUME", "pm_resume", "_RESUM", "abc",      "ABC", "ab",    "x",
                          " ",         "_",         "\r",     "\xC3\xA9", "PM",  "RESUME"};
  std::mt19937 rng(11);
  int matched = 0;
  for (int round = 0; round < 600; ++round) {
    const std::string p = patterns[rng() % std::size(patterns)];
    const bool icase = rng() % 3 == 0, word = rng() % 3 == 0, crlf = rng() % 3 == 0;
    auto m = regex(p, icase, word);
    std::string file;
    const int lines = static_cast<int>(rng() % 30);
    for (int i = 0; i < lines; ++i) {
      const int n = static_cast<int>(rng() % 6);
      for (int k = 0; k < n; ++k) file += pieces[rng() % std::size(pieces)];
      if (i + 1 < lines || rng() % 2) file += crlf ? "\r\n" : "\n";
    }
    // Whether the file is all CRLF decides what a line is shown as (and what `$` sees).
    size_t nls = 0, crs = 0;
    for (size_t i = 0; i < file.size(); ++i)
      if (file[i] == '\n') ++nls, crs += i > 0 && file[i - 1] == '\r';
    const auto want = line_by_line(*m, file, nls > 0 && crs == nls);
    EXPECT_EQ(scanned(*m, file), want)
        << "pattern " << p << " icase " << icase << " word " << word << " round " << round;
    matched += !want.empty();
  }
  EXPECT_GT(matched, 200);  // the generator reaches matching lines often
}

// matches() says whether spans() would find anything: anchors, empty matches, folding, words.
TEST(RegexMatcher, MatchesIsWhetherSpansFindsAny) {
  const char* patterns[] = {"a", "^a", "a$", "b*", "^$", "(?i)A", "a.b", "\\bab\\b", "x|a_"};
  const char* lines[] = {"", "a", "ba", "ab", "A", "a b", "axb", "ab_", "x", "caf\xc3\xa9"};
  for (const char* p : patterns)
    for (int flags = 0; flags < 4; ++flags) {
      auto m = regex(p, flags & 1, flags & 2);
      for (const char* l : lines)
        EXPECT_EQ(m->matches(l), !spans_of(*m, l).empty()) << p << " in " << l << " " << flags;
    }
}

// Lines past the cap cannot be searched by RE2, but a literal every match contains can be
// looked for in them: a long line that really matches is always reported (never a false "no
// match"), a reported one holds a candidate, and a pattern without such a literal reports
// every long line, unsearched.
TEST(RegexMatcher, LongLinesAreFilteredByTheRequiredLiteralOnly) {
  const char* patterns[] = {"[A-Z]+_RESUME", "_RESUME$", "PM_[A-Z]+", "(?i)_resume",
                            "x_?RESUME|abc", "^PM",      ".",         "[0-9]+"};
  const char* pieces[] = {"PM_RESUME", "pm_resume", "_RESUM", "abc", "x", " ", "\r", "7"};
  std::mt19937 rng(5);
  int reported = 0, proven = 0;
  for (int round = 0; round < 400; ++round) {
    const std::string p = patterns[rng() % std::size(patterns)];
    auto m = regex(p, rng() % 3 == 0, rng() % 3 == 0);
    std::string file;
    std::vector<std::string> lines;
    const int count = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < count; ++i) {
      std::string line;
      const int n = static_cast<int>(rng() % 12);
      for (int k = 0; k < n; ++k) line += pieces[rng() % std::size(pieces)];
      lines.push_back(line);
      file += line + "\n";
    }
    text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
      const size_t n = off >= file.size() ? 0 : std::min<size_t>(len, file.size() - off);
      std::memcpy(buf, file.data() + off, n);
      return static_cast<long long>(n);
    };
    text::LineSink sink = [](const text::LineEvent&) { return true; };
    text::ScanBuffer buffer;
    text::ScanOptions o;
    o.max_line = 16;
    o.chunk = 1 + rng() % 16;
    const text::ScanResult r = text::scan(*m, o, read, sink, buffer);
    const std::string what = "pattern " + p + " round " + std::to_string(round);
    size_t nls = 0, crs = 0;
    for (size_t i = 0; i < file.size(); ++i)
      if (file[i] == '\n') ++nls, crs += i > 0 && file[i - 1] == '\r';
    const bool crlf = nls > 0 && crs == nls;
    std::vector<uint64_t> must, all;
    uint64_t off = 0;
    std::vector<uint64_t> starts;
    for (size_t i = 0; i < lines.size(); ++i) {
      starts.push_back(off);
      off += lines[i].size() + 1;
      if (lines[i].size() <= o.max_line) continue;
      all.push_back(i + 1);
      std::string shown = lines[i];
      if (crlf && !shown.empty() && shown.back() == '\r') shown.pop_back();
      if (!spans_of(*m, shown).empty()) must.push_back(i + 1);
    }
    for (uint64_t l : must)
      EXPECT_NE(std::find(r.long_lines.begin(), r.long_lines.end(), l), r.long_lines.end())
          << what << " line " << l;
    if (!m->long_filter()) {
      EXPECT_EQ(r.long_lines, all) << what;
      EXPECT_TRUE(r.long_offsets.empty()) << what;
    } else if (!r.long_lines.empty()) {
      EXPECT_TRUE(r.long_candidates && r.long_unsearched) << what;
      // each reported line holds a candidate, and each candidate lies in a reported line
      for (uint64_t l : r.long_lines) {
        const uint64_t b = starts[l - 1], e = b + lines[l - 1].size();
        EXPECT_TRUE(std::any_of(r.long_offsets.begin(), r.long_offsets.end(),
                                [&](uint64_t c) { return c >= b && c < e; }))
            << what << " line " << l;
      }
    }
    reported += !r.long_lines.empty();
    proven += m->long_filter() && r.long_lines.size() < all.size();
  }
  EXPECT_GT(reported, 50);
  EXPECT_GT(proven, 50);  // long lines shown not to match happen often
}

}  // namespace
