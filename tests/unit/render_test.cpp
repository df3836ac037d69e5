// render_test.cpp — the tools' text renderings (tools/render): grep -n's `path:line:text` for a
// match and `path-line-text` for context, -c's `path:N` and -l's path, a placeholder for a line
// past the cap, bytes (not base64) for a path or text that is not UTF-8, peek's numbered lines
// with a header only for what is notable, the end record's footer, and a writer's summary line
// with its unified diff.
#include <gtest/gtest.h>

#include <string>

#include "tools/render/render.h"

namespace {

using contract::Json;

std::string seek(std::initializer_list<Json> recs) {
  std::string out;
  for (const Json& r : recs) render::seek(r, out, {});
  return out;
}

Json end(bool truncated, Json next) {
  return Json::object({{"type", "end"}, {"ok", true}, {"complete", !truncated}, {"errors", 0},
                       {"truncated", truncated}, {"next", std::move(next)}});
}

TEST(Render, SeekMatchAndContextLines) {
  EXPECT_EQ(seek({Json::object({{"type", "match"}, {"path", "a.txt"}, {"line", 7}, {"text", "hello"}}),
                  Json::object({{"type", "context"}, {"path", "a.txt"}, {"line", 8}, {"text", "after"}}),
                  Json::object({{"type", "file"}, {"path", "a.txt"}, {"matches", 1}}), end(false, Json())}),
            "a.txt:7:hello\na.txt-8-after\n");
}

TEST(Render, SeekFileRecordsShowNothingInALineSearchAndCountsOrNamesInTheirOwn) {
  EXPECT_EQ(seek({Json::object({{"type", "file"}, {"path", "a"}, {"matches", 3}})}), "");
  std::string out;
  render::seek_file("a", Json(3), out);
  render::seek_file("b", Json(), out);
  EXPECT_EQ(out, "a:3b");
}

TEST(Render, ALineLongerThanTheCapIsNamedByItsLength) {
  EXPECT_EQ(seek({Json::object({{"type", "context"}, {"path", "a"}, {"line", 2}, {"text", Json()}, {"length", 5000}})}),
            "a-2-[5000 bytes, longer than the line cap]\n");
}

TEST(Render, BytesThatAreNotUtf8AreWrittenAsTheyAre) {
  const std::string path("d\xff", 2), text("x\xfe y", 4);
  EXPECT_EQ(seek({Json::object({{"type", "match"}, {"path", Json::bytes(path)}, {"line", 1}, {"text", Json::bytes(text)}})}),
            path + ":1:" + text + "\n");
}

TEST(Render, TheFooterSaysWhatCutTheAnswerAndWhereTheRestIs) {
  EXPECT_EQ(seek({end(true, Json::object({{"skip", 20}}))}), "[truncated; next: {\"skip\":20}]\n");
  Json e = end(false, Json());
  e.set("skipped", Json::object({{"ignored", 2}, {"glob", 1}, {"hidden", 0}}));
  EXPECT_EQ(seek({e}), "[skipped: 2 ignored, 1 left out by glob]\n");
}

TEST(Render, PeekNumbersLinesAndHeadsOnlyWhatIsNotable) {
  auto lines = Json::array({Json::object({{"n", 9}, {"offset", 0}, {"text", "x"}}),
                            Json::object({{"n", 10}, {"offset", 2}, {"text", Json()}, {"length", 9000}})});
  std::string plain, crlf;
  render::peek(Json::object({{"path", "a"}, {"eol", "lf"}, {"bom", false}, {"binary", false}, {"lines", lines},
                             {"next", Json()}}),
               plain, {});
  EXPECT_EQ(plain, "9\tx\n10\t[9000 bytes, longer than the line cap]\n");
  render::peek(Json::object({{"path", "a"}, {"size", 99}, {"eol", "crlf"}, {"bom", true}, {"binary", false},
                             {"lines", Json::array()}, {"next", Json::object({{"line", 11}})}}),
               crlf, {});
  EXPECT_EQ(crlf, "[crlf, bom, size 99 bytes; more: lines 11:]\n");
}

TEST(Render, AWriterSaysWhatChangedAndShowsTheUnifiedDiff) {
  Json hunk = Json::object({{"old_start", 2}, {"old_lines", 1}, {"new_start", 2}, {"new_lines", 1},
                            {"lines", Json::array({Json::object({{"op", "-"}, {"text", "a = 1"}}),
                                                   Json::object({{"op", "+"}, {"text", "a = 2"}})})}});
  std::string out;
  render::replace(Json::object({{"path", "f"}, {"changed", true}, {"already_applied", false}, {"replacements", 1},
                                {"after_sha256", "ab"}, {"diff", Json::object({{"hunks", Json::array({hunk})}})},
                                {"diff_truncated", false}}),
                  out, {});
  EXPECT_EQ(out, "f: 1 replacement(s), sha256 ab\n@@ -2 +2 @@\n-a = 1\n+a = 2\n");
}

}  // namespace
