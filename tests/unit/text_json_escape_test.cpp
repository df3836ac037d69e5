// text_json_escape_test.cpp — the fast escape writes what JsonWriter writes for the same UTF-8
// text, at every alignment of every byte that needs escaping (and of those that do not), over
// random text, and json_unescape_in_place takes any bytes back from it.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "contract/json.h"
#include "text/json_escape.h"

namespace {

std::string escaped(std::string_view v) {
  std::string out;
  text::append_json_escaped(out, v);
  return out;
}

// Escaped in place, in memory with room for exactly the escaped form.
std::string escaped_to(std::string_view v) {
  std::vector<uint32_t> at;
  size_t growth = text::json_escapes(v, at);
  std::string out(v);
  out.resize(v.size() + growth, '?');
  if (growth) text::json_escape_in_place(out.data(), v.size(), at, growth);
  return out;
}

std::string by_writer(std::string_view v) {
  std::string out;
  contract::JsonWriter(out).string(v);
  return out.substr(1, out.size() - 2);  // without the quotes
}

// The escape byte by byte, as the writer's loop decides it (any bytes, not only UTF-8).
std::string one_by_one(std::string_view v) {
  std::string out;
  for (char c : v) {
    std::string one(1, c);
    out += static_cast<unsigned char>(c) < 0x80 ? by_writer(one) : one;
  }
  return out;
}

std::vector<uint32_t> offsets(std::string_view v) {
  std::vector<uint32_t> at;
  for (size_t i = 0; i < v.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(v[i]);
    if (c < 0x20 || c == '"' || c == '\\') at.push_back(static_cast<uint32_t>(i));
  }
  return at;
}

std::vector<uint32_t> escape_offsets(std::string_view v) {
  std::vector<uint32_t> at;
  text::json_escapes(v, at);
  return at;
}

std::string unescaped(std::string s) {
  s.resize(text::json_unescape_in_place(s.data(), s.size()));
  return s;
}

TEST(TextJsonEscape, EachEscape) {
  EXPECT_EQ(escaped(""), "");
  EXPECT_EQ(escaped("plain text, no escape"), "plain text, no escape");
  EXPECT_EQ(escaped("a\"b\\c\nd\re\tf\bg\fh"), "a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh");
  EXPECT_EQ(escaped(std::string_view("\x00\x01\x1f\x7f", 4)), "\\u0000\\u0001\\u001f\x7f");
  EXPECT_EQ(escaped("é ü €"), "é ü €");
  EXPECT_EQ(escaped_to(std::string_view("\x00\x01\x1f\x7f", 4)), "\\u0000\\u0001\\u001f\x7f");
  std::vector<uint32_t> at;
  EXPECT_EQ(text::json_escapes(std::string_view("\"\\\n\r\t\b\f\x00\x0b", 9), at), 7u + 10u);
  EXPECT_EQ(at, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(TextJsonEscape, EveryByteAgreesWithTheWriter) {
  for (int c = 0; c < 0x80; ++c) {
    std::string s = "ab" + std::string(1, static_cast<char>(c)) + "cd";
    EXPECT_EQ(escaped(s), by_writer(s)) << c;
    EXPECT_EQ(escaped_to(s), by_writer(s)) << c;
    EXPECT_EQ(unescaped(escaped_to(s)), s) << c;
  }
}

TEST(TextJsonEscape, EveryAlignmentAgreesWithTheWriter) {
  // Past two 32-byte blocks, so the vector search meets each byte in every lane, then the tail.
  for (char special : {'"', '\\', '\n', '\x00', '\x01', '\x1f', ' ', '\x7f', '\x80', '\xff'})
    for (size_t len = 0; len < 80; ++len)
      for (size_t at = 0; at < len; ++at) {
        std::string s(len, 'a');
        s[at] = special;
        EXPECT_EQ(escape_offsets(s), offsets(s)) << len << " " << at;
        EXPECT_EQ(escaped(s), one_by_one(s)) << len << " " << at;
        EXPECT_EQ(escaped_to(s), one_by_one(s)) << len << " " << at;
        EXPECT_EQ(unescaped(escaped_to(s)), s) << len << " " << at;
        if (static_cast<unsigned char>(special) < 0x80) {
          EXPECT_EQ(escaped(s), by_writer(s));
        }
      }
}

TEST(TextJsonEscape, TheSearchFindsEveryOneInOrder) {
  std::string s(200, 'x');
  s[150] = '"';
  s[40] = '\x02';
  s[41] = '\\';
  s[199] = '\n';
  EXPECT_EQ(escape_offsets(s), (std::vector<uint32_t>{40, 41, 150, 199}));
  EXPECT_EQ(escape_offsets(std::string_view(s).substr(42)), (std::vector<uint32_t>{108, 157}));
  EXPECT_EQ(escaped_to(s), one_by_one(s));
}

TEST(TextJsonEscape, RandomTextAgreesWithTheWriter) {
  std::mt19937 rng(7);
  const std::string_view pieces[] = {
      "a",    "bc", "\"", "\\", "\n",         "\t",
      "\x02", "é",  "€",  "  ", "0123456789", "0123456789abcdefghijklmnopqrstuvwxyz"};
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    for (int k = rng() % 60; k > 0; --k) s += pieces[rng() % std::size(pieces)];
    EXPECT_EQ(escaped(s), by_writer(s)) << s;
    EXPECT_EQ(escaped_to(s), by_writer(s)) << s;
    EXPECT_EQ(unescaped(escaped_to(s)), s) << s;
  }
}

TEST(TextJsonEscape, AnyBytesComeBackFromTheirEscape) {
  std::mt19937 rng(11);
  for (int round = 0; round < 2000; ++round) {
    std::string s(rng() % 300, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 4 == 0 ? rng() % 0x20 : rng() % 256);
    EXPECT_EQ(escape_offsets(s), offsets(s));
    EXPECT_EQ(escaped_to(s), one_by_one(s));
    EXPECT_EQ(escaped(s), one_by_one(s));
    EXPECT_EQ(unescaped(escaped_to(s)), s);
  }
}

}  // namespace
