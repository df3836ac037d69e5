// Exact-text replacement apart from any file (text/replace.h): the windowed finder, the
// decision rule, splicing at once and as a stream, and the changed regions of the diff.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/replace.h"

namespace {

using text::Found;

std::vector<uint64_t> positions(const std::vector<Found>& found) {
  std::vector<uint64_t> out;
  for (const Found& f : found) out.push_back(f.pos);
  return out;
}

// The finder fed `s` in windows of `size` bytes, keeping from keep_from() as the tool does.
std::vector<Found> find_in_windows(const std::string& needle, bool crlf, const std::string& s,
                                   size_t size, uint64_t skip = 0) {
  text::Finder f(needle, crlf);
  f.skip_below(skip);
  uint64_t base = 0;
  std::string win;
  size_t read = 0;
  while (true) {
    const std::string piece = s.substr(read, size);
    read += piece.size();
    win += piece;
    const bool eof = read >= s.size();
    uint64_t lines = 0;
    for (size_t i = 0; i < base; ++i) lines += s[i] == '\n';
    f.scan(win, base, lines, eof);
    if (eof) break;
    const size_t drop = static_cast<size_t>(f.keep_from() - base);
    win.erase(0, drop);
    base += drop;
  }
  return f.found;
}

TEST(TextReplace, FinderCountsOverlapsAndLinesWhateverTheWindow) {
  const std::string s = "aaa\nxaa\n";
  for (size_t size : {1, 2, 3, 5, 100}) {
    const auto found = find_in_windows("aa", false, s, size);
    EXPECT_EQ(positions(found), (std::vector<uint64_t>{0, 1, 5})) << "window " << size;
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].line, 0u);
    EXPECT_EQ(found[2].line, 1u);
  }
}

TEST(TextReplace, FinderInACrlfFileSkipsAMatchEndingInsideALineEnding) {
  // "b\r" ends on the '\r' of "\r\n" at 1; the one at 4 is a lone '\r'.
  const std::string s = "b\r\nb\rc";
  for (size_t size : {1, 2, 100}) {
    EXPECT_EQ(positions(find_in_windows("b\r", true, s, size)), (std::vector<uint64_t>{3}))
        << "window " << size;
    EXPECT_EQ(positions(find_in_windows("b\r", false, s, size)), (std::vector<uint64_t>{0, 3}));
  }
}

TEST(TextReplace, FinderSkipsAMatchStartingInTheBom) {
  const std::string s = "\xEF\xBB\xBFx\xEF\xBB\xBF";
  EXPECT_EQ(positions(find_in_windows("\xEF\xBB", false, s, 2, 3)), (std::vector<uint64_t>{4}));
}

TEST(TextReplace, DecideAppliesTheExpectedCount) {
  text::ReplaceEdit e{"foo", "bar", 2, false};
  const std::vector<Found> at = {{0, 0}, {10, 1}};
  auto d = text::decide(e, 3, 3, at, {}, -1, [] { return contract::Json::array(); });
  ASSERT_TRUE(std::holds_alternative<text::Applied>(d));
  EXPECT_EQ(std::get<text::Applied>(d).replacements, 2u);
  EXPECT_FALSE(std::get<text::Applied>(d).already);
}

TEST(TextReplace, DecideRefusesAnotherCountWithTheLinesAndNearOnlyForNone) {
  text::ReplaceEdit e{"foo", "bar", 1, false};
  bool asked = false;
  auto near = [&] {
    asked = true;
    return contract::Json::array();
  };
  auto d = text::decide(e, 3, 3, {{0, 0}, {10, 4}}, {}, 2, near);
  ASSERT_TRUE(std::holds_alternative<contract::Error>(d));
  const contract::Error& err = std::get<contract::Error>(d);
  EXPECT_EQ(err.rule, "precondition.count-mismatch");
  EXPECT_EQ(err.detail.get("found")->as_uint(), 2u);
  EXPECT_EQ(err.detail.get("lines")->items()[1].as_uint(), 5u);
  EXPECT_EQ(err.detail.get("index")->as_uint(), 2u);
  EXPECT_FALSE(asked);
  auto none = text::decide(e, 3, 3, {}, {}, -1, near);
  ASSERT_TRUE(std::holds_alternative<contract::Error>(none));
  EXPECT_TRUE(asked);
  EXPECT_NE(std::get<contract::Error>(none).detail.get("near"), nullptr);
  EXPECT_EQ(std::get<contract::Error>(none).detail.get("index"), nullptr);
}

TEST(TextReplace, DecideRefusesOverlapsEvenAtTheExpectedCount) {
  text::ReplaceEdit e{"aa", "b", 2, false};
  auto d = text::decide(e, 2, 1, {{0, 0}, {1, 0}}, {}, -1, [] { return contract::Json(); });
  ASSERT_TRUE(std::holds_alternative<contract::Error>(d));
  EXPECT_TRUE(std::get<contract::Error>(d).detail.get("overlapping")->as_bool());
}

TEST(TextReplace, DecideSeesAnEarlierIdenticalCallAsDone) {
  // "foo" -> "foobar" applied once: the old text now lies only inside the new one.
  text::ReplaceEdit e{"foo", "foobar", 1, false};
  auto d = text::decide(e, 3, 6, {{4, 0}}, {{4, 0}}, -1, [] { return contract::Json(); });
  ASSERT_TRUE(std::holds_alternative<text::Applied>(d));
  EXPECT_TRUE(std::get<text::Applied>(d).already);
  EXPECT_EQ(std::get<text::Applied>(d).replacements, 0u);
  // One live occurrence besides: not done, and the count is 2, not 1.
  auto live =
      text::decide(e, 3, 6, {{4, 0}, {20, 1}}, {{4, 0}}, -1, [] { return contract::Json(); });
  EXPECT_TRUE(std::holds_alternative<contract::Error>(live));
}

TEST(TextReplace, SpliceAndTheStreamingSplicerAgree) {
  const std::string s = "one two one three one";
  const std::vector<Found> at = {{0, 0}, {8, 0}, {18, 0}};
  std::string whole;
  text::splice(s, 0, at.data(), at.size(), 3, "1", whole);
  EXPECT_EQ(whole, "1 two 1 three 1");
  for (size_t size : {1, 2, 4, 7, 100}) {
    text::Splicer splicer(at, 3, "1");
    std::string streamed;
    for (size_t pos = 0; pos < s.size(); pos += size)
      splicer.feed(std::string_view(s).substr(pos, size), pos,
                   [&](std::string_view piece) { streamed += piece; });
    EXPECT_EQ(streamed, whole) << "chunk " << size;
    EXPECT_TRUE(splicer.done());
  }
  // An offset: positions are of the whole text, the slice starts at 8.
  std::string part;
  text::splice(std::string_view(s).substr(8), 8, &at[1], 2, 3, "ONE", part);
  EXPECT_EQ(part, "ONE three ONE");
}

TEST(TextReplace, SplicerNotDoneWhenTheTextEndsBeforeAnOccurrence) {
  const std::vector<Found> at = {{2, 0}, {50, 0}};
  text::Splicer splicer(at, 1, "x");
  splicer.feed("abcd", 0, [](std::string_view) {});
  EXPECT_FALSE(splicer.done());
}

// back and forward over an in-memory text, as the tool reads them from the file.
std::optional<std::vector<text::Region>> regions_of(const std::string& s,
                                                    const std::vector<Found>& at, size_t len,
                                                    size_t context) {
  auto back = [&](uint64_t pos, size_t n) -> std::optional<std::pair<uint64_t, uint64_t>> {
    uint64_t seen = 0;
    for (uint64_t i = pos; i-- > 0;)
      if (s[i] == '\n' && ++seen == n) return std::pair(i + 1, seen - 1);
    return std::pair(uint64_t{0}, seen);
  };
  auto forward = [&](uint64_t pos, size_t n) -> std::optional<uint64_t> {
    size_t seen = 0;
    for (uint64_t i = pos; i < s.size(); ++i)
      if (s[i] == '\n' && ++seen == n) return i + 1;
    return s.size();
  };
  return text::regions(at, len, context, back, forward);
}

TEST(TextReplace, RegionsSpanTheContextAndJoinWhenTheyTouch) {
  std::string s;
  for (int i = 0; i < 20; ++i) s += "line" + std::to_string(i) + "\n";
  const uint64_t l2 = s.find("line2\n"), l4 = s.find("line4\n"), l15 = s.find("line15\n");
  auto r = regions_of(s, {{l2, 2}, {l4, 4}, {l15, 15}}, 5, 1);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 2u);  // lines 1-5 hold the first two; 14-16 the third
  EXPECT_EQ((*r)[0].start, s.find("line1\n"));
  EXPECT_EQ((*r)[0].end, s.find("line6\n"));
  EXPECT_EQ((*r)[0].line, 1u);
  EXPECT_EQ((*r)[0].first, 0u);
  EXPECT_EQ((*r)[0].last, 2u);
  EXPECT_EQ((*r)[1].start, s.find("line14\n"));
  EXPECT_EQ((*r)[1].end, s.find("line17\n"));
  EXPECT_EQ((*r)[1].line, 14u);
  EXPECT_EQ((*r)[1].first, 2u);
}

TEST(TextReplace, RegionsFailWhenAReadFails) {
  auto fails = [](uint64_t, size_t) -> std::optional<uint64_t> { return std::nullopt; };
  auto back = [](uint64_t, size_t) -> std::optional<std::pair<uint64_t, uint64_t>> {
    return std::pair(uint64_t{0}, uint64_t{0});
  };
  EXPECT_FALSE(text::regions({{0, 0}}, 1, 3, back, fails));
  EXPECT_TRUE(text::regions({}, 1, 3, back, fails));
  EXPECT_EQ(text::newlines("a\nb\n\n"), 3u);
}

}  // namespace

namespace {

TEST(TextReplace, ApplyEditsInOrderEachOnTheResultOfTheLast) {
  const std::vector<text::ReplaceEdit> edits = {{"a", "bb", 1, false}, {"bb\n", "c\n", 1, false}};
  auto r = text::apply_edits("xa\r\ny\r\n", false, text::Eol::Crlf, edits);
  ASSERT_TRUE(std::holds_alternative<text::EditsApplied>(r));
  const auto& done = std::get<text::EditsApplied>(r);
  ASSERT_TRUE(done.text);
  EXPECT_EQ(*done.text, "xc\r\ny\r\n");  // the second edit's "\n" is the file's "\r\n"
  EXPECT_EQ(done.replacements, 2u);
  EXPECT_FALSE(done.already);
}

TEST(TextReplace, ApplyEditsAgainIsAlreadyDoneAndAnyRefusalNamesItsEdit) {
  const std::vector<text::ReplaceEdit> edits = {{"foo", "foobar", 1, false}};
  const std::string with_bom = std::string(text::kBom) + "foobar\n";
  auto again = text::apply_edits(with_bom, true, text::Eol::Lf, edits);
  ASSERT_TRUE(std::holds_alternative<text::EditsApplied>(again));
  EXPECT_TRUE(std::get<text::EditsApplied>(again).already);
  EXPECT_FALSE(std::get<text::EditsApplied>(again).text);
  const std::vector<text::ReplaceEdit> two = {{"x", "y", 1, false}, {"zz", "w", 1, false}};
  auto refused = text::apply_edits("x\n", false, text::Eol::Lf, two);
  ASSERT_TRUE(std::holds_alternative<contract::Error>(refused));
  EXPECT_EQ(std::get<contract::Error>(refused).detail.get("index")->as_uint(), 1u);
}

}  // namespace

namespace {

TEST(TextReplace, EditFindersServeBothLineEndingForms) {
  // "b\n" has two forms; "x" one (a single finder serves both).
  text::EditFinders f(text::ReplaceEdit{"b\n", "x", 1, false});
  EXPECT_EQ(f.all().size(), 3u);
  const std::string s = "b\r\nb\nx";
  for (text::Finder& one : f.all()) one.scan(s, 0, 0, true);
  EXPECT_EQ(positions(f.at(true)), (std::vector<uint64_t>{0}));
  EXPECT_EQ(positions(f.at(false)), (std::vector<uint64_t>{3}));
  EXPECT_EQ(positions(f.fresh(true)), (std::vector<uint64_t>{5}));
  EXPECT_EQ(&f.fresh(true), &f.fresh(false));
  text::EditFinders deleting(text::ReplaceEdit{"a", "", 1, false});
  EXPECT_EQ(deleting.all().size(), 1u);
  EXPECT_TRUE(deleting.fresh(false).empty());
}

}  // namespace
