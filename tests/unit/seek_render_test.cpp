// seek_render_test.cpp — seek's --format text: grep -n's `path:line:text` for a match,
// `path-line-text` for context, a placeholder for a line past the cap, bytes (not base64) for a
// path or text that is not UTF-8, and nothing for a file record.
#include <gtest/gtest.h>

#include <string>

#include "tools/seek/render.h"

namespace {

using contract::Json;

std::string render(const Json& rec) {
  std::string out;
  seek::render_text(rec, out, {});
  return out;
}

TEST(SeekRender, MatchAndContextLines) {
  EXPECT_EQ(
      render(Json::object({{"type", "match"}, {"path", "a.txt"}, {"line", 7}, {"text", "hello"}})),
      "a.txt:7:hello\n");
  EXPECT_EQ(render(Json::object(
                {{"type", "context"}, {"path", "a.txt"}, {"line", 6}, {"text", "before"}})),
            "a.txt-6-before\n");
}

TEST(SeekRender, ALineLongerThanTheCapIsNamedByItsLength) {
  EXPECT_EQ(
      render(Json::object(
          {{"type", "context"}, {"path", "a"}, {"line", 2}, {"text", Json()}, {"length", 5000}})),
      "a-2-[5000 bytes, longer than --max-line-bytes]\n");
}

TEST(SeekRender, BytesThatAreNotUtf8AreWrittenAsTheyAre) {
  const std::string path("d\xff", 2), text("x\xfe y", 4);
  const std::string out = render(Json::object(
      {{"type", "match"}, {"path", Json::bytes(path)}, {"line", 1}, {"text", Json::bytes(text)}}));
  EXPECT_EQ(out, path + ":1:" + text + "\n");
}

TEST(SeekRender, FileRecordsAndUntypedRecordsWriteNothing) {
  EXPECT_EQ(render(Json::object({{"type", "file"}, {"path", "a"}, {"matches", 3}})), "");
  EXPECT_EQ(render(Json::object({{"path", "a"}})), "");
}

}  // namespace
