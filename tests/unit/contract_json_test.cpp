// contract_json_test.cpp — the one serializer: JsonWriter escaping and comma placement,
// text_or_bytes, the ordered Json tree, streamed values, and the JSON form of errors and
// repairs (CONTRACT.md §1, §3). UTF-8 validation and base64 are contract_utf8_test.cpp.

#include "contract/error.h"
#include "contract/json.h"

#include "bytes_helpers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using contract::Drain;
using contract::Error;
using contract::Json;
using contract::JsonWriter;
using contract::printable;
using contract::Repair;
using contract::unbase64;
using contract::valid_utf8;
using test_bytes::B;
using test_bytes::contains_replacement_char;

// ---------------------------------------------------------------- JsonWriter escaping

std::string write_string(std::string_view s) {
  std::string out;
  JsonWriter w(out);
  w.string(s);
  return out;
}

std::string write_bytes(std::string_view s) {
  std::string out;
  JsonWriter w(out);
  w.bytes(s);
  return out;
}

TEST(ContractJson, WriterEscapesEveryControlByte) {
  const char* hex = "0123456789abcdef";
  for (int c = 0; c < 0x20; ++c) {
    std::string expected;
    switch (c) {
      case '\b': expected = "\\b"; break;
      case '\t': expected = "\\t"; break;
      case '\n': expected = "\\n"; break;
      case '\f': expected = "\\f"; break;
      case '\r': expected = "\\r"; break;
      default:
        expected = std::string("\\u00") + hex[c >> 4] + hex[c & 15];
    }
    std::string in(1, static_cast<char>(c));
    EXPECT_EQ(write_string(in), "\"" + expected + "\"") << c;
    EXPECT_EQ(write_bytes(in), "\"" + expected + "\"") << c;
    EXPECT_EQ(write_string("a" + in + "b"), "\"a" + expected + "b\"") << c;
  }
  // A NUL in the middle of a string_view is data, not an end.
  EXPECT_EQ(write_string(std::string_view("x\0y", 3)), "\"x\\u0000y\"");
}

TEST(ContractJson, WriterEscapesQuoteAndBackslashOnly) {
  EXPECT_EQ(write_string("\""), "\"\\\"\"");
  EXPECT_EQ(write_string("\\"), "\"\\\\\"");
  EXPECT_EQ(write_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(write_string("\x7F"), "\"\x7F\"");        // DEL passes through
  EXPECT_EQ(write_string("a/b</script>"), "\"a/b</script>\"");  // '/' is not escaped
  EXPECT_EQ(write_string("h\xC3\xA9\xE2\x82\xAC"), "\"h\xC3\xA9\xE2\x82\xAC\"");  // as is
  EXPECT_EQ(write_string(""), "\"\"");
  // Every printable ASCII byte other than '"' and '\\' is written unchanged.
  std::string printable_ascii;
  for (int c = 0x20; c < 0x80; ++c)
    if (c != '"' && c != '\\') printable_ascii += static_cast<char>(c);
  EXPECT_EQ(write_string(printable_ascii), "\"" + printable_ascii + "\"");
}

TEST(ContractJson, StringWithInvalidUtf8IsHexEscapedNeverReplacementChar) {
  EXPECT_EQ(write_string(B({'a', 0xFF, 'b'})), "\"a\\\\xffb\"");
  EXPECT_EQ(write_string(B({0xC0, 0x80})), "\"\\\\xc0\\\\x80\"");
  EXPECT_EQ(write_string(B({0xED, 0xA0, 0x80})), "\"\\\\xed\\\\xa0\\\\x80\"");
  // The valid parts of a mixed string are kept as they are.
  EXPECT_EQ(write_string(B({0xC3, 0xA9, 0x80, 'x'})), "\"\xC3\xA9\\\\x80x\"");
  // Truncated at the end.
  EXPECT_EQ(write_string(B({'o', 'k', 0xE2, 0x82})), "\"ok\\\\xe2\\\\x82\"");
  EXPECT_EQ(printable(B({0xE2, 0x82})), "\\xe2\\x82");
  // A control byte next to an invalid one never reaches the output raw (whether it is written
  // as the JSON escape \n or rendered \x0a first is the renderer's choice).
  {
    std::string w = write_string(B({'\n', 0x80, '\t'}));
    for (char c : w) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << printable(w);
    EXPECT_NE(w.find("\\\\x80"), std::string::npos) << w;
  }

  std::mt19937_64 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string s(1 + rng() % 24, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xFF);
    std::string w = write_string(s);
    ASSERT_FALSE(contains_replacement_char(w)) << round;
    ASSERT_TRUE(valid_utf8(w)) << round;
    for (char c : w) ASSERT_GE(static_cast<unsigned char>(c), 0x20) << round;
    ASSERT_FALSE(contains_replacement_char(printable(s))) << round;
    ASSERT_TRUE(valid_utf8(printable(s))) << round;
  }
}

TEST(ContractJson, BytesChoosesStringOrBase64) {
  EXPECT_EQ(write_bytes("src/main.cpp"), "\"src/main.cpp\"");
  EXPECT_EQ(write_bytes("caf\xC3\xA9"), "\"caf\xC3\xA9\"");
  EXPECT_EQ(write_bytes(""), "\"\"");
  EXPECT_EQ(write_bytes("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(write_bytes(B({'f', 'o', 0xFF})), "{\"b64\":\"Zm//\"}");
  EXPECT_EQ(write_bytes(B({0xC0, 0x80})), "{\"b64\":\"wIA=\"}");
  EXPECT_EQ(write_bytes(B({0xED, 0xA0, 0x80})), "{\"b64\":\"7aCA\"}");
  EXPECT_EQ(write_bytes(B({0x80})), "{\"b64\":\"gA==\"}");

  // Whichever form is chosen, the original bytes come back and no U+FFFD appears.
  std::mt19937_64 rng(99);
  for (int round = 0; round < 2000; ++round) {
    std::string s(rng() % 12, '\0');
    for (auto& c : s) c = static_cast<char>(rng() % 3 == 0 ? (rng() & 0xFF) : 'a' + rng() % 26);
    std::string w = write_bytes(s);
    ASSERT_FALSE(contains_replacement_char(w));
    if (valid_utf8(s)) {
      ASSERT_EQ(w.front(), '"') << round;
    } else {
      ASSERT_EQ(w.rfind("{\"b64\":\"", 0), 0u) << round;
      ASSERT_EQ(w.substr(w.size() - 2), "\"}");
      std::string back;
      ASSERT_TRUE(unbase64(w.substr(8, w.size() - 10), back));
      ASSERT_EQ(back, s);
    }
  }
  // In a Json tree too, and in object members (key then text_or_bytes value).
  Json j = Json::object({{"ok", Json::bytes("x")}, {"bad", Json::bytes(B({0xFF}))}});
  EXPECT_EQ(j.dump(), "{\"ok\":\"x\",\"bad\":{\"b64\":\"/w==\"}}");
  Json arr = Json::array({Json::bytes(B({0xFF})), Json::bytes(B({0xFE})), Json::bytes("z")});
  EXPECT_EQ(arr.dump(), "[{\"b64\":\"/w==\"},{\"b64\":\"/g==\"},\"z\"]");
}

TEST(ContractJson, KeysAreEscapedAndHexRenderedToo) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("a\"b\n");
  w.integer(1);
  w.end_object();
  EXPECT_EQ(out, "{\"a\\\"b\\n\":1}");

  // A key is text like a message (json.h): invalid UTF-8 in it must not reach the output as
  // raw bytes (the document would not be UTF-8, hence not JSON); it is \xNN-rendered.
  std::string out2;
  JsonWriter w2(out2);
  w2.begin_object();
  w2.key(B({'k', 0xFF}));
  w2.integer(1);
  w2.end_object();
  EXPECT_TRUE(valid_utf8(out2)) << printable(out2);
  EXPECT_EQ(out2, "{\"k\\\\xff\":1}");
  Json j = Json::object({{B({0xC0, 0x80}), 1}});
  EXPECT_TRUE(valid_utf8(j.dump())) << printable(j.dump());
}

// ---------------------------------------------------------------- JsonWriter structure

TEST(ContractJson, WriterCommaPlacement) {
  {
    std::string out;
    JsonWriter w(out);
    w.begin_object();
    w.end_object();
    EXPECT_EQ(out, "{}");
  }
  {
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    w.end_array();
    EXPECT_EQ(out, "[]");
  }
  {
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    w.begin_array();
    w.end_array();
    w.begin_object();
    w.end_object();
    w.begin_array();
    w.begin_array();
    w.end_array();
    w.end_array();
    w.end_array();
    EXPECT_EQ(out, "[[],{},[[]]]");
  }
  {
    std::string out;
    JsonWriter w(out);
    w.begin_object();
    w.key("a");
    w.begin_object();
    w.end_object();
    w.key("b");
    w.begin_array();
    w.end_array();
    w.key("c");
    w.null();
    w.key("d");
    w.begin_object();
    w.key("e");
    w.begin_array();
    w.begin_object();
    w.end_object();
    w.end_array();
    w.end_object();
    w.key("f");
    w.boolean(false);
    w.end_object();
    EXPECT_EQ(out, "{\"a\":{},\"b\":[],\"c\":null,\"d\":{\"e\":[{}]},\"f\":false}");
  }
  {
    // An array of objects, each with members.
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    for (int i = 0; i < 3; ++i) {
      w.begin_object();
      w.key("i");
      w.integer(i);
      w.key("s");
      w.string("x");
      w.end_object();
    }
    w.end_array();
    EXPECT_EQ(out, "[{\"i\":0,\"s\":\"x\"},{\"i\":1,\"s\":\"x\"},{\"i\":2,\"s\":\"x\"}]");
  }
  {
    // Scalars of every kind in an array, raw JSON included.
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    w.null();
    w.boolean(true);
    w.integer(-1);
    w.unsigned_integer(2);
    w.string("s");
    w.bytes("b");
    w.raw("{\"r\":[1,2]}");
    w.end_array();
    EXPECT_EQ(out, "[null,true,-1,2,\"s\",\"b\",{\"r\":[1,2]}]");
  }
  {
    // Appending to a buffer that already holds a record does not disturb it.
    std::string out = "{\"x\":1}\n";
    JsonWriter w(out);
    w.begin_object();
    w.key("y");
    w.integer(2);
    w.end_object();
    EXPECT_EQ(out, "{\"x\":1}\n{\"y\":2}");
  }
}

TEST(ContractJson, TreeCommaPlacement) {
  EXPECT_EQ(Json::object().dump(), "{}");
  EXPECT_EQ(Json::array().dump(), "[]");
  EXPECT_EQ(Json().dump(), "null");
  EXPECT_EQ(Json::array({Json::array(), Json::object(), Json::array({Json::array()})}).dump(),
            "[[],{},[[]]]");
  Json doc = Json::object({{"empty", Json::object()},
                           {"list", Json::array({Json::object({{"a", 1}}), Json::object(),
                                                 Json::object({{"b", 2}, {"c", nullptr}})})},
                           {"nested", Json::object({{"x", Json::object({{"y", Json::array()}})}})},
                           {"t", true}});
  EXPECT_EQ(doc.dump(),
            "{\"empty\":{},\"list\":[{\"a\":1},{},{\"b\":2,\"c\":null}],"
            "\"nested\":{\"x\":{\"y\":[]}},\"t\":true}");
  Json pushed;
  pushed.push(1);
  pushed.push(Json::object());
  pushed.push("x");
  EXPECT_EQ(pushed.type(), Json::Type::Array);
  EXPECT_EQ(pushed.dump(), "[1,{},\"x\"]");
  Json raw = Json::object({{"r", Json::raw("[1, 2]")}, {"s", "t"}});
  EXPECT_EQ(raw.dump(), "{\"r\":[1, 2],\"s\":\"t\"}");
}

TEST(ContractJson, SetReplacesInPlaceAndKeepsOrder) {
  Json j;
  j.set("a", 1);
  j.set("b", 2);
  j.set("c", 3);
  EXPECT_EQ(j.type(), Json::Type::Object);
  j.set("b", "two");
  EXPECT_EQ(j.dump(), "{\"a\":1,\"b\":\"two\",\"c\":3}");
  ASSERT_EQ(j.members().size(), 3u);
  EXPECT_EQ(j.members()[1].first, "b");
  j.set("a", Json::object({{"z", nullptr}}));
  EXPECT_EQ(j.dump(), "{\"a\":{\"z\":null},\"b\":\"two\",\"c\":3}");
  j.set("d", 4);
  EXPECT_EQ(j.dump(), "{\"a\":{\"z\":null},\"b\":\"two\",\"c\":3,\"d\":4}");
  ASSERT_NE(j.get("b"), nullptr);
  EXPECT_EQ(j.get("b")->str(), "two");
  EXPECT_EQ(j.get("missing"), nullptr);
  // The returned reference is the stored member.
  j.set("c", Json::array()).push(9);
  EXPECT_EQ(j.dump(), "{\"a\":{\"z\":null},\"b\":\"two\",\"c\":[9],\"d\":4}");
}

TEST(ContractJson, IntegerExtremes) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr uint64_t kUMax = std::numeric_limits<uint64_t>::max();
  {
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    w.integer(kMin);
    w.integer(kMax);
    w.integer(0);
    w.integer(-1);
    w.unsigned_integer(kUMax);
    w.unsigned_integer(0);
    w.end_array();
    EXPECT_EQ(out,
              "[-9223372036854775808,9223372036854775807,0,-1,18446744073709551615,0]");
  }
  Json j = Json::object({{"min", Json(static_cast<long long>(kMin))},
                         {"max", Json(static_cast<long long>(kMax))},
                         {"umax", Json(static_cast<unsigned long long>(kUMax))},
                         {"u32", Json(4294967295u)},
                         {"i", Json(-7)}});
  EXPECT_EQ(j.dump(),
            "{\"min\":-9223372036854775808,\"max\":9223372036854775807,"
            "\"umax\":18446744073709551615,\"u32\":4294967295,\"i\":-7}");
  EXPECT_EQ(j.get("min")->as_int(), kMin);
  EXPECT_EQ(j.get("umax")->as_uint(), kUMax);
  EXPECT_EQ(j.get("umax")->type(), Json::Type::Uint);
  EXPECT_EQ(j.get("min")->type(), Json::Type::Int);
  // No floats anywhere: integers never render with a '.' or an exponent.
  EXPECT_EQ(j.dump().find_first_of(".eE"), std::string::npos);
}

// ---------------------------------------------------------------- errors and repairs as JSON

TEST(ContractJson, ErrorKeyOrder) {
  Error e = contract::make_error("io.not-found", "no such file: a.txt.",
                                 Json::object({{"path", "a.txt"}, {"errno", 2}}));
  EXPECT_EQ(e.to_json().dump(),
            "{\"code\":\"NOT_FOUND\",\"rule\":\"io.not-found\",\"message\":\"no such file: "
            "a.txt.\",\"hint\":null,\"repair\":null,\"detail\":{\"path\":\"a.txt\",\"errno\":2}}");
  e.hint = "check the spelling";
  e.repair = Repair::none("needs judgement");
  Json j = e.to_json();
  ASSERT_EQ(j.members().size(), 6u);
  const char* order[] = {"code", "rule", "message", "hint", "repair", "detail"};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(j.members()[i].first, order[i]);
  EXPECT_EQ(j.dump(),
            "{\"code\":\"NOT_FOUND\",\"rule\":\"io.not-found\",\"message\":\"no such file: "
            "a.txt.\",\"hint\":\"check the spelling\",\"repair\":{\"kind\":\"none\",\"reason\":"
            "\"needs judgement\"},\"detail\":{\"path\":\"a.txt\",\"errno\":2}}");
  // The default detail is an empty object, never null.
  EXPECT_EQ(contract::make_error("args.conflict", "x.").to_json().dump(),
            "{\"code\":\"INVALID_ARGS\",\"rule\":\"args.conflict\",\"message\":\"x.\","
            "\"hint\":null,\"repair\":null,\"detail\":{}}");
}

TEST(ContractJson, ErrorCodeComesFromTheCatalogue) {
  EXPECT_EQ(contract::make_error("limit.line-too-long", "m").to_json().get("code")->str(),
            "PRECONDITION_FAILED");
  EXPECT_EQ(contract::make_error("path.outside-root", "m").to_json().get("code")->str(),
            "PERMISSION_DENIED");
  EXPECT_EQ(contract::make_error("conflict.locked", "m").to_json().get("code")->str(),
            "CONFLICT");
  EXPECT_EQ(contract::make_error("io.write-failed", "m").to_json().get("code")->str(),
            "GENERAL_ERROR");
  EXPECT_EQ(contract::make_error("io.not-found", "m").exit(), contract::Exit::NotFound);
}

TEST(ContractJson, ErrorMessageWithInvalidUtf8) {
  Error e = contract::make_error("io.not-found", "no file " + B({0xFF}) + ".",
                                 Json::object({{"path", Json::bytes(B({0xFF}))}}));
  std::string s = e.to_json().dump();
  EXPECT_FALSE(contains_replacement_char(s));
  EXPECT_TRUE(valid_utf8(s));
  EXPECT_NE(s.find("\"message\":\"no file \\\\xff.\""), std::string::npos) << s;
  EXPECT_NE(s.find("\"detail\":{\"path\":{\"b64\":\"/w==\"}}"), std::string::npos) << s;
}

TEST(ContractJson, RepairShapes) {
  EXPECT_EQ(Repair{}.to_json().dump(), "null");
  EXPECT_EQ(Repair::none("the file changed").to_json().dump(),
            "{\"kind\":\"none\",\"reason\":\"the file changed\"}");
  EXPECT_EQ(Repair::retry({"peek", "--lines", "1:5", "a b"}).to_json().dump(),
            "{\"kind\":\"retry\",\"argv\":[\"peek\",\"--lines\",\"1:5\",\"a b\"]}");
  // argv elements are text_or_bytes: a non-UTF-8 path stays exact.
  EXPECT_EQ(Repair::retry({"peek", B({'x', 0xFF})}).to_json().dump(),
            "{\"kind\":\"retry\",\"argv\":[\"peek\",{\"b64\":\"eP8=\"}]}");
  Repair choose;
  choose.kind = Repair::Kind::Choose;
  choose.argvs = {{"t", "--a"}, {"t", "--b"}};
  EXPECT_EQ(choose.to_json().dump(),
            "{\"kind\":\"choose\",\"options\":[{\"argv\":[\"t\",\"--a\"]},{\"argv\":[\"t\","
            "\"--b\"]}]}");
  Repair empty_choose;
  empty_choose.kind = Repair::Kind::Choose;
  EXPECT_EQ(empty_choose.to_json().dump(), "{\"kind\":\"choose\",\"options\":[]}");
}

// Stable bytes go to the drain's own taker when it has one, else into the output string.
TEST(Json, DrainStableBytes) {
  std::string out = "a", taken;
  Drain plain([] {});
  plain.stable(out, "bc");
  EXPECT_EQ(out, "abc");
  Drain taker([] {}, [&](std::string_view b) { taken += b; });
  taker.stable(out, "de");
  EXPECT_EQ(out, "abc");
  EXPECT_EQ(taken, "de");
  EXPECT_FALSE(Drain());
  EXPECT_TRUE(taker);
}

// A streamed value is written in place, drained as it goes, and the document around it is
// exactly what an eager value would have made.
TEST(Json, StreamIsWrittenInPlaceAndDrained) {
  Json lines = Json::stream([](std::string& out, const Drain& drain) {
    JsonWriter w(out);
    w.begin_array();
    for (int i = 0; i < 5; ++i) {
      w.unsigned_integer(static_cast<uint64_t>(i));
      if (drain) drain();
    }
    w.end_array();
  });
  Json doc = Json::object({{"a", 1}, {"lines", lines}, {"z", true}});
  EXPECT_EQ(doc.dump(), "{\"a\":1,\"lines\":[0,1,2,3,4],\"z\":true}");
  // Drained: what was written so far leaves the buffer, and the pieces add up to the same.
  std::string buf, sent;
  int drains = 0;
  JsonWriter w(buf, [&] {
    ++drains;
    sent += buf;
    buf.clear();
  });
  doc.write(w);
  sent += buf;
  EXPECT_EQ(drains, 5);
  EXPECT_EQ(sent, doc.dump());
  // Copies share the renderer, and render() appends the bytes alone.
  Json copy = lines;
  std::string alone;
  copy.render(alone);
  EXPECT_EQ(alone, "[0,1,2,3,4]");
  std::string nothing;
  Json(7).render(nothing);
  EXPECT_EQ(nothing, "");
}

}  // namespace
