// text_scan_parts_test.cpp — a file searched in parts (ScanOptions::from, to) and joined
// (text::join_part) says what one scan of it says, held on the hostile files of
// text_scan_reference.h; and a part inside one long line reads only its own bytes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "text/any_of.h"
#include "text/regex.h"
#include "text/scan.h"
#include "text_scan_reference.h"

namespace {

using namespace scan_test;

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

}  // namespace
