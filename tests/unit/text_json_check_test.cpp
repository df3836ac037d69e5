// text_json_check_test.cpp — the whole-document check over simdjson On-Demand: what On-Demand
// accepts while iterating but is not JSON is refused, and JSON is accepted.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <string_view>

#include "text/json_check.h"

namespace {

bool valid(std::string_view text, size_t max_depth = 1024) {
  simdjson::padded_string doc(text);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document d;
  if (parser.iterate(doc).get(d)) return false;
  return text::check_json_document(d, std::string_view(doc.data(), doc.size()), max_depth);
}

TEST(TextJsonCheck, AcceptsJson) {
  for (std::string_view ok : {"{}", "[]", "0", "-1.5e3", "\"a\\u00e9\"", "true", "null",
                              " {\"a\": [1, {\"b\": null}], \"c\": \"\\n\"} ", "[[[]]]"})
    EXPECT_TRUE(valid(ok)) << ok;
}

TEST(TextJsonCheck, RefusesWhatOnDemandLeavesUnchecked) {
  for (std::string_view bad :
       {"01", "1.", "-", "tru", "nul", "[1, 2] x", "{} {}", "[01]", "{\"a\": 1.e5}", "[\"\\x\"]",
        "{\"\\q\": 1}", "[1, \"\":0 } ]", "\"a\" 1", "[1,]"})
    EXPECT_FALSE(valid(bad)) << bad;
}

TEST(TextJsonCheck, RefusesPastTheDepth) {
  EXPECT_TRUE(valid("[[[1]]]", 3));
  EXPECT_FALSE(valid("[[[[1]]]]", 3));
  EXPECT_FALSE(valid("{\"a\":{\"b\":{\"c\":{}}}}", 3));
}

}  // namespace
