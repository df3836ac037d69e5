// edit's algorithms apart from any file (text/line_edits.h): lines as peek numbers them, the
// line a stale witness most likely named, and line edits applied in the file's line endings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/line_edits.h"
#include "text/witness.h"

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

TEST(TextLineEdits, NearestWitnessFollowsALineThatMoved) {
  std::vector<uint64_t> hashes;
  for (int i = 0; i < 40; ++i) hashes.push_back(text::line_hash("line " + std::to_string(i)));
  const std::vector<uint32_t> w = text::all_witnesses(hashes);
  for (size_t i = 0; i < w.size(); ++i) EXPECT_EQ(text::nearest_witness(hashes, w[i]), int64_t(i));
  // A line inserted beyond line 20's window: its witness now names line 21.
  hashes.insert(hashes.begin() + 10, text::line_hash("inserted"));
  EXPECT_EQ(text::nearest_witness(hashes, w[20]), 21);
  EXPECT_EQ(text::nearest_witness({}, 123), -1);
}

}  // namespace
