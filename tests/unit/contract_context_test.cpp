// contract_context_test.cpp — Context::error_streamed: in a stream every error is written as a
// record in its place, but only the first is kept (it decides the exit code), so memory does
// not grow with the number of errors; a document tool keeps them all (they are its answer).
#include <gtest/gtest.h>

#include <string>

#include "contract/context.h"

namespace {

using contract::Json;

contract::Error numbered(int i) {
  return contract::make_error("io.not-found", "missing " + std::to_string(i),
                              Json::object({{"n", i}}));
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

TEST(ContractContext, StreamedErrorsAreWrittenButOnlyTheFirstKept) {
  const contract::Tool tool{.name = "t", .output = contract::Output::Stream, .schema = "t.v1"};
  contract::Out out(-1, SIZE_MAX);  // never flushed: the buffer is what would be written
  contract::Context ctx(tool, out);
  for (int i = 0; i < 3; ++i) ctx.error_streamed(numbered(i));
  ASSERT_EQ(ctx.errors().size(), 1u);
  EXPECT_EQ(ctx.errors().front().message, "missing 0");
  EXPECT_EQ(count(out.buffer(), "{\"type\":\"error\""), 3u);
  EXPECT_LT(out.buffer().find("missing 0"), out.buffer().find("missing 1"));
  EXPECT_LT(out.buffer().find("missing 1"), out.buffer().find("missing 2"));
  EXPECT_EQ(count(out.buffer(), "\n"), 3u);
}

TEST(ContractContext, StreamedErrorsOfADocumentToolAreAllKept) {
  const contract::Tool tool{.name = "t", .output = contract::Output::Document, .schema = "t.v1"};
  contract::Out out(-1, SIZE_MAX);
  contract::Context ctx(tool, out);
  for (int i = 0; i < 3; ++i) ctx.error_streamed(numbered(i));
  EXPECT_EQ(ctx.errors().size(), 3u);
  EXPECT_TRUE(out.buffer().empty());  // a document writes them in its envelope, at the end
}

}  // namespace
