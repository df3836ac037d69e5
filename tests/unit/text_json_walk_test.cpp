// text_json_walk_test.cpp — one pointer walked through a checked document: the value byte for
// byte with where it starts, keys and length, and each way a pointer can name nothing (a miss
// naming what resolved, a repeated key on the path, '-', a key spelled with '/' unescaped).

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "text/json_walk.h"

namespace {

struct Walked {
  text::JsonWalk w;
  std::string raw;  // raw_out copied out of the document
};

Walked walk(std::string_view text, std::string_view pointer, text::JsonAsk ask = {}) {
  simdjson::padded_string doc(text);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document d;
  EXPECT_FALSE(parser.iterate(doc).get(d));
  Walked out;
  out.w = text::walk_json_pointer(d, std::string_view(doc.data(), doc.size()), pointer, ask,
                                  [](const std::string& p) {
                                    return std::vector<std::string>{"jsonq", "--pointer", p};
                                  });
  out.raw = std::string(out.w.raw_out);
  return out;
}

std::string rule(const Walked& r) {
  return r.w.failed ? std::string(r.w.failed->rule) : "";
}

TEST(TextJsonWalk, ValueByteForByteWithWhereItStarts) {
  Walked r = walk("{\"a\": [1, 1e400, \"\\u00e9\"],\n \"b\": 18446744073709551617}", "/a/1");
  ASSERT_FALSE(r.w.failed);
  EXPECT_EQ(r.w.out.get("value")->dump(), "1e400");
  EXPECT_EQ(r.w.out.get("kind")->str(), "float");
  EXPECT_EQ(r.w.out.get("offset")->as_uint(), 10u);
  r = walk("{\"a\": [1],\n \"b\": 18446744073709551617}", "/b");
  EXPECT_EQ(r.w.out.get("value")->dump(), "18446744073709551617");
  EXPECT_EQ(r.w.out.get("line")->as_uint(), 2u);
  EXPECT_EQ(r.w.out.get("column")->as_uint(), 7u);
}

TEST(TextJsonWalk, ContainerLeftRawForTheCaller) {
  Walked r = walk("{\"a\": [1, {\"b\": 2} ]}", "/a");
  ASSERT_FALSE(r.w.failed);
  EXPECT_EQ(r.raw, "[1, {\"b\": 2} ]");
  EXPECT_EQ(r.w.out.get("value"), nullptr);
  EXPECT_EQ(walk("7", "").w.out.get("value")->dump(), "7");
}

TEST(TextJsonWalk, KeysOnceInOrderAndTheRepeated) {
  Walked r = walk("{\"z\": 1, \"a\": 2, \"z\": 3}", "", {.keys = true});
  ASSERT_FALSE(r.w.failed);
  EXPECT_EQ(r.w.out.get("keys")->dump(), "[\"z\",\"a\"]");
  EXPECT_EQ(r.w.out.get("repeated")->dump(), "[\"z\"]");
  EXPECT_EQ(walk("{\"z\": 1, \"z\": 3}", "", {.length = true}).w.out.get("length")->as_uint(), 1u);
  EXPECT_EQ(walk("[1, [2, 3], 4]", "", {.length = true}).w.out.get("length")->as_uint(), 3u);
}

TEST(TextJsonWalk, WrongKind) {
  EXPECT_EQ(rule(walk("[1]", "", {.keys = true})), "query.wrong-kind");
  EXPECT_EQ(rule(walk("{\"a\": 1}", "/a", {.length = true})), "query.wrong-kind");
}

TEST(TextJsonWalk, MissNamesWhatResolved) {
  Walked r = walk("{\"a\": {\"b\": 1}}", "/a/c");
  ASSERT_EQ(rule(r), "query.no-such-path");
  EXPECT_EQ(r.w.failed->detail.get("resolved")->str(), "/a");
  EXPECT_EQ(r.w.failed->detail.get("missing")->str(), "c");
  r = walk("[1, 2]", "/5");
  ASSERT_EQ(rule(r), "query.no-such-path");
  EXPECT_EQ(r.w.failed->detail.get("length")->as_uint(), 2u);
  EXPECT_EQ(rule(walk("[1, 2]", "/01")), "query.no-such-path");
  EXPECT_EQ(rule(walk("{\"a\": 1}", "/a/b")), "query.no-such-path");
  EXPECT_EQ(rule(walk("[1, 2]", "/-")), "query.bad-pointer");
}

TEST(TextJsonWalk, ExistsAnswersAMissWithFalse) {
  Walked r = walk("{\"a\": 1}", "/b", {.exists = true});
  ASSERT_FALSE(r.w.failed);
  EXPECT_EQ(r.w.out.get("exists")->dump(), "false");
  EXPECT_EQ(walk("{\"a\": 1}", "/a", {.exists = true}).w.out.get("exists")->dump(), "true");
}

TEST(TextJsonWalk, RepeatedKeyOnThePathIsRefused) {
  Walked r = walk("{\"a\": {\"b\": 1},\n \"a\": 2}", "/a/b");
  ASSERT_EQ(rule(r), "query.duplicate-key");
  EXPECT_EQ(r.w.failed->detail.get("count")->as_uint(), 2u);
  EXPECT_EQ(r.w.failed->detail.get("copies")->dump(),
            "[{\"offset\":1,\"line\":1},{\"offset\":17,\"line\":2}]");
  // A miss inside the first copy does not hide the repetition.
  EXPECT_EQ(rule(walk("{\"a\": {}, \"a\": {}}", "/a/x")), "query.duplicate-key");
}

TEST(TextJsonWalk, UnescapedSlashInAKeyIsRespelled) {
  Walked r = walk("{\"a/b\": {\"c\": 1}}", "/a/b/c");
  ASSERT_EQ(rule(r), "query.no-such-path");
  EXPECT_EQ(r.w.failed->detail.get("suggested")->str(), "/a~1b/c");
  ASSERT_EQ(r.w.failed->repair.argvs.size(), 1u);
  EXPECT_EQ(r.w.failed->repair.argvs[0].back(), "/a~1b/c");
  // The key is there, but what follows it names nothing: a hint, no retry.
  r = walk("{\"a/b\": {\"c\": 1}}", "/a/b/d");
  ASSERT_EQ(rule(r), "query.no-such-path");
  EXPECT_EQ(r.w.failed->detail.get("suggested"), nullptr);
  EXPECT_TRUE(r.w.failed->repair.argvs.empty());
}

}  // namespace
