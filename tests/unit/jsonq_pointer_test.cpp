// jsonq_pointer_test.cpp — RFC 6901 pointers, the jq paths people type instead, and the
// byte-level JSON checks behind jsonq: hostile spellings first, then exact error offsets on
// broken documents, then properties over random documents (prefixes and one-byte mutations).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "text/pointer.h"

namespace {

using text::JsonFault;
using text::PointerProblem;

std::vector<std::string> names(const text::ParsedPointer& p) {
  std::vector<std::string> out;
  for (auto& t : p.tokens) out.push_back(t.name);
  return out;
}

TEST(JsonqPointer, EmptyIsTheWholeDocumentAndSlashIsTheEmptyKey) {
  auto p = text::parse_pointer("");
  EXPECT_EQ(p.problem, PointerProblem::None);
  EXPECT_TRUE(p.tokens.empty());
  p = text::parse_pointer("/");
  EXPECT_EQ(names(p), std::vector<std::string>{""});
  p = text::parse_pointer("//");
  EXPECT_EQ(names(p), (std::vector<std::string>{"", ""}));
}

TEST(JsonqPointer, EscapesDecodeOnceAndInOrder) {
  // RFC 6901 §4: ~01 is "~1" (first ~0 -> ~), never "/".
  EXPECT_EQ(names(text::parse_pointer("/a~01")), std::vector<std::string>{"a~1"});
  EXPECT_EQ(names(text::parse_pointer("/~1~0")), std::vector<std::string>{"/~"});
  EXPECT_EQ(names(text::parse_pointer("/a/b~1c/~0")),
            (std::vector<std::string>{"a", "b/c", "~"}));
  auto p = text::parse_pointer("/ab/c/");
  ASSERT_EQ(p.tokens.size(), 3u);
  EXPECT_EQ(p.tokens[0].slash, 0u);
  EXPECT_EQ(p.tokens[1].slash, 3u);
  EXPECT_EQ(p.tokens[2].slash, 5u);
}

TEST(JsonqPointer, BadTildesAreNamedWithTheLiteralSpellingToRetry) {
  struct Case {
    const char* text;
    size_t at;
    const char* suggestion;
  } cases[] = {{"/a~", 2, "/a~0"}, {"/a~2b", 2, "/a~02b"}, {"/~x/~1/~", 1, "/~0x/~1/~0"},
               {"/ok/~~", 4, "/ok/~0~0"}};
  for (auto& c : cases) {
    auto p = text::parse_pointer(c.text);
    EXPECT_EQ(p.problem, PointerProblem::BadEscape) << c.text;
    EXPECT_EQ(p.at, c.at) << c.text;
    ASSERT_TRUE(p.suggestion) << c.text;
    EXPECT_EQ(*p.suggestion, c.suggestion);
    EXPECT_EQ(text::parse_pointer(*p.suggestion).problem, PointerProblem::None);
  }
}

TEST(JsonqPointer, WithoutLeadingSlashOnlyTheUnambiguousGetASuggestion) {
  auto p = text::parse_pointer("a/b");
  EXPECT_EQ(p.problem, PointerProblem::NoLeadingSlash);
  EXPECT_EQ(p.suggestion.value_or("<none>"), "/a/b");
  p = text::parse_pointer("x~y");
  EXPECT_EQ(p.suggestion.value_or("<none>"), "/x~0y");
  // "a.b" may be the key "a.b" or the path a, b: no single reading to retry with.
  EXPECT_FALSE(text::parse_pointer("a.b").suggestion);
  EXPECT_FALSE(text::parse_pointer("a[0]").suggestion);
  EXPECT_EQ(text::parse_pointer(" ").problem, PointerProblem::NoLeadingSlash);
}

TEST(JsonqPointer, UriFragmentsArePercentDecoded) {
  auto p = text::parse_pointer("#/a%20b/c");
  EXPECT_EQ(p.problem, PointerProblem::UriFragment);
  EXPECT_EQ(p.suggestion.value_or("<none>"), "/a b/c");
  EXPECT_EQ(text::parse_pointer("#").suggestion.value_or("<none>"), "");
  EXPECT_FALSE(text::parse_pointer("#/a%2").suggestion);
  EXPECT_FALSE(text::parse_pointer("#/a%zz").suggestion);
  EXPECT_FALSE(text::parse_pointer("#a").suggestion);  // decodes to no pointer
}

TEST(JsonqPointer, JqFiltersAreRecognisedAndTranslatedWhereAPointerCanSayIt) {
  struct Case {
    const char* jq;
    const char* pointer;  // nullptr: no equivalent
  } cases[] = {
      {".", ""},
      {".a", "/a"},
      {".a.b", "/a/b"},
      {".a[0].b", "/a/0/b"},
      {".[0]", "/0"},
      {".a.[2]", "/a/2"},
      {".[007]", "/7"},
      {".a[0][1]", "/a/0/1"},
      {R"(."a/b")", "/a~1b"},
      {R"(.["x~y"])", "/x~0y"},
      {R"(.a."b\"c")", "/a/b\"c"},
      {R"(.["\u00e9"])", "/\xC3\xA9"},
      {"._x9", "/_x9"},
      {".[]", nullptr},
      {".a[]", nullptr},
      {".[-1]", nullptr},
      {".a?", nullptr},
      {"..", nullptr},
      {".a | keys", nullptr},
      {".a.", nullptr},
      {".9", nullptr},
      {".[0", nullptr},
      {R"j(."\(x)")j", nullptr},
      {R"(."unterminated)", nullptr},
      {"[0]", nullptr},
  };
  for (auto& c : cases) {
    auto p = text::parse_pointer(c.jq);
    EXPECT_EQ(p.problem, PointerProblem::JqSyntax) << c.jq;
    if (c.pointer) {
      ASSERT_TRUE(p.suggestion) << c.jq;
      EXPECT_EQ(*p.suggestion, c.pointer) << c.jq;
    } else {
      EXPECT_FALSE(p.suggestion) << c.jq << " -> " << p.suggestion.value_or("");
    }
  }
  auto bar = text::parse_pointer("keys | length");
  EXPECT_EQ(bar.problem, PointerProblem::JqSyntax);
  EXPECT_EQ(bar.at, 5u);
  // A pointer that merely contains jq-looking bytes is a pointer.
  EXPECT_EQ(names(text::parse_pointer("/a[0]|.b")), std::vector<std::string>{"a[0]|.b"});
}

TEST(JsonqPointer, EscapeTokenRoundTripsAnyBytes) {
  std::mt19937 rng(6901);
  const char alphabet[] = {'a', '~', '/', '0', '1', '\xff', ' ', '.'};
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::string> want;
    std::string pointer;
    int n = static_cast<int>(rng() % 4);
    for (int t = 0; t < n; ++t) {
      std::string name;
      for (int k = static_cast<int>(rng() % 6); k > 0; --k)
        name += alphabet[rng() % sizeof alphabet];
      want.push_back(name);
      pointer += "/" + text::escape_token(name);
    }
    auto p = text::parse_pointer(pointer);
    ASSERT_EQ(p.problem, PointerProblem::None) << pointer;
    EXPECT_EQ(names(p), want) << pointer;
  }
}

std::string respelled(std::string_view pointer, size_t i, std::string_view key) {
  auto p = text::parse_pointer(pointer);
  return text::respell_key(pointer, p.tokens, i, key).value_or("<none>");
}

TEST(JsonqPointer, RespellingEscapesTheKeyAndKeepsTheRest) {
  // '/' inside a key, left unescaped: tokens joined.
  EXPECT_EQ(respelled("/regions/eu/west/x", 1, "eu/west"), "/regions/eu~1west/x");
  EXPECT_EQ(respelled("/a/b/c", 0, "a/b/c"), "/a~1b~1c");
  EXPECT_EQ(respelled("/a/b/c", 0, "a/b"), "/a~1b/c");
  EXPECT_EQ(respelled("//", 0, "/"), "/~1");
  // ~0 and ~1 meant literally: the token as written.
  EXPECT_EQ(respelled("/~1", 0, "~1"), "/~01");
  EXPECT_EQ(respelled("/a~0b", 0, "a~0b"), "/a~00b");
  EXPECT_EQ(respelled("/x~1y/z/w", 0, "x~1y/z"), "/x~01y~1z/w");
  // Decoded and joined: ~1 decodes to '/', then '/' joins.
  EXPECT_EQ(respelled("/a~1b/c", 0, "a/b/c"), "/a~1b~1c");
  // What the pointer already names, or nothing it spells: none.
  EXPECT_EQ(respelled("/a/b", 0, "a"), "<none>");
  EXPECT_EQ(respelled("/a/b", 0, "a/"), "<none>");
  EXPECT_EQ(respelled("/a/b", 0, "a/bc"), "<none>");
  EXPECT_EQ(respelled("/a/b", 0, "b"), "<none>");
  EXPECT_EQ(respelled("/a/b", 1, "b"), "<none>");
  EXPECT_EQ(respelled("/ab", 0, "ab"), "<none>");
  EXPECT_EQ(respelled("/", 0, ""), "<none>");
  EXPECT_EQ(respelled("/a", 0, ""), "<none>");
}

TEST(JsonqPointer, ARespellingNamesTheKeyItWasMadeFor) {
  std::mt19937 rng(1901);
  const char alphabet[] = {'a', '~', '/', '0', '1', '\xff'};
  int found = 0;
  for (int n = 0; n < 3000; ++n) {
    std::string pointer;
    for (int t = static_cast<int>(rng() % 4) + 1; t > 0; --t) {
      pointer += '/';
      for (int k = static_cast<int>(rng() % 4); k > 0; --k)
        pointer += alphabet[rng() % sizeof alphabet];
    }
    auto p = text::parse_pointer(pointer);
    if (p.problem != PointerProblem::None) continue;
    std::string key;
    for (int k = static_cast<int>(rng() % 6); k > 0; --k) key += alphabet[rng() % sizeof alphabet];
    for (size_t i = 0; i < p.tokens.size(); ++i) {
      auto r = text::respell_key(pointer, p.tokens, i, key);
      if (!r) continue;
      ++found;
      auto q = text::parse_pointer(*r);
      ASSERT_EQ(q.problem, PointerProblem::None) << *r;
      ASSERT_GT(q.tokens.size(), i) << *r;
      EXPECT_EQ(q.tokens[i].name, key) << pointer << " -> " << *r;
      EXPECT_NE(*r, pointer);
      for (size_t t = 0; t < i; ++t) EXPECT_EQ(q.tokens[t].name, p.tokens[t].name) << *r;
    }
  }
  EXPECT_GT(found, 20);
}

TEST(JsonqPointer, ArrayIndicesAreDecimalWithoutLeadingZeros) {
  EXPECT_EQ(text::array_index("0"), 0u);
  EXPECT_EQ(text::array_index("10"), 10u);
  EXPECT_EQ(text::array_index("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(text::array_index("99999999999999999999999"), UINT64_MAX);  // saturates
  for (const char* bad : {"", "01", "00", "-1", "-", "1x", " 1", "+1", "1.0", "0x1"})
    EXPECT_FALSE(text::array_index(bad)) << bad;
  EXPECT_EQ(text::canonical_index("007").value_or("<none>"), "7");
  EXPECT_EQ(text::canonical_index("00").value_or("<none>"), "0");
  EXPECT_FALSE(text::canonical_index("7"));
  EXPECT_FALSE(text::canonical_index("0"));
  EXPECT_FALSE(text::canonical_index("0a"));
}

TEST(JsonqJson, NumberGrammarIsRfc8259Exactly) {
  for (const char* ok : {"0", "-0", "1", "-12", "1.5", "0.0", "1e5", "1E+5", "1e-05", "-0.5e10",
                         "12345678901234567890123", "1e400"})
    EXPECT_TRUE(text::json_number(ok)) << ok;
  for (const char* bad : {"", "-", "01", "-01", "1.", ".5", "1e", "1e+", "+1", "1x", "0x10",
                          "Infinity", "NaN", "1.5.2", "1ee5", "1 "})
    EXPECT_FALSE(text::json_number(bad)) << bad;
  EXPECT_TRUE(text::number_is_integer("-12345678901234567890123"));
  EXPECT_FALSE(text::number_is_integer("1.0"));
  EXPECT_FALSE(text::number_is_integer("1E2"));
  EXPECT_EQ(text::scalar_kind("1e2"), text::JsonKind::Float);
  EXPECT_EQ(text::scalar_kind("-7"), text::JsonKind::Integer);
  EXPECT_EQ(text::scalar_kind("\"x\""), text::JsonKind::String);
  EXPECT_EQ(text::scalar_kind("false"), text::JsonKind::Boolean);
  EXPECT_EQ(text::scalar_kind("null"), text::JsonKind::Null);
}

TEST(JsonqJson, ScalarTokensMustBeWhole) {
  std::string doc = R"(["a\"b",true,nul,truex,"x\q",1.)";
  EXPECT_TRUE(text::json_scalar(doc, 1, 6));    // "a\"b"
  EXPECT_FALSE(text::json_scalar(doc, 1, 5));   // cut inside the string
  EXPECT_TRUE(text::json_scalar(doc, 8, 4));    // true
  EXPECT_FALSE(text::json_scalar(doc, 13, 3));  // nul
  EXPECT_FALSE(text::json_scalar(doc, 17, 5));  // truex
  EXPECT_FALSE(text::json_scalar(doc, 23, 5));  // "x\q"
  EXPECT_FALSE(text::json_scalar(doc, 29, 2));  // 1.
  EXPECT_FALSE(text::json_scalar(doc, 29, 99));
}

TEST(JsonqJson, StringScanNamesTheFirstBadByte) {
  struct Case {
    std::string body;  // after the opening quote
    bool ok;
    size_t at;
    JsonFault fault;
  } cases[] = {
      {R"(abc")", true, 3, JsonFault::UnexpectedEnd},
      {R"(a\"b")", true, 4, JsonFault::UnexpectedEnd},
      {R"(\ud83d\ude00")", true, 12, JsonFault::UnexpectedEnd},
      {R"(\x")", false, 1, JsonFault::BadEscape},
      {R"(\u12g4")", false, 4, JsonFault::BadEscape},
      {R"(\ud800")", false, 6, JsonFault::LoneSurrogate},   // the quote, where \ should be
      {R"(\ud800\n")", false, 7, JsonFault::LoneSurrogate},  // n where u should be
      {R"(\ud800\u0041")", false, 8, JsonFault::LoneSurrogate},
      {R"(\ud800\ud800")", false, 9, JsonFault::LoneSurrogate},
      {R"(\udc00")", false, 3, JsonFault::LoneSurrogate},  // a low half is known at 'c'
      {R"(\uDFFF")", false, 3, JsonFault::LoneSurrogate},
      {R"(\udcz")", false, 3, JsonFault::LoneSurrogate},  // known before the bad digit
      {R"(\udc)", false, 3, JsonFault::LoneSurrogate},    // and before the end
      {R"(\ud7ff")", true, 6, JsonFault::UnexpectedEnd},
      {R"(\ue000")", true, 6, JsonFault::UnexpectedEnd},
      {"a\tb\"", false, 1, JsonFault::ControlCharacter},
      {"\xC0\x80\"", false, 0, JsonFault::InvalidUtf8},
      {"\xE0\x80\x80\"", false, 1, JsonFault::InvalidUtf8},
      {"\xED\xA0\x80\"", false, 1, JsonFault::InvalidUtf8},  // a UTF-8 surrogate
      {"\xF4\x90\x80\x80\"", false, 1, JsonFault::InvalidUtf8},
      {"\xE2\x82\"", false, 2, JsonFault::InvalidUtf8},
      {"\xF5\"", false, 0, JsonFault::InvalidUtf8},
      {"\xE2\x82\xAC\"", true, 3, JsonFault::UnexpectedEnd},
      {"abc", false, 3, JsonFault::UnexpectedEnd},
      {"\\", false, 1, JsonFault::UnexpectedEnd},
      {"\\u12", false, 4, JsonFault::UnexpectedEnd},
  };
  for (auto& c : cases) {
    auto r = text::scan_json_string(c.body, 0, true);
    EXPECT_EQ(r.ok, c.ok) << c.body;
    EXPECT_EQ(r.end, c.at) << c.body;
    if (!c.ok) {
      EXPECT_EQ(r.fault, c.fault) << c.body;
    }
  }
  // The fast path leaves control characters and UTF-8 to simdjson's first stage.
  EXPECT_TRUE(text::scan_json_string("a\tb\xC0\"", 0, false).ok);
  EXPECT_FALSE(text::scan_json_string(R"(\ud800")", 0, false).ok);
}

TEST(JsonqJson, UnescapeDecodesEveryEscape) {
  EXPECT_EQ(text::unescape_json_string(R"(a\"\\\/\b\f\n\r\t)"), "a\"\\/\b\f\n\r\t");
  EXPECT_EQ(text::unescape_json_string(R"(\u00e9\u20AC)"), "\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(text::unescape_json_string(R"(\ud83d\ude00!)"), "\xF0\x9F\x98\x80!");
  EXPECT_EQ(text::unescape_json_string(R"(\u0000)"), std::string(1, '\0'));
  EXPECT_EQ(text::unescape_json_string("plain \xC3\xA9"), "plain \xC3\xA9");
}

TEST(JsonqJson, KeysAreViewsUnlessTheyNeedDecoding) {
  std::string doc = R"({"plain":1,"a\/b":2,"\u00e9\"":3})";
  std::deque<std::string> store;
  std::string_view plain = text::json_key(doc, 2, store);
  EXPECT_EQ(plain, "plain");
  EXPECT_EQ(plain.data(), doc.data() + 2);  // no copy
  EXPECT_TRUE(store.empty());
  EXPECT_EQ(text::json_key(doc, doc.find("a\\"), store), "a/b");
  EXPECT_EQ(text::json_key(doc, doc.find("\\u00e9"), store), "\xC3\xA9\"");
  EXPECT_EQ(store.size(), 2u);
}

struct Broken {
  std::string doc;
  size_t offset;
  JsonFault fault;
};

TEST(JsonqJson, LocatorGivesTheExactOffsetOfTheFirstImpossibleByte) {
  std::string deep_ok(1024, '['), deep_bad(1025, '[');
  deep_ok += std::string(1024, ']');
  deep_bad += std::string(1025, ']');
  std::vector<Broken> cases = {
      {"", 0, JsonFault::UnexpectedEnd},
      {"  \n ", 4, JsonFault::UnexpectedEnd},
      {"[1,]", 3, JsonFault::UnexpectedByte},
      {"{\"a\":1,}", 7, JsonFault::UnexpectedByte},
      {"[1 2]", 3, JsonFault::UnexpectedByte},
      {"{\"a\" 1}", 5, JsonFault::UnexpectedByte},
      {"{1:2}", 1, JsonFault::UnexpectedByte},
      {"[1}", 2, JsonFault::UnexpectedByte},
      {"[1]]", 3, JsonFault::TrailingContent},
      {"1 2", 2, JsonFault::TrailingContent},
      {"{} x", 3, JsonFault::TrailingContent},
      {"[01]", 2, JsonFault::UnexpectedByte},
      {"01", 1, JsonFault::TrailingContent},
      {"[-]", 2, JsonFault::UnexpectedByte},
      {"[1.]", 3, JsonFault::UnexpectedByte},
      {"[1e+]", 4, JsonFault::UnexpectedByte},
      {"[.5]", 1, JsonFault::UnexpectedByte},
      {"[truex]", 5, JsonFault::UnexpectedByte},
      {"[nul]", 4, JsonFault::UnexpectedByte},
      {"tru", 3, JsonFault::UnexpectedEnd},
      {"[NaN]", 1, JsonFault::UnexpectedByte},
      {"[1,2", 4, JsonFault::UnexpectedEnd},
      {"[\"abc", 5, JsonFault::UnexpectedEnd},
      {"{\"a\":", 5, JsonFault::UnexpectedEnd},
      {"[\"\\ud800\"]", 8, JsonFault::LoneSurrogate},
      {"[\"a\x01\"]", 3, JsonFault::ControlCharacter},
      {"{\"k\xFF\":1}", 3, JsonFault::InvalidUtf8},
      {"[\xC3\xA9]", 1, JsonFault::UnexpectedByte},  // UTF-8 outside a string
      {"\xEF\xBB\xBF[1,]", 6, JsonFault::UnexpectedByte},  // offsets count the BOM
      {"\xEF\xBB\xBF", 3, JsonFault::UnexpectedEnd},
      {"\xEF\xBB[]", 0, JsonFault::UnexpectedByte},  // half a BOM is not one
      {"{\n  \"a\": [1,\n   2,,\n]}", 18, JsonFault::UnexpectedByte},
      {deep_bad, 1024, JsonFault::TooDeep},
  };
  for (auto& c : cases) {
    auto e = text::find_json_error(c.doc, 1024);
    ASSERT_TRUE(e) << c.doc.substr(0, 40);
    EXPECT_EQ(e->offset, c.offset) << c.doc.substr(0, 40);
    EXPECT_EQ(e->fault, c.fault) << c.doc.substr(0, 40);
  }
  for (std::string ok : std::vector<std::string>{"0", " -0.5e+3 ", "\"\"", "[]", "{}",
                                                 "{\"\":[{}]}", "\xEF\xBB\xBF{}",
                         "[\"\\ud83d\\ude00\",\"\xF0\x9F\x98\x80\",1e400,true,false,null]",
                         deep_ok})
    EXPECT_FALSE(text::find_json_error(ok, 1024)) << ok.substr(0, 40);
  // A depth cap of 2 counts containers, the root included.
  EXPECT_FALSE(text::find_json_error("[{}]", 2));
  EXPECT_EQ(text::find_json_error("[{\"a\":[]}]", 2)->offset, 6u);
}

TEST(JsonqJson, LineAndColumnAreOneBasedBytes) {
  std::string doc = "{\n\t\"\xC3\xA9\": x\n}";
  auto lc = text::line_column(doc, doc.find('x'));
  EXPECT_EQ(lc.line, 2u);
  EXPECT_EQ(lc.column, 8u);  // tab, quote, two bytes of é, quote, colon, space, x
  EXPECT_EQ(text::line_column(doc, 0).column, 1u);
  EXPECT_EQ(text::line_column(doc, doc.size()).line, 3u);
  EXPECT_EQ(text::line_column(doc, 99).line, 3u);  // clamped to the end
  EXPECT_EQ(text::shown_byte(doc, 0), "'{'");
  EXPECT_EQ(text::shown_byte(doc, 1), "\\x0a");
  EXPECT_EQ(text::shown_byte(doc, doc.size()), "the end");
  text::JsonSyntaxError e{0, JsonFault::UnexpectedEnd, "a value"};
  EXPECT_EQ(text::describe_json_error("  ", e, 1024), "the input holds no value");
  EXPECT_EQ(text::describe_json_error("[", {1, JsonFault::UnexpectedEnd, "a value or ']'"}, 1024),
            "the input ends early, where a value or ']' should come");
}

// --- properties over random documents -------------------------------------------------

struct Gen {
  std::mt19937 rng;
  std::string ws() {
    static const char* spaces[] = {"", "", " ", "\n", "\t", "\r\n  "};
    return spaces[rng() % 6];
  }
  std::string str() {
    static const char* parts[] = {"a", "\\\"", "\\\\", "\\/", "\\n", "\\u00e9", "\\ud83d\\ude00",
                                  "\xC3\xA9", "\xF0\x9F\x98\x80", "~", "/", " "};
    std::string s = "\"";
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) s += parts[rng() % 12];
    return s + "\"";
  }
  std::string value(int depth) {
    static const char* scalars[] = {"0", "-1", "3.25", "1e400", "-0.5E-3", "123456789012345678901",
                                    "true", "false", "null"};
    int pick = static_cast<int>(rng() % (depth > 4 ? 3 : 5));
    if (pick == 0) return scalars[rng() % 9];
    if (pick == 1 || pick == 2) return str();
    bool arr = pick == 3;
    std::string s(1, arr ? '[' : '{');
    int n = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      if (i) s += ",";
      s += ws();
      if (!arr) s += str() + ws() + ":" + ws();
      s += value(depth + 1) + ws();
    }
    return s + (arr ? ']' : '}');
  }
};

TEST(JsonqJson, NewlinesAreCountedExactlyAtEveryLengthAndAlignment) {
  std::mt19937 rng(10);
  std::string s;
  for (int i = 0; i < 9000; ++i) s += "\n\r a\xff"[rng() % 5];
  for (size_t from = 0; from < 40; ++from)
    for (size_t len : {0, 1, 15, 16, 17, 31, 255 * 16 - 1, 255 * 16, 255 * 16 + 1, 8000}) {
      std::string_view part = std::string_view(s).substr(from, len);
      EXPECT_EQ(text::line_column(part, part.size()).line,
                1 + static_cast<uint64_t>(std::count(part.begin(), part.end(), '\n')))
          << from << " " << len;
    }
  std::string all(300 * 16 + 3, '\n');  // every lane full past one counter's 255
  EXPECT_EQ(text::line_column(all, all.size()).line, all.size() + 1);
}

TEST(JsonqJson, ManyPlacesInOnePassAgreeWithOneAtATime) {
  std::string doc = "a\r\nbb\n\nccc\nd";
  std::vector<size_t> offsets = {0, 1, 3, 5, 6, 7, 7, 11, doc.size()};
  auto many = text::line_columns(doc, offsets);
  ASSERT_EQ(many.size(), offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    auto one = text::line_column(doc, offsets[i]);
    EXPECT_EQ(many[i].line, one.line) << offsets[i];
    EXPECT_EQ(many[i].column, one.column) << offsets[i];
  }
  EXPECT_EQ(many[2].line, 2u);    // after "a\r\n": the \r ends no line
  EXPECT_EQ(many[7].column, 1u);  // 'd', the last line, with no newline after it
  EXPECT_EQ(many[7].line, 5u);
}

TEST(JsonqJson, EveryPrefixOfAValidDocumentIsViable) {
  Gen g{std::mt19937(8259)};
  for (int i = 0; i < 300; ++i) {
    std::string doc = g.ws() + g.value(0) + g.ws();
    ASSERT_FALSE(text::find_json_error(doc, 1024)) << doc;
    for (size_t k = 0; k < doc.size(); ++k) {
      auto e = text::find_json_error(doc.substr(0, k), 1024);
      if (!e) continue;  // a prefix may itself be JSON: "1" of "12"
      EXPECT_EQ(e->fault, JsonFault::UnexpectedEnd) << doc.substr(0, k);
      EXPECT_EQ(e->offset, k) << doc.substr(0, k);
    }
  }
}

TEST(JsonqJson, AMutatedByteNeverMovesTheErrorBeforeIt) {
  Gen g{std::mt19937(6902)};
  const char bytes[] = {'x', ',', ']', '}', '"', '\\', ':', '0', '\x01', '\xFF', '\xC3', ' '};
  for (int i = 0; i < 2000; ++i) {
    std::string doc = g.value(0);
    size_t k = g.rng() % doc.size();
    doc[k] = bytes[g.rng() % sizeof bytes];
    auto e = text::find_json_error(doc, 1024);
    // The bytes before k are unchanged, so they are still a viable prefix.
    if (e) {
      EXPECT_GE(e->offset, k) << doc;
    }
  }
}

}  // namespace
