// text_json_escape_test.cpp — the fast escape writes what JsonWriter writes for the same UTF-8
// text, at every alignment of the bytes that need escaping and over random text.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>

#include "contract/json.h"
#include "text/json_escape.h"

namespace {

std::string escaped(std::string_view v) {
  std::string out;
  text::append_json_escaped(out, v);
  return out;
}

std::string by_writer(std::string_view v) {
  std::string out;
  contract::JsonWriter(out).string(v);
  return out.substr(1, out.size() - 2);  // without the quotes
}

TEST(TextJsonEscape, EachEscape) {
  EXPECT_EQ(escaped(""), "");
  EXPECT_EQ(escaped("plain text, no escape"), "plain text, no escape");
  EXPECT_EQ(escaped("a\"b\\c\nd\re\tf\bg\fh"), "a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh");
  EXPECT_EQ(escaped(std::string_view("\x00\x01\x1f\x7f", 4)), "\\u0000\\u0001\\u001f\x7f");
  EXPECT_EQ(escaped("é ü €"), "é ü €");
}

TEST(TextJsonEscape, EveryAlignmentAgreesWithTheWriter) {
  for (char special : {'"', '\\', '\n', '\x01', '\x1f', ' ', '\x7f'})
    for (size_t len = 0; len < 24; ++len)
      for (size_t at = 0; at < len; ++at) {
        std::string s(len, 'a');
        s[at] = special;
        EXPECT_EQ(escaped(s), by_writer(s)) << len << " " << at;
      }
}

TEST(TextJsonEscape, RandomTextAgreesWithTheWriter) {
  std::mt19937 rng(7);
  const std::string_view pieces[] = {"a",    "bc", "\"", "\\", "\n",        "\t",
                                     "\x02", "é",  "€",  "  ", "0123456789"};
  for (int round = 0; round < 500; ++round) {
    std::string s;
    for (int k = rng() % 40; k > 0; --k) s += pieces[rng() % std::size(pieces)];
    EXPECT_EQ(escaped(s), by_writer(s)) << s;
  }
}

}  // namespace
