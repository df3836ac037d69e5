// The near-miss search and the CRLF view replace matches through (text/near_miss.h).
#include "text/near_miss.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using text::Eol;

TEST(NearMiss, ViewDropsTheCarriageReturnOfEachCrlfOnly) {
  EXPECT_EQ(text::to_view("a\r\nb\rc\r\n\r", Eol::Crlf), "a\nb\rc\n\r");
  EXPECT_EQ(text::to_view("a\r\nb", Eol::Lf), "a\r\nb");
  EXPECT_EQ(text::from_view("a\nb\n", Eol::Crlf), "a\r\nb\r\n");
  EXPECT_EQ(text::from_view("a\nb\n", Eol::Mixed), "a\nb\n");
}

TEST(NearMiss, RawFormPutsEveryLineEndingInTheFilesForm) {
  EXPECT_EQ(text::raw_form("x\ny\r\nz", true), "x\r\ny\r\nz");
  EXPECT_EQ(text::raw_form("x\ny\r\nz", false), "x\ny\r\nz");
  EXPECT_EQ(text::raw_form("", true), "");
}

TEST(NearMiss, LinesAroundASpanAreWholeAndNumbered) {
  const std::string view = "one\ntwo three\nfour\n";
  auto [line, text] = text::lines_around(view, 8, 13);  // "three"
  EXPECT_EQ(line, 2u);
  EXPECT_EQ(text, "two three");
  auto [line2, text2] = text::lines_around(view, 2, 6);  // "e\ntw"
  EXPECT_EQ(line2, 1u);
  EXPECT_EQ(text2, "one\ntwo three");
  auto [line3, text3] = text::lines_around(view, 0, 4);  // "one\n": its own line only
  EXPECT_EQ(line3, 1u);
  EXPECT_EQ(text3, "one");
}

TEST(NearMiss, BlanksIgnoredAndLiteralEscapesAreFound) {
  const std::string view = "int  x =\t1;\nint y = 2;\nsay(\"a\nb\")\n";
  contract::Json near = text::near_misses(view, "int x = 1;");
  ASSERT_EQ(near.items().size(), 1u);
  EXPECT_EQ(near.items()[0].get("line")->as_uint(), 1u);
  EXPECT_EQ(near.items()[0].get("why")->str(), "whitespace");
  EXPECT_EQ(near.items()[0].get("text")->str(), "int  x =\t1;");
  near = text::near_misses(view, "say(\"a\\nb\")");
  ASSERT_EQ(near.items().size(), 1u);
  EXPECT_EQ(near.items()[0].get("line")->as_uint(), 3u);
  EXPECT_EQ(near.items()[0].get("why")->str(), "escaped-newline");
  EXPECT_EQ(near.items()[0].get("text")->str(), "say(\"a\nb\")");
  EXPECT_TRUE(text::near_misses(view, "nowhere at all").items().empty());
}

TEST(NearMiss, AtMostTheCapAndOnePerLine) {
  std::string view;
  for (int i = 0; i < 30; ++i) view += "a b a  b\n";
  contract::Json near = text::near_misses(view, "ab");
  ASSERT_EQ(near.items().size(), text::kMaxNear);
  for (size_t i = 0; i < near.items().size(); ++i)
    EXPECT_EQ(near.items()[i].get("line")->as_uint(), i + 1);
}

TEST(NearMiss, NearOfSkipsTheBomAndMatchesInTheView) {
  const std::string file = "\xEF\xBB\xBFkey:  value\r\nother\r\n";
  contract::Json near = text::near_of(file, true, Eol::Crlf, "key: value\r\n");
  ASSERT_EQ(near.items().size(), 1u);
  EXPECT_EQ(near.items()[0].get("line")->as_uint(), 1u);
  EXPECT_EQ(near.items()[0].get("text")->str(), "key:  value");
}

}  // namespace
