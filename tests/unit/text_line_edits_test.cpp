// edit's algorithms apart from any file (text/line_edits.h): lines as peek numbers them, the
// line a stale witness most likely named, and line edits applied in the file's line endings.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "text/line_edits.h"

namespace {

TEST(TextLineEdits, SplitKeepsCarriageReturnsAndMarksAMissingFinalNewline) {
  const auto lines = text::split_lines("a\r\nb\nc");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].raw, "a\r");
  EXPECT_TRUE(lines[0].newline);
  EXPECT_EQ(lines[2].raw, "c");
  EXPECT_FALSE(lines[2].newline);
  EXPECT_TRUE(text::split_lines("").empty());
  EXPECT_EQ(text::split_lines("\n").size(), 1u);
}

TEST(TextLineEdits, ApplyReplacesDeletesAndInsertsInTheFilesEndings) {
  const auto lines = text::split_lines("one\r\ntwo\r\nthree");
  const text::LineEdit two{"h000000", 0, {"2", "2b"}}, three{"h000001", 1, {"3"}},
      gone{"h000002", 2, {}};
  EXPECT_EQ(text::apply_line_edits(lines, {nullptr, &two, &three}, text::Eol::Crlf, false),
            "one\r\n2\r\n2b\r\n3");  // the last line still has no newline
  EXPECT_EQ(text::apply_line_edits(lines, {&gone, nullptr, nullptr}, text::Eol::Crlf, true),
            std::string(text::kBom) + "two\r\nthree");
  // Mixed: a new line ends as the line it replaces did.
  const auto mixed = text::split_lines("a\r\nb\n");
  EXPECT_EQ(text::apply_line_edits(mixed, {&two, &two}, text::Eol::Mixed, false),
            "2\r\n2b\r\n2\n2b\n");
}

// The cuts applied as the text streams past, in chunks of every size, give what cutting the
// whole text gives; a cut may span chunks, start or end on a chunk's edge, or be the text.
TEST(TextLineEdits, CutSplicerMatchesCuttingTheWholeText) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 2000; ++round) {
    const size_t n = 1 + rng() % 60;
    std::string in;
    for (size_t i = 0; i < n; ++i) in += static_cast<char>('a' + rng() % 26);
    std::vector<text::Cut> cuts;
    for (uint64_t at = rng() % 4; at < n;) {
      const uint64_t len = 1 + rng() % std::min<uint64_t>(8, n - at);
      cuts.push_back({at, at + len, std::string(rng() % 4, 'X') + std::to_string(round % 7)});
      at += len + rng() % 6;
    }
    std::string want;
    uint64_t pos = 0;
    for (const text::Cut& c : cuts) {
      want += in.substr(pos, c.start - pos) + c.bytes;
      pos = c.end;
    }
    want += in.substr(pos);
    text::CutSplicer splicer(cuts);
    std::string got;
    const size_t chunk = 1 + rng() % 9;
    for (size_t at = 0; at <= n; at += chunk)
      splicer.feed(std::string_view(in).substr(std::min(at, n), chunk), std::min(at, n),
                   [&](std::string_view piece) { got += piece; });
    ASSERT_EQ(got, want) << "round " << round;
    ASSERT_TRUE(splicer.done());
  }
  std::vector<text::Cut> whole = {{0, 3, "new"}};
  text::CutSplicer all(whole);
  std::string got;
  all.feed("old", 0, [&](std::string_view p) { got += p; });
  EXPECT_EQ(got, "new");
}

}  // namespace
