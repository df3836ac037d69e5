// text_scan_test.cpp — the Scanner, held to a naive reference (split every line, test every
// position) on hostile generated files: CRLF and mixed endings, NUL, Latin-1, a BOM, lines
// past the cap, no final newline, and chunk sizes down to one byte so every boundary case is
// crossed. Same seed every run. The literal matcher drives it; its own tests are in
// text_search_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "text/any_of.h"
#include "text/regex.h"
#include "text/scan.h"

namespace {

using text::LineEvent;
using text::Span;

std::vector<Span> spans_of(const text::Matcher& m, std::string_view line) {
  std::vector<Span> out;
  m.spans(line, out);
  return out;
}

TEST(CountNewlines, MatchesANaiveCount) {
  std::mt19937 rng(3);
  for (int round = 0; round < 200; ++round) {
    std::string s(rng() % 1000, 'a');
    for (char& c : s) c = rng() % 5 == 0 ? '\n' : 'x';
    size_t off = rng() % (s.size() + 1);
    EXPECT_EQ(text::count_newlines(s.data() + off, s.size() - off),
              static_cast<uint64_t>(std::count(s.begin() + static_cast<long>(off), s.end(), '\n')));
  }
}

// --- the Scanner against a reference -------------------------------------------------------

struct Ev {
  bool match;
  uint64_t line, offset;
  std::string text;
  uint64_t length;
  bool too_long;
  std::vector<Span> spans;
  uint64_t lo, hi;
};

struct Ref {
  std::vector<Ev> events;
  std::vector<uint64_t> long_lines;
  std::vector<uint64_t> long_offsets;  // every occurrence in a long line, in the file
  uint64_t first_long_start = 0, first_long_end = 0;
  uint64_t found = 0;
};

Ref reference(const std::string& file, const text::Matcher& m, const text::ScanOptions& o) {
  std::vector<std::string> lines;
  std::vector<uint64_t> offs;
  for (size_t at = 0; at < file.size();) {
    size_t nl = file.find('\n', at);
    size_t end = nl == std::string::npos ? file.size() : nl;
    lines.push_back(file.substr(at, end - at));
    offs.push_back(at);
    at = end + 1;
  }
  size_t nls = std::count(file.begin(), file.end(), '\n'), crs = 0;
  for (size_t i = 0; i < file.size(); ++i)
    if (file[i] == '\n' && i > 0 && file[i - 1] == '\r') ++crs;
  const bool crlf = nls > 0 && crs == nls;
  const bool bom = file.compare(0, 3, "\xEF\xBB\xBF") == 0;
  Ref r;
  std::vector<int64_t> ord(lines.size(), -1);  // match ordinal per line
  std::vector<uint64_t> shown_off(lines.size()), shown_len(lines.size());
  std::vector<bool> too_long(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string s = lines[i];
    uint64_t off = offs[i];
    if (i == 0 && bom) s = s.substr(3), off += 3;
    if (crlf && !s.empty() && s.back() == '\r') s.pop_back();
    shown_off[i] = off;
    shown_len[i] = s.size();
    too_long[i] = lines[i].size() > o.max_line;
    auto sp = spans_of(m, s);
    if (too_long[i]) {
      if (!sp.empty()) r.long_lines.push_back(i + 1);
      if (!sp.empty() && r.long_offsets.empty())
        r.first_long_start = off, r.first_long_end = off + s.size();
      for (const Span& x : sp) r.long_offsets.push_back(off + x.start);
      continue;
    }
    if (!sp.empty() && r.found < o.max_matches) ord[i] = static_cast<int64_t>(r.found++);
  }
  const int64_t n = static_cast<int64_t>(o.context);
  int64_t last_match_line = -1;
  for (size_t i = 0; i < lines.size(); ++i)
    if (ord[i] >= 0) last_match_line = static_cast<int64_t>(i);
  const bool stopped = r.found == o.max_matches;
  if (stopped) {  // the scan ends at the last match: long lines after it are never read
    std::erase_if(r.long_lines,
                  [&](uint64_t l) { return static_cast<int64_t>(l) > last_match_line + 1; });
    const uint64_t past = last_match_line + 1 < static_cast<int64_t>(offs.size())
                              ? offs[static_cast<size_t>(last_match_line + 1)]
                              : UINT64_MAX;
    std::erase_if(r.long_offsets, [&](uint64_t o) { return o >= past; });
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    // After the match that reached max_matches, nothing more is reported.
    if (stopped && static_cast<int64_t>(i) > last_match_line) break;
    std::string s = file.substr(shown_off[i], shown_len[i]);
    if (ord[i] >= 0) {
      r.events.push_back({true, i + 1, shown_off[i], s, shown_len[i], false, spans_of(m, s),
                          static_cast<uint64_t>(ord[i]), static_cast<uint64_t>(ord[i])});
      continue;
    }
    // lo: the nearest match before the line within n, else the first after it; hi: the last
    // match within n after it.
    int64_t lo = -1, hi = -1;
    for (int64_t j = std::max<int64_t>(0, static_cast<int64_t>(i) - n);
         j <=
         std::min<int64_t>(static_cast<int64_t>(lines.size()) - 1, static_cast<int64_t>(i) + n);
         ++j) {
      if (ord[j] < 0) continue;
      if (lo < 0 || j < static_cast<int64_t>(i)) lo = ord[j];
      hi = ord[j];
    }
    if (lo < 0) continue;
    if (stopped && static_cast<int64_t>(i) > last_match_line) continue;
    r.events.push_back({false,
                        i + 1,
                        shown_off[i],
                        too_long[i] ? "" : s,
                        shown_len[i],
                        too_long[i],
                        {},
                        static_cast<uint64_t>(lo),
                        static_cast<uint64_t>(hi)});
  }
  return r;
}

std::string random_file(std::mt19937& rng, const std::string& needle) {
  std::string f;
  if (rng() % 6 == 0) f += "\xEF\xBB\xBF";
  const int lines = static_cast<int>(rng() % 40);
  const bool crlf = rng() % 4 == 0;
  for (int i = 0; i < lines; ++i) {
    size_t len = rng() % 8 == 0 ? 30 + rng() % 200 : rng() % 25;
    std::string line;
    while (line.size() < len) {
      switch (rng() % 9) {
        case 0:
          line += needle;
          break;
        case 1:
          line += '\0';
          break;
        case 2:
          line += '\xe9';
          break;
        case 3:
          line += '\r';
          break;
        case 4:
          line += ' ';
          break;
        case 5:
          line += '_';
          break;
        default:
          line += static_cast<char>("abAB"[rng() % 4]);
      }
    }
    f += line;
    if (i + 1 < lines || rng() % 3) f += crlf ? "\r\n" : "\n";
  }
  return f;
}

// The events `got` are those of `want`: each field, and for context a `hi` that names a later
// match the line serves when it is known in time, never a wrong one.
::testing::AssertionResult same_events(const std::vector<Ev>& got, const std::vector<Ev>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " events, not " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const Ev &g = got[i], &w = want[i];
    if (g.match != w.match || g.line != w.line || g.offset != w.offset || g.text != w.text ||
        g.length != w.length || g.too_long != w.too_long || g.spans != w.spans || g.lo != w.lo ||
        g.hi < g.lo || g.hi > w.hi)
      return ::testing::AssertionFailure()
             << "event " << i << ": line " << g.line << " (want " << w.line << "), offset "
             << g.offset << " (" << w.offset << "), match " << g.match << " (" << w.match
             << "), lo " << g.lo << " (" << w.lo << "), hi " << g.hi << " (<= " << w.hi
             << "), text '" << g.text << "' ('" << w.text << "')";
  }
  return ::testing::AssertionSuccess();
}

TEST(Scanner, AgreesWithTheReference) {
  std::mt19937 rng(getenv("TACK_SCAN_SEED") ? atoi(getenv("TACK_SCAN_SEED")) : 20240615);
  const int rounds = getenv("TACK_SCAN_ROUNDS") ? atoi(getenv("TACK_SCAN_ROUNDS")) : 3000;
  const char* needles[] = {"ab",
                           "a",
                           "Ab",
                           "b a",
                           "aa\r",
                           "\xe9"
                           "a",
                           "_ab",
                           "",
                           "aa"};  // overlaps itself: occurrences are counted without overlap
  int checked = 0, with_long = 0, with_context = 0, with_offsets = 0;
  for (int round = 0; round < rounds; ++round) {
    std::string needle = needles[rng() % 9];
    const bool icase = rng() % 3 == 0, word = rng() % 3 == 0;
    auto m = text::literal_matcher(needle, icase, word);
    std::string file = random_file(rng, needle.empty() ? "ab" : needle);
    text::ScanOptions o;
    o.chunk = 1 + rng() % 64;
    o.max_line = rng() % 4 == 0 ? 1 + rng() % 40 : 1 << 20;
    o.context = rng() % 3 == 0 ? rng() % 4 : 0;
    o.max_matches = rng() % 4 == 0 ? 1 + rng() % 5 : UINT64_MAX;
    o.max_long_offsets = 1 + rng() % 6;
    Ref want = reference(file, *m, o);
    std::vector<Ev> got;
    text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
      if (off >= file.size()) return 0;
      size_t n = std::min<size_t>(len, file.size() - off);
      std::memcpy(buf, file.data() + off, n);
      return static_cast<long long>(n);
    };
    text::LineSink sink = [&](const LineEvent& e) {
      got.push_back({e.kind == LineEvent::Kind::Match, e.line, e.offset, std::string(e.text),
                     e.length, e.too_long, e.spans ? *e.spans : std::vector<Span>{}, e.lo, e.hi});
      return true;
    };
    text::ScanBuffer buffer;
    text::ScanResult res = text::scan(*m, o, read, sink, buffer);
    ASSERT_EQ(res.error, 0);
    const std::string what = "round " + std::to_string(round) + " needle '" + needle + "' icase " +
                             std::to_string(icase) + " word " + std::to_string(word) + " chunk " +
                             std::to_string(o.chunk) + " cap " + std::to_string(o.max_line) +
                             " context " + std::to_string(o.context) + " max " +
                             std::to_string(o.max_matches);
    if (getenv("TACK_SCAN_DEBUG") && atoi(getenv("TACK_SCAN_DEBUG")) == round) {
      for (char c : file)
        fprintf(stderr,
                c == '\n'              ? "\\n\n"
                : (c >= 32 && c < 127) ? "%c"
                                       : "<%02x>",
                c == '\n' ? 0 : (unsigned char)c);
      for (auto& e : got)
        fprintf(stderr, "got %d line %lu lo %lu hi %lu\n", e.match, e.line, e.lo, e.hi);
      for (auto& e : want.events)
        fprintf(stderr, "want %d line %lu lo %lu hi %lu\n", e.match, e.line, e.lo, e.hi);
    }
    ASSERT_TRUE(same_events(got, want.events)) << what;
    EXPECT_EQ(res.found, want.found) << what;
    EXPECT_EQ(res.long_lines, want.long_lines) << what;
    EXPECT_EQ(res.long_count, want.long_lines.size()) << what;
    // Every occurrence in a long line is counted, the first max_long_offsets by offset.
    EXPECT_EQ(res.long_occurrences, want.long_offsets.size()) << what;
    std::vector<uint64_t> first(want.long_offsets.begin(),
                                want.long_offsets.begin() +
                                    static_cast<long>(std::min(want.long_offsets.size(),
                                                               o.max_long_offsets)));
    EXPECT_EQ(res.long_offsets, first) << what;
    if (!first.empty()) {
      EXPECT_EQ(res.first_long_start, want.first_long_start) << what;
      EXPECT_EQ(res.first_long_end, want.first_long_end) << what;
    }
    with_offsets += !first.empty() && want.long_offsets.size() > 1;
    ++checked;
    with_long += !want.long_lines.empty();
    with_context += o.context > 0 && !want.events.empty();
  }
  // The generator reaches the cases that matter.
  EXPECT_GT(with_long, 100);
  EXPECT_GT(with_offsets, 100);
  EXPECT_GT(with_context, 300);
}

// Lines only counted (ScanOptions::count_only) give the counts the lines themselves give:
// matching lines, and with several patterns the lines each one matched, over the same hostile
// files (a BOM, CRLF, NUL, lines past the cap, chunks down to one byte).
TEST(Scanner, CountingOnlyAgreesWithTheLines) {
  std::mt19937 rng(20261203);
  const char* needles[] = {"ab", "a", "Ab", "b a", "aa\r", "_ab", "", "aa", "B"};
  int with_several = 0, matched = 0;
  for (int round = 0; round < 3000; ++round) {
    const size_t n = 1 + rng() % 4;
    std::vector<std::unique_ptr<text::Matcher>> parts;
    std::string what = "round " + std::to_string(round) + ":";
    for (size_t i = 0; i < n; ++i) {
      const std::string needle = needles[rng() % 9];
      const bool icase = rng() % 3 == 0, word = rng() % 3 == 0;
      parts.push_back(text::literal_matcher(needle, icase, word));
      what += " '" + needle + "' " + std::to_string(icase) + std::to_string(word);
    }
    std::unique_ptr<text::Matcher> m =
        n == 1 && rng() % 2 ? std::move(parts[0]) : text::any_of(std::move(parts));
    const size_t counted = m->patterns() ? n : 0;
    const std::string file = random_file(rng, needles[rng() % 9]);
    text::ScanOptions o;
    o.chunk = 1 + rng() % 64;
    o.max_line = rng() % 4 == 0 ? 1 + rng() % 40 : 1 << 20;
    text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
      if (off >= file.size()) return 0;
      size_t k = std::min<size_t>(len, file.size() - off);
      std::memcpy(buf, file.data() + off, k);
      return static_cast<long long>(k);
    };
    auto run = [&](bool count_only, std::vector<uint64_t>& per) {
      per.assign(counted, 0);
      o.count_only = count_only;
      o.pattern_counts = count_only && counted ? per.data() : nullptr;
      text::LineSink sink = [&](const LineEvent& e) {
        if (e.kind == LineEvent::Kind::Match && e.patterns)
          for (uint32_t i : *e.patterns) ++per[i];
        return true;
      };
      text::ScanBuffer buffer;
      return text::scan(*m, o, read, sink, buffer);
    };
    std::vector<uint64_t> lines_per, counts_per;
    const text::ScanResult lines = run(false, lines_per);
    const text::ScanResult counts = run(true, counts_per);
    what += " chunk " + std::to_string(o.chunk) + " cap " + std::to_string(o.max_line);
    ASSERT_EQ(counts.found, lines.found) << what;
    ASSERT_EQ(counts_per, lines_per) << what;
    ASSERT_EQ(counts.long_count, lines.long_count) << what;
    ASSERT_EQ(counts.long_occurrences, lines.long_occurrences) << what;
    with_several += counted > 1 && lines.found > 0;
    matched += lines.found > 0;
  }
  EXPECT_GT(with_several, 500);
  EXPECT_GT(matched, 1500);
}

// A file searched in parts (ScanOptions::from, to), each part on its own and the parts joined
// in order (line numbers and ordinals moved by the lines and matches before the part,
// join_part), says what one scan of it says: every line once, in the part where it starts,
// whatever the cuts (inside a line, on a '\n', inside a long line, past the end). The same
// hostile files, literals, -e sets and regexes (which want the line endings first), with lines
// shown or only counted.
TEST(Scanner, PartsJoinedAgreeWithOneScan) {
  std::mt19937 rng(getenv("TACK_SCAN_SEED") ? atoi(getenv("TACK_SCAN_SEED")) : 20261204);
  const char* needles[] = {"ab", "a", "Ab", "b a", "aa\r", "_ab", "", "aa", "B"};
  int split_lines = 0, split_long = 0, crlf_files = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string what = "round " + std::to_string(round) + ":";
    std::unique_ptr<text::Matcher> m;
    size_t counted = 0;
    switch (rng() % 3) {
      case 0: {
        const std::string needle = needles[rng() % 9];
        m = text::literal_matcher(needle, rng() % 3 == 0, rng() % 3 == 0);
        what += " '" + needle + "'";
        break;
      }
      case 1: {
        std::vector<std::unique_ptr<text::Matcher>> parts;
        counted = 2 + rng() % 2;
        for (size_t i = 0; i < counted; ++i)
          parts.push_back(text::literal_matcher(needles[rng() % 9], false, rng() % 2 == 0));
        m = text::any_of(std::move(parts));
        what += " any_of";
        break;
      }
      default: {
        const char* res[] = {"a.b", "b$", "^a", "a\\s*b"};
        const std::string re = res[rng() % 4];
        text::RegexError err;
        m = text::regex_matcher(re, rng() % 2 == 0, false, err);
        what += " /" + re + "/";
      }
    }
    if (!m->patterns()) counted = 0;
    const std::string file = random_file(rng, needles[rng() % 9]);
    crlf_files += file.find("\r\n") != std::string::npos;
    text::ScanOptions o;
    o.chunk = 1 + rng() % 64;
    o.max_line = rng() % 4 == 0 ? 1 + rng() % 40 : 1 << 20;
    o.count_only = rng() % 3 == 0;
    o.max_long_offsets = 1 + rng() % 6;
    o.max_long_lines = 1 + rng() % 6;
    text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
      if (off >= file.size()) return 0;
      size_t k = std::min<size_t>(len, file.size() - off);
      std::memcpy(buf, file.data() + off, k);
      return static_cast<long long>(k);
    };
    auto run = [&](const text::ScanOptions& opts, uint64_t lines_before, uint64_t found_before,
                   std::vector<Ev>& got, std::vector<uint64_t>& per) {
      text::ScanOptions each = opts;
      each.pattern_counts = each.count_only && counted ? per.data() : nullptr;
      text::LineSink sink = [&](const LineEvent& e) {
        if (e.kind == LineEvent::Kind::Match && e.patterns)
          for (uint32_t i : *e.patterns) ++per[i];
        got.push_back({e.kind == LineEvent::Kind::Match, lines_before + e.line, e.offset,
                       std::string(e.text), e.length, e.too_long,
                       e.spans ? *e.spans : std::vector<Span>{}, found_before + e.lo,
                       found_before + e.hi});
        return true;
      };
      text::ScanBuffer buffer;
      return text::scan(*m, each, read, sink, buffer);
    };
    std::vector<Ev> whole_events, part_events;
    std::vector<uint64_t> whole_per(counted), part_per(counted);
    const text::ScanResult whole = run(o, 0, 0, whole_events, whole_per);
    // Cuts anywhere in the file and a little past it, some of them equal.
    std::vector<uint64_t> cuts;
    for (size_t k = rng() % 5; k > 0; --k) cuts.push_back(rng() % (file.size() + 3));
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(UINT64_MAX);
    text::FileEol eol;
    text::ScanResult joined;
    uint64_t from = 0;
    for (uint64_t to : cuts) {
      text::ScanOptions part = o;
      part.from = from;
      part.to = to;
      part.eol = &eol;
      const text::ScanResult r = run(part, joined.newlines, joined.found, part_events, part_per);
      ASSERT_EQ(r.error, 0) << what;
      if (to != UINT64_MAX) {
        ASSERT_TRUE(r.part_done) << what;
      }
      if (getenv("TACK_SCAN_DEBUG") && atoi(getenv("TACK_SCAN_DEBUG")) == round)
        fprintf(stderr, "part [%lu, %lu): newlines %lu found %lu long %lu\n", from, to, r.newlines,
                r.found, r.long_count);
      text::join_part(joined, r, joined.newlines, o);
      from = to;
    }
    what += " chunk " + std::to_string(o.chunk) + " cap " + std::to_string(o.max_line) + " count " +
            std::to_string(o.count_only) + " cuts " + std::to_string(cuts.size());
    ASSERT_TRUE(same_events(part_events, whole_events)) << what;
    ASSERT_EQ(joined.found, whole.found) << what;
    ASSERT_EQ(part_per, whole_per) << what;
    ASSERT_EQ(joined.binary, whole.binary) << what;
    ASSERT_EQ(joined.long_lines, whole.long_lines) << what;
    ASSERT_EQ(joined.long_count, whole.long_count) << what;
    ASSERT_EQ(joined.longest, whole.longest) << what;
    ASSERT_EQ(joined.long_unsearched, whole.long_unsearched) << what;
    ASSERT_EQ(joined.long_offsets, whole.long_offsets) << what;
    ASSERT_EQ(joined.long_occurrences, whole.long_occurrences) << what;
    if (whole.long_occurrences > 0) {
      ASSERT_EQ(joined.first_long_start, whole.first_long_start) << what;
      ASSERT_EQ(joined.first_long_end, whole.first_long_end) << what;
    }
    split_lines += cuts.size() > 1 && !whole_events.empty();
    split_long += cuts.size() > 1 && whole.long_count > 0;
  }
  // The generator reaches the cases that matter.
  EXPECT_GT(split_lines, 800);
  EXPECT_GT(split_long, 100);
  EXPECT_GT(crlf_files, 300);
}

// A part whose first bytes are inside a line that runs past its end holds no line, and finds
// that without reading to the line's end: a file of one long line searched in many parts is
// read about once, not once a part (which would be quadratic in the parts).
// Reads `file` as a file, adding the bytes read to `bytes`.
text::ReadAt counted_reader(const std::string& file, uint64_t& bytes) {
  return [&file, &bytes](char* buf, size_t len, uint64_t off) -> long long {
    size_t n = off >= file.size() ? 0 : std::min<size_t>(len, file.size() - off);
    std::memcpy(buf, file.data() + off, n);
    bytes += n;
    return static_cast<long long>(n);
  };
}

TEST(Scanner, PartsInsideOneLongLineReadOnlyThemselves) {
  std::string file(4 << 20, 'x');
  file.replace(3 << 20, 6, "needle");
  file += '\n';
  auto m = text::literal_matcher("needle", false, false);
  uint64_t bytes = 0;
  text::ReadAt read = counted_reader(file, bytes);
  text::LineSink sink = [](const LineEvent&) { return true; };
  text::FileEol eol;
  text::ScanResult joined;
  constexpr uint64_t kPart = 64 << 10;
  for (uint64_t from = 0; from < file.size(); from += kPart) {
    text::ScanOptions o;
    o.max_line = 1 << 20;
    o.from = from;
    o.to = from + kPart >= file.size() ? UINT64_MAX : from + kPart;
    o.eol = &eol;
    text::ScanBuffer buffer;
    text::join_part(joined, text::scan(*m, o, read, sink, buffer), joined.newlines, o);
  }
  EXPECT_EQ(joined.long_count, 1u);
  EXPECT_EQ(joined.long_offsets, std::vector<uint64_t>{3 << 20});
  // each part its own bytes, the part that holds the line all of it, the line endings' check
  // to the first '\n' (the whole line), a binary probe a part: 3 times the file and a little;
  // a part read to the line's end would make it 34 times
  EXPECT_LT(bytes, 4 * file.size());
}

// Once another thread says nothing more will be taken (ScanOptions::cancel), the scan ends at
// its next read: a large file with no match in sight is not read to its end.
TEST(Scanner, ACancelEndsTheScanAtTheNextRead) {
  std::string file;
  for (int i = 0; file.size() < (8u << 20); ++i) file += "line " + std::to_string(i) + "\n";
  auto m = text::literal_matcher("never here", false, false);
  std::atomic<bool> cancel{false};
  uint64_t bytes = 0;
  int reads = 0;
  const text::ReadAt counted = counted_reader(file, bytes);
  text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
    if (++reads == 3) cancel = true;  // said while the third read is on its way
    return counted(buf, len, off);
  };
  text::LineSink sink = [](const LineEvent&) { return true; };
  text::ScanBuffer buffer;
  text::ScanOptions o;
  o.chunk = 64 << 10;
  o.cancel = &cancel;
  const text::ScanResult r = text::scan(*m, o, read, sink, buffer);
  EXPECT_EQ(reads, 3);
  EXPECT_LE(bytes, 3u * o.chunk);
  EXPECT_EQ(r.error, 0);
  // without the flag set, the whole file
  cancel = false;
  o.cancel = nullptr;
  reads = 0;
  bytes = 0;
  text::scan(*m, o, read, sink, buffer);
  EXPECT_EQ(bytes, file.size());
}

TEST(Scanner, BinaryProbeAndSkip) {
  const std::string file("abc\0def\nabc\n", 12);
  auto m = text::literal_matcher("abc", false, false);
  text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
    size_t n = off >= file.size() ? 0 : std::min<size_t>(len, file.size() - off);
    std::memcpy(buf, file.data() + off, n);
    return static_cast<long long>(n);
  };
  int events = 0;
  text::LineSink sink = [&](const LineEvent&) { return ++events, true; };
  text::ScanBuffer buffer;
  text::ScanOptions o;
  o.skip_binary = true;
  auto r = text::scan(*m, o, read, sink, buffer);
  EXPECT_TRUE(r.binary && r.skipped);
  EXPECT_EQ(events, 0);
  o.skip_binary = false;
  r = text::scan(*m, o, read, sink, buffer);
  EXPECT_TRUE(r.binary && !r.skipped);
  EXPECT_EQ(events, 2);
}

TEST(Scanner, ReadErrorsAreReported) {
  auto m = text::literal_matcher("x", false, false);
  text::ReadAt read = [](char*, size_t, uint64_t) -> long long { return -5; };
  text::LineSink sink = [](const LineEvent&) { return true; };
  text::ScanBuffer buffer;
  auto r = text::scan(*m, text::ScanOptions{}, read, sink, buffer);
  EXPECT_EQ(r.error, 5);
}

// Each read lands at an address congruent to its file offset modulo ScanBuffer::kAlign (the
// kernel copies from the page cache at half speed otherwise), across chunks whose leftover
// line moves the next read off a boundary, long lines and a buffer kept from file to file;
// the lines found stay those of the reference.
TEST(Scanner, ReadsLandCoAlignedWithTheirFileOffsets) {
  std::mt19937 rng(11);
  text::ScanBuffer buffer;
  for (int round = 0; round < 40; ++round) {
    std::string file;
    while (file.size() < 20000) {
      file.append(rng() % (round % 3 == 0 ? 3000 : 90), 'x');
      if (rng() % 4 == 0) file += "needle";
      file += '\n';
    }
    auto m = text::literal_matcher("needle", false, false);
    text::ScanOptions o;
    o.chunk = 64 + rng() % 3000;
    o.max_line = 1024 + rng() % 2048;
    o.context = rng() % 3;
    size_t reads = 0, misaligned = 0;
    text::ReadAt read = [&](char* buf, size_t len, uint64_t off) -> long long {
      size_t n = off >= file.size() ? 0 : std::min<size_t>(len, file.size() - off);
      std::memcpy(buf, file.data() + off, n);
      if (buf >= buffer.data() && buf < buffer.data() + buffer.size()) {  // a chunk
        ++reads;
        if ((reinterpret_cast<uintptr_t>(buf) - off) % text::ScanBuffer::kAlign != 0) ++misaligned;
      }
      return static_cast<long long>(n);
    };
    std::vector<Ev> got;
    text::LineSink sink = [&](const LineEvent& e) {
      got.push_back({e.kind == LineEvent::Kind::Match, e.line, e.offset, std::string(e.text),
                     e.length, e.too_long, e.spans ? *e.spans : std::vector<Span>{}, e.lo, e.hi});
      return true;
    };
    text::scan(*m, o, read, sink, buffer);
    EXPECT_GT(reads, 2u);
    EXPECT_EQ(misaligned, 0u) << "round " << round;
    const Ref want = reference(file, *m, o);
    ASSERT_EQ(got.size(), want.events.size()) << "round " << round;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].line, want.events[i].line);
      EXPECT_EQ(got[i].offset, want.events[i].offset);
      EXPECT_EQ(got[i].text, want.events[i].text);
    }
  }
}

}  // namespace
