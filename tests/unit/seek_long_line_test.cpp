// seek_long_line_test.cpp — seek's limit.line-too-long: the error names the long lines and,
// where the matcher can say, where the pattern occurs; its repair is the same search on that
// one file with a cap that holds them, or past the ceiling peek on the bytes around the first
// occurrence, or no repair when nothing locates it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tools/seek/long_line.h"

namespace {

using contract::Json;
using Argv = std::vector<std::string>;

text::ReadAt reader(const std::string& file) {
  return [file](char* buf, size_t len, uint64_t offset) -> long long {
    if (offset >= file.size()) return 0;
    const size_t n = std::min(len, file.size() - offset);
    std::memcpy(buf, file.data() + offset, n);
    return static_cast<long long>(n);
  };
}

seek::Args literal(std::string pattern) {
  seek::Args a;
  a.pattern = std::move(pattern);
  a.max_line_bytes = 1024;
  a.max_count = 1000;
  return a;
}

// One long line of `n` bytes holding "needle" at `at`, as the scanner reports it.
text::ScanResult located(uint64_t n, uint64_t at) {
  text::ScanResult r;
  r.long_lines = {1};
  r.long_count = 1;
  r.longest = n;
  r.long_located = true;
  r.long_offsets = {at};
  r.long_occurrences = 1;
  r.first_long_start = 0;
  r.first_long_end = n;
  return r;
}

TEST(SeekLongLine, ALocatedLiteralGivesItsOffsetsAndAWindow) {
  std::string file(3000, 'a');
  file.replace(1500, 6, "needle");
  const contract::Error e =
      seek::long_line_error(literal("needle"), "f.txt", located(3000, 1500), reader(file));
  EXPECT_EQ(e.rule, "limit.line-too-long");
  EXPECT_EQ(e.detail.get("count")->as_uint(), 1u);
  EXPECT_EQ(e.detail.get("longest")->as_uint(), 3000u);
  EXPECT_TRUE(e.detail.get("searched")->as_bool());
  EXPECT_EQ(e.detail.get("ceiling")->as_uint(), seek::kLineCeiling);
  EXPECT_EQ(e.detail.get("offsets")->items().at(0).as_uint(), 1500u);
  EXPECT_EQ(e.detail.get("occurrences")->as_uint(), 1u);
  EXPECT_EQ(e.detail.get("window")->get("from")->as_uint(), 1500u - seek::kWindowSide);
  EXPECT_EQ(e.detail.get("window")->get("to")->as_uint(), 1506u + seek::kWindowSide);
  EXPECT_NE(e.message.find("first at byte 1500"), std::string::npos) << e.message;
}

TEST(SeekLongLine, AnUnsearchedRegexLineHasNoOffsets) {
  text::ScanResult r;
  r.long_lines = {4};
  r.long_count = 1;
  r.longest = 5000;
  r.long_unsearched = true;
  seek::Args a = literal("n.*e");
  a.regex = true;
  const contract::Error e = seek::long_line_error(a, "f", r, reader(""));
  EXPECT_FALSE(e.detail.get("searched")->as_bool());
  EXPECT_TRUE(e.detail.get("offsets")->is_null());
  EXPECT_TRUE(e.detail.get("offsets_unknown"));
  EXPECT_FALSE(e.detail.get("window"));
  EXPECT_NE(e.message.find("were not searched"), std::string::npos) << e.message;
}

TEST(SeekLongLine, WithinTheCeilingTheRepairRaisesTheCapOnThatFile) {
  seek::Args a = literal("needle");
  a.icase = true;
  a.context = 2;
  a.skip = 40;  // counted over every file: not repeated
  a.globs = {"*.txt"};
  std::string file(3000, 'a');
  contract::Error e = seek::long_line_error(a, "d/f.txt", located(3000, 10), reader(file));
  seek::repair_long_line(e, a, {"/bin/seek", "/r", false, false});
  ASSERT_EQ(e.repair.kind, contract::Repair::Kind::Retry);
  EXPECT_EQ(e.repair.argvs.front(),
            (Argv{"/bin/seek", "--root", "/r", "--ignore-case", "--context=2",
                  "--max-line-bytes=3000", "--", "needle", "d/f.txt"}));
  EXPECT_EQ(*e.hint, "retry on this file with --max-line-bytes 3000.");
}

TEST(SeekLongLine, TheRepairKeepsThePatternsTheModeAndAGivenMaxCount) {
  seek::Args a = literal("");
  a.patterns = {"x", "-y"};
  a.count = true;
  a.max_count = 5;
  EXPECT_EQ(seek::show_long_lines(a, {"seek", "", true, true}, "f", 2048),
            (Argv{"seek", "--count", "--pattern=x", "--pattern=-y", "--max-count=5",
                  "--max-line-bytes=2048", "--format=text", "--", "f"}));
}

TEST(SeekLongLine, PastTheCeilingTheRepairIsPeekOnTheWindow) {
  const uint64_t n = seek::kLineCeiling + 1;
  text::ScanResult r = located(n, 100);
  std::string file(1000, 'a');  // only the bytes around the occurrence are read
  contract::Error e = seek::long_line_error(literal("needle"), "big", r, reader(file));
  seek::repair_long_line(e, literal("needle"), {"/opt/tack/seek", "", false, false});
  ASSERT_EQ(e.repair.kind, contract::Repair::Kind::Retry);
  EXPECT_EQ(e.repair.argvs.front(), (Argv{"/opt/tack/peek", "--bytes=0:362", "--", "big"}));
  EXPECT_NE(e.hint->find("detail.offsets"), std::string::npos) << *e.hint;
  EXPECT_EQ(seek::peek_window({"seek", "/r", true, false}, "p", "1:2"),
            (Argv{"peek", "--root", "/r", "--bytes=1:2", "--format=text", "--", "p"}));
}

TEST(SeekLongLine, PastTheCeilingWithoutAPlaceThereIsNoRepair) {
  text::ScanResult r;
  r.long_lines = {1};
  r.long_count = 1;
  r.longest = seek::kLineCeiling + 1;
  contract::Error e = seek::long_line_error(literal("x"), "big", r, reader(""));
  seek::repair_long_line(e, literal("x"), {"seek", "", false, false});
  EXPECT_EQ(e.repair.kind, contract::Repair::Kind::None);
  EXPECT_EQ(*e.hint, "read the line in pieces with peek --bytes.");
}

}  // namespace
