// text_scan_test.cpp — the Scanner, held to a naive reference (text_scan_reference.h) on
// hostile generated files, with chunk sizes down to one byte so every boundary case is crossed;
// binary files, read errors, aligned reads, a cancel. Same seed every run. The literal matcher
// drives it; its own tests are in text_search_test.cpp; a file in parts: text_scan_parts_test.cpp.
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
#include "text_scan_reference.h"

namespace {

using namespace scan_test;

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
    std::vector<uint64_t> first(
        want.long_offsets.begin(),
        want.long_offsets.begin() +
            static_cast<long>(std::min(want.long_offsets.size(), o.max_long_offsets)));
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
