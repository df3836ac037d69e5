// text_edits_test.cpp — the edits-list parser: what it accepts, and that every malformed or
// misshapen input is one error (syntax with an offset, or shape with the edit and key).

#include <gtest/gtest.h>

#include <string>

#include "text/edits.h"

namespace {

using text::EditsError;

template <class T>
const EditsError& err(const text::EditsResult<T>& r) {
  EXPECT_TRUE(std::holds_alternative<EditsError>(r));
  return std::get<EditsError>(r);
}

TEST(ReplaceEdits, ParsesStringsEscapesAndDefaults) {
  auto r = text::parse_replace_edits(
      R"([{"old":"a\nb","new":"\u00e9\ud83d\ude00"},{"old":"x","new":"","expect":3},)"
      R"({"old":"y","new":"z","all":true}])");
  ASSERT_TRUE(std::holds_alternative<std::vector<text::ReplaceEdit>>(r));
  auto& v = std::get<std::vector<text::ReplaceEdit>>(r);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].old_text, "a\nb");
  EXPECT_EQ(v[0].new_text, "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(v[0].expect, 1u);
  EXPECT_EQ(v[1].expect, 3u);
  EXPECT_TRUE(v[2].all);
}

TEST(ReplaceEdits, Base64Bytes) {
  auto r = text::parse_replace_edits(R"([{"old":{"b64":"Y2Fm6Q=="},"new":"cafe"}])");
  ASSERT_TRUE(std::holds_alternative<std::vector<text::ReplaceEdit>>(r));
  EXPECT_EQ(std::get<0>(r)[0].old_text, "caf\xe9");
}

TEST(ReplaceEdits, SyntaxErrorsCarryOffsets) {
  for (std::string bad : {"", "[", "[{]", "[{\"old\":\"a\",}]", "[01]", "[\"\\x\"]", "[\"a\x01\"]",
                          "[\"\\ud800\"]", "[] x", "[\"\xff\"]", "[1.]", "[tru]"}) {
    const auto& e = err(text::parse_replace_edits(bad));
    EXPECT_EQ(e.kind, EditsError::Kind::Syntax) << bad;
    EXPECT_LE(e.offset, bad.size()) << bad;
  }
}

TEST(ReplaceEdits, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  EXPECT_EQ(err(text::parse_replace_edits(deep)).kind, EditsError::Kind::Syntax);
}

TEST(ReplaceEdits, ShapeErrorsNameTheEditAndKey) {
  struct Case {
    const char* json;
    int64_t index;
    const char* field;
  } cases[] = {
      {R"({"old":"a"})", -1, ""},
      {R"([])", -1, ""},
      {R"([1])", 0, ""},
      {R"([{"old":"a","new":"b"},{"new":"b"}])", 1, "old"},
      {R"([{"old":"","new":"b"}])", 0, "old"},
      {R"([{"old":"a","new":"a"}])", 0, "new"},
      {R"([{"old":"a","new":"b","expct":1}])", 0, "expct"},
      {R"([{"old":"a","old":"c","new":"b"}])", 0, "old"},
      {R"([{"old":"a","new":"b","expect":0}])", 0, "expect"},
      {R"([{"old":"a","new":"b","expect":-1}])", 0, "expect"},
      {R"([{"old":"a","new":"b","expect":1.5}])", 0, "expect"},
      {R"([{"old":"a","new":"b","expect":99999999999999999999}])", 0, "expect"},
      {R"([{"old":"a","new":"b","expect":2,"all":true}])", 0, "expect"},
      {R"([{"old":{"b64":"!!"},"new":"b"}])", 0, "old"},
  };
  for (auto& c : cases) {
    const auto& e = err(text::parse_replace_edits(c.json));
    EXPECT_EQ(e.kind, EditsError::Kind::Shape) << c.json;
    EXPECT_EQ(e.index, c.index) << c.json;
    EXPECT_EQ(e.field, c.field) << c.json;
  }
}

TEST(LineEdits, Parses) {
  auto r = text::parse_line_edits(R"([{"witness":"h0a1b2c","lines":["x","y"]},{"lines":[],"witness":"hffffff"}])");
  ASSERT_TRUE(std::holds_alternative<std::vector<text::LineEdit>>(r));
  auto& v = std::get<std::vector<text::LineEdit>>(r);
  EXPECT_EQ(v[0].value, 0x0a1b2cu);
  EXPECT_EQ(v[0].lines, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(v[1].lines.empty());
  EXPECT_EQ(v[1].witness, "hffffff");
}

TEST(LineEdits, Refusals) {
  for (const char* bad : {R"([{"witness":"h0A1b2c","lines":[]}])", R"([{"witness":"h0a1b2","lines":[]}])",
                          R"([{"witness":"h0a1b2c"}])", R"([{"witness":"h0a1b2c","lines":"x"}])",
                          R"([{"witness":"h0a1b2c","lines":["a\nb"]}])",
                          R"([{"witness":"h0a1b2c","lines":[1]}])"}) {
    EXPECT_EQ(err(text::parse_line_edits(bad)).kind, EditsError::Kind::Shape) << bad;
  }
}

}  // namespace
