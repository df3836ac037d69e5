// text_pattern_set_test.cpp — the one-scan pattern set (pattern_set.h) changes nothing but the
// time: the Scanner driving any_of with the set gives exactly the events (lines, offsets,
// spans, patterns named) that it gives without, over random pattern lists (literals and RE2
// patterns, -i, --word, non-ASCII) and random files (CRLF, a BOM, bytes that are not UTF-8,
// NULs, long lines), chunk sizes down to one byte.
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "text/any_of.h"
#include "text/pattern_set.h"
#include "text/regex.h"
#include "text/scan.h"

namespace {

using text::Span;

struct Event {
  uint64_t line, offset;
  bool match;
  std::vector<Span> spans;
  std::vector<uint32_t> patterns;
  bool operator==(const Event&) const = default;
};

struct Outcome {
  std::vector<Event> events;
  std::vector<uint64_t> long_lines;
  uint64_t found = 0;
  bool operator==(const Outcome&) const = default;
};

// Printed on a failure: the events one per line, so that the first difference shows.
void PrintTo(const Outcome& o, std::ostream* os) {
  *os << "found " << o.found << ", long lines " << o.long_lines.size() << "\n";
  for (const Event& e : o.events) {
    *os << (e.match ? "  match " : "  context ") << e.line << " @" << e.offset << " spans";
    for (const Span& s : e.spans) *os << " [" << s.start << "," << s.end << ")";
    *os << " patterns";
    for (uint32_t p : e.patterns) *os << " " << p;
    *os << "\n";
  }
}

Outcome scan_all(const text::Matcher& m, const std::string& file, const text::ScanOptions& o) {
  Outcome out;
  text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
    if (off >= file.size()) return 0;
    const size_t n = std::min<size_t>(len, file.size() - off);
    std::memcpy(buf, file.data() + off, n);
    return static_cast<long long>(n);
  };
  text::LineSink sink = [&](const text::LineEvent& ev) {
    Event e{ev.line, ev.offset, ev.kind == text::LineEvent::Kind::Match, {}, {}};
    if (e.match) e.spans = *ev.spans;
    if (ev.patterns) e.patterns = *ev.patterns;
    out.events.push_back(std::move(e));
    return true;
  };
  text::ScanBuffer buffer;
  const text::ScanResult r = text::scan(m, o, read, sink, buffer);
  out.long_lines = r.long_lines;
  out.found = r.found;
  return out;
}

std::string random_file(std::mt19937& rng) {
  const char* bits[] = {"ab",  "PM_", "RESUME", "Resume", " ",    "_",   "x1",   "\r\n", "\n",
                        "\n",  "é",   "Müller", "\xff", "\xc3", "K",    "\xe2\x84\xaa", "s",
                        "\t",  "(",   "a.b",    "\0",   "zz",   "k",    "abc"};
  constexpr size_t n_bits = sizeof(bits) / sizeof(bits[0]);
  std::string f;
  if (rng() % 8 == 0) f = "\xef\xbb\xbf";
  const size_t n = rng() % 600;
  while (f.size() < n) {
    if (rng() % 80 == 0) f += std::string(40 + rng() % 90, "ab"[rng() % 2]);
    const char* b = bits[rng() % n_bits];
    f.append(b, *b ? std::strlen(b) : 1);
  }
  if (rng() % 3 == 0) {  // CRLF throughout
    std::string c;
    for (char ch : f) {
      if (ch == '\n' && (c.empty() || c.back() != '\r')) c += '\r';
      c += ch;
    }
    f = c;
  }
  return f;
}

const std::vector<std::string> kLiterals = {"ab", "a", "b a", "x1", "_a", "abc", "PM_RESUME",
                                            "resume", "é", "Müller", "\xff", "k", "s", "a.b",
                                            "(", "zz\tab", "RESUME\r"};
const std::vector<std::string> kRegexes = {
    "b+a",         "^a",        "a$",          "x.?b",          "c\\b",      "[A-Z]+_RESUME",
    "PM_(RESUME|SUSPEND)",      "\\w{2}\\s+\\w", "[^a]b",     "\\Wb",          "a.b",
    "(?P<n>ab)c",  "[[:upper:]]{2}", "\\x41B",  "ab|^zz",        "\\d",       "[]a]",
    "é+",          "(?i)ab",    "R.*E",        "[a-c]{2,3}$",   "\\Sa",      "b\\.",
    "u(s|m)e"};

TEST(PatternSet, ScanIsTheSameWithAndWithoutTheSet) {
  std::mt19937 rng(4242);
  int built = 0, matched = 0;
  for (int round = 0; round < 3000; ++round) {
    const bool icase = rng() % 3 == 0, word = rng() % 4 == 0, regex = rng() % 2 == 0;
    const size_t k = 1 + rng() % 6;
    std::vector<std::string> pats;
    for (size_t i = 0; i < k; ++i)
      pats.push_back(regex ? kRegexes[rng() % kRegexes.size()] : kLiterals[rng() % kLiterals.size()]);
    auto parts = [&] {
      std::vector<std::unique_ptr<text::Matcher>> v;
      for (const auto& p : pats) {
        text::RegexError err;
        v.push_back(regex ? text::regex_matcher(p, icase, word, err)
                          : text::literal_matcher(p, icase, word));
      }
      return v;
    };
    auto set = text::pattern_set(pats, regex ? text::SetSyntax::Regex : text::SetSyntax::Literal,
                                 icase);
    built += set != nullptr;
    auto plain = text::any_of(parts());
    // The set from the start, or (lazily built) after a few lines searched without it.
    const bool lazy = rng() % 4 == 0;
    auto fast = lazy ? text::any_of(parts(),
                                    text::lazy_pattern_set(pats, regex ? text::SetSyntax::Regex
                                                                       : text::SetSyntax::Literal,
                                                           icase),
                                    50 + rng() % 200)
                     : text::any_of(parts(), set, 0);
    std::string what = "round " + std::to_string(round) + (lazy ? " lazy" : "") + (regex ? " regex" : " literal") +
                       (icase ? " -i" : "") + (word ? " --word" : "") + ":";
    for (const auto& p : pats) what += " '" + p + "'";
    for (int f = 0; f < 3; ++f) {
      const std::string file = random_file(rng);
      text::ScanOptions o;
      o.chunk = 1 + rng() % 200;
      o.max_line = rng() % 4 == 0 ? 40 + rng() % 40 : 1 << 20;
      o.context = rng() % 3;
      const Outcome want = scan_all(*plain, file, o);
      const Outcome got = scan_all(*fast, file, o);
      ASSERT_EQ(got, want) << what << " chunk " << o.chunk << " cap " << o.max_line;
      matched += static_cast<int>(want.found);
    }
  }
  EXPECT_GT(built, 1500);  // the set was there to be tested most of the time
  EXPECT_GT(matched, 20000);
}

// Buffers far longer than a slice of the set's scan (64 KiB first, doubling to 256 KiB), with
// matches dense and sparse, chunks from a page to past the slices, and a stop after a few
// matches: every slice boundary, and every line a slice names, gives the same events.
TEST(PatternSet, LongBuffersAreTheSameSliceBySlice) {
  std::mt19937 rng(99);
  int matched = 0, rounds_with_set = 0;
  for (int round = 0; round < 40; ++round) {
    const bool regex = round % 2 == 1, icase = round % 5 == 0;
    std::vector<std::string> pats;
    for (size_t i = 0, k = 1 + rng() % 5; i < k; ++i)
      pats.push_back(regex ? kRegexes[rng() % kRegexes.size()] : kLiterals[rng() % kLiterals.size()]);
    const auto syntax = regex ? text::SetSyntax::Regex : text::SetSyntax::Literal;
    auto set = text::pattern_set(pats, syntax, icase);
    if (!set) continue;
    ++rounds_with_set;
    auto parts = [&] {
      std::vector<std::unique_ptr<text::Matcher>> v;
      for (const auto& p : pats) {
        text::RegexError err;
        v.push_back(regex ? text::regex_matcher(p, icase, false, err)
                          : text::literal_matcher(p, icase, false));
      }
      return v;
    };
    auto plain = text::any_of(parts());
    auto fast = text::any_of(parts(), set, 0);
    // Stretches without a match between dense ones, so that slices end both in a match and
    // in a desert.
    std::string file;
    const size_t size = 100000 + rng() % 700000;
    while (file.size() < size) {
      if (rng() % 3 == 0) {
        for (size_t n = rng() % 20000; n > 0; n -= std::min<size_t>(n, 30))
          file += "-----------------------------\n";
      } else {
        file += random_file(rng);
        file += '\n';
      }
    }
    text::ScanOptions o;
    const size_t chunks[] = {4096, 65536, 256 * 1024, 1 << 20};
    o.chunk = chunks[rng() % 4];
    o.context = rng() % 2;
    if (rng() % 4 == 0) o.max_matches = 1 + rng() % 50;
    const Outcome want = scan_all(*plain, file, o);
    const Outcome got = scan_all(*fast, file, o);
    ASSERT_EQ(got, want) << "round " << round << " chunk " << o.chunk;
    matched += static_cast<int>(want.found);
  }
  EXPECT_GT(rounds_with_set, 20);
  EXPECT_GT(matched, 5000);
}

// One regex whose lines a set of it alone names (set_filtered): the same events as RE2 alone,
// the set taken at once or after a few lines, -i and --word included.
TEST(PatternSet, OneRegexThroughItsSetIsTheSame) {
  std::mt19937 rng(5150);
  std::vector<std::string> res = kRegexes;
  for (const char* p : {"PM_RESUME|PM_SUSPEND|ab", "\\w{2}\\s+\\w{2}", "[A-Z]+_[A-Z]", "(a|b)+x1",
                        "[^ ]{3}$", "^\\s*\\w", "x\\d?\\b"})
    res.push_back(p);
  int built = 0, matched = 0;
  for (int round = 0; round < 800; ++round) {
    const bool icase = rng() % 4 == 0, word = rng() % 4 == 0, lazy = rng() % 3 == 0;
    const std::string& p = res[rng() % res.size()];
    auto set = lazy ? text::lazy_pattern_set({p}, text::SetSyntax::Regex, icase)
                    : text::pattern_set({p}, text::SetSyntax::Regex, icase);
    built += set != nullptr;
    text::RegexError err;
    auto plain = text::regex_matcher(p, icase, word, err);
    ASSERT_TRUE(plain) << p;
    auto fast = text::set_filtered(text::regex_matcher(p, icase, word, err), set,
                                   lazy ? 50 + rng() % 200 : 0);
    for (int f = 0; f < 3; ++f) {
      std::string file = random_file(rng);
      const bool big = rng() % 16 == 0;  // past a slice of the set's scan
      if (big)
        while (file.size() < 100000) file += random_file(rng) + "\n";
      text::ScanOptions o;
      o.chunk = big ? 4096 + rng() % 300000 : 1 + rng() % 5000;
      o.max_line = rng() % 4 == 0 ? 40 + rng() % 40 : 1 << 20;
      o.context = rng() % 3;
      const Outcome want = scan_all(*plain, file, o);
      const Outcome got = scan_all(*fast, file, o);
      ASSERT_EQ(got, want) << "round " << round << " /" << p << "/" << (icase ? " -i" : "")
                           << (word ? " --word" : "") << (lazy ? " lazy" : "") << " chunk "
                           << o.chunk;
      matched += static_cast<int>(want.found);
    }
  }
  EXPECT_GT(built, 350);
  EXPECT_GT(matched, 10000);
}

// Where Hyperscan could read a pattern otherwise than RE2 does, no set is built.
TEST(PatternSet, RefusesWhatItCannotKeep) {
  EXPECT_EQ(text::hyperscan_spelling("é", false), "");
  EXPECT_EQ(text::hyperscan_spelling("(?i)a", false), "");
  EXPECT_EQ(text::hyperscan_spelling("\\pL", false), "");
  EXPECT_EQ(text::hyperscan_spelling("\\Aa", false), "");
  EXPECT_EQ(text::hyperscan_spelling("\\Qa.b\\E", false), "");
  EXPECT_EQ(text::hyperscan_spelling("\\x{212A}", false), "");
  // Under RE2's case folding k and s also match the Kelvin sign and the long s.
  EXPECT_EQ(text::hyperscan_spelling("ok", true), "");
  EXPECT_EQ(text::hyperscan_spelling("[a-z]", true), "");
  EXPECT_EQ(text::hyperscan_spelling("\\w", true), "");
  EXPECT_EQ(text::hyperscan_spelling("ab", true), "ab");
  // A character of UTF-8 is one to four bytes where Hyperscan's byte mode takes one.
  EXPECT_EQ(text::hyperscan_spelling("a.b", false), "a(?:[^\\n]{1,4})b");
  EXPECT_EQ(text::hyperscan_spelling("a.*b", false), "a(?:[^\\n]{1,4})*b");
  EXPECT_EQ(text::hyperscan_spelling("[^a]", false), "(?:[^a]|[\\x80-\\xff]{2,4})");
  EXPECT_EQ(text::hyperscan_spelling("(?P<x>a)", false), "(a)");
  EXPECT_EQ(text::pattern_set({"a", ""}, text::SetSyntax::Literal, false), nullptr);
#ifdef TACK_HYPERSCAN
  // Every spelling above compiles: a repetition of a widened `.` or class included.
  EXPECT_NE(text::pattern_set({"R.*E", "x.?b", "[^a]+b", "\\W{2}", "(?P<n>ab)c"},
                              text::SetSyntax::Regex, false),
            nullptr);
#endif
  EXPECT_EQ(text::pattern_set({"a", "b*"}, text::SetSyntax::Regex, false), nullptr);
}

TEST(PatternSet, NamesEveryPatternThatMatchesALine) {
  auto set = text::pattern_set({"PM_RESUME", "pm_suspend", "zz"}, text::SetSyntax::Literal, true);
  if (!set) GTEST_SKIP() << "no multi-pattern engine on this machine";
  auto sc = set->scanner();
  std::vector<uint32_t> ids;
  sc->which("x pm_resume PM_SUSPEND", ids);
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 1}));
  sc->which("nothing", ids);
  EXPECT_TRUE(ids.empty());
  const std::string buf = "one\ntwo zz\nthree\n";
  const size_t at = sc->first(buf, 0);
  EXPECT_GE(at, 4u);
  EXPECT_LT(at, 10u);
  EXPECT_EQ(sc->first(buf, 11), std::string_view::npos);
}

// A lazy set is made once, by the first thread that asks; try_scanner() in a thread that
// finds another making it says so (false) instead of waiting, and every thread ends with a
// scanner that finds what the eager set finds; a set that cannot be built gives null scanners
// either way.
TEST(PatternSet, ALazySetIsMadeOnceWhoeverAsks) {
  std::vector<std::string> pats;
  for (int i = 0; i < 120; ++i) pats.push_back("[a-z]+_N" + std::to_string(i) + "\\d{2,4}[A-Z]*");
  auto eager = text::pattern_set(pats, text::SetSyntax::Regex, false);
  if (!eager) GTEST_SKIP() << "no multi-pattern engine on this machine";
  const std::string buf = "nothing here\nsome words pm_N7123ABC more\n";
  const size_t want = eager->scanner()->first(buf, 0);
  ASSERT_NE(want, std::string_view::npos);

  int waited_not = 0;  // try_scanner answers of "another thread is making it"
  for (int round = 0; round < 4; ++round) {
    auto lazy = text::lazy_pattern_set(pats, text::SetSyntax::Regex, false);
    std::vector<size_t> found(4, 0);
    std::vector<int> not_ready(4, 0);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < found.size(); ++t)
      threads.emplace_back([&, t] {
        std::unique_ptr<text::SetScanner> sc;
        if (t == 0) {
          sc = lazy->scanner();  // waits for whoever makes it
        } else {
          while (!lazy->try_scanner(sc)) ++not_ready[t];
        }
        found[t] = sc ? sc->first(buf, 0) : std::string_view::npos;
      });
    for (auto& th : threads) th.join();
    for (size_t t = 0; t < found.size(); ++t) EXPECT_EQ(found[t], want) << "thread " << t;
    for (int n : not_ready) waited_not += n;
    std::unique_ptr<text::SetScanner> again;
    EXPECT_TRUE(lazy->try_scanner(again));  // made: never not ready again
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->first(buf, 0), want);
  }

  // Compiling these takes tens of milliseconds; three threads asking meanwhile are told so.
  RecordProperty("not ready answers", waited_not);
  EXPECT_GT(waited_not, 0);

  auto unbuildable = text::lazy_pattern_set({"a", "b*"}, text::SetSyntax::Regex, false);
  std::unique_ptr<text::SetScanner> none =
      text::pattern_set({"x"}, text::SetSyntax::Literal, false)->scanner();
  EXPECT_TRUE(unbuildable->try_scanner(none));
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(unbuildable->scanner(), nullptr);
}

}  // namespace
