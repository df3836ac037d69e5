// seek_page_test.cpp — seek's paging: the matching lines of a file cut to the window --skip
// and --max-count ask for (the line past it truncates the answer), context held while --skip
// passes over matches, one record per file with -c, and the hint for a PATH meant as a pattern.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tools/seek/page.h"
#include "tools/seek/tail.h"

namespace {

using contract::Json;
using seek::Rec;
using seek::RecKind;

struct Fixture {
  contract::Tool tool{.name = "seek", .output = contract::Output::Stream, .schema = "seek.v1"};
  contract::Out out{-1, SIZE_MAX};  // never flushed: the buffer is what would be written
  contract::Context ctx{tool, out};
  seek::Args a = [] {
    seek::Args x;
    x.max_bytes = 65536;
    return x;
  }();
  seek::Search cfg{a};
};

// A piece of lines: each (kind, ordinal, line number, bytes).
struct Line {
  RecKind kind;
  uint64_t ordinal, line;
  std::string text;
};
seek::Piece piece(const std::vector<Line>& lines) {
  seek::Piece p;
  for (const Line& l : lines) {
    const size_t begin = p.bytes.size();
    p.bytes += l.text + "\n";
    p.recs.push_back({l.kind, l.ordinal, l.ordinal, begin, p.bytes.size(), l.line});
  }
  return p;
}

TEST(SeekPage, LinesAreCutToTheWindowAndTheOnePastItTruncates) {
  Fixture f;
  f.a.skip = 1;
  f.a.max_count = 2;
  seek::Page page{f.a, f.ctx, f.cfg};
  seek::Slot s;
  s.path = "f";
  seek::Piece p = piece({{RecKind::Match, 0, 1, "m0"},
                         {RecKind::Match, 1, 2, "m1"},
                         {RecKind::Match, 2, 3, "m2"},
                         {RecKind::Match, 3, 4, "m3"}});
  EXPECT_FALSE(page.take(s, p));
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.emitted, 2u);
  EXPECT_EQ(page.files, 1u);
  const std::string& o = f.out.buffer();
  EXPECT_EQ(o.substr(0, 6), "m1\nm2\n");
  EXPECT_NE(o.find("\"type\":\"file\""), std::string::npos) << o;
  EXPECT_NE(o.find("\"matches\":2"), std::string::npos) << o;
}

TEST(SeekPage, AWholePieceInsideTheWindowIsWrittenAsItIs) {
  Fixture f;
  f.a.max_count = 10;
  seek::Page page{f.a, f.ctx, f.cfg};
  seek::Slot s;
  s.path = "f";
  seek::Piece p = piece({{RecKind::Match, 0, 1, "a"}, {RecKind::Match, 1, 5, "b"}});
  EXPECT_TRUE(page.take(s, p));
  EXPECT_EQ(f.out.buffer(), "a\nb\n");
  EXPECT_EQ(page.emitted, 2u);
  EXPECT_FALSE(page.truncated);
}

TEST(SeekPage, ContextSkippedWithAMatchIsShownBeforeTheFirstMatchShown) {
  Fixture f;
  f.a.skip = 1;
  f.a.max_count = 5;
  f.a.context = 1;
  seek::Page page{f.a, f.ctx, f.cfg};
  seek::Slot s;
  s.path = "f";
  // Line 1 is context only of the skipped match: far from line 5, it is never shown.
  seek::Piece p = piece({{RecKind::Context, 0, 1, "far"},
                         {RecKind::Match, 0, 2, "skipped"},
                         {RecKind::Context, 0, 4, "near"},
                         {RecKind::Match, 1, 5, "shown"}});
  EXPECT_TRUE(page.take(s, p));
  EXPECT_EQ(f.out.buffer(), "near\nshown\n");
}

TEST(SeekPage, CountsGiveOneRecordPerFileWithAMatch) {
  Fixture f;
  f.a.count = true;
  f.a.max_count = 1;
  f.cfg.mode = seek::Mode::Count;
  f.ctx.format_ = contract::Format::Text;
  seek::Page page{f.a, f.ctx, f.cfg};
  seek::Slot one, none, two;
  one.path = "one";
  one.found = 3;
  one.searched = none.searched = two.searched = true;
  none.path = "none";
  two.path = "two";
  two.found = 5;
  EXPECT_TRUE(page.done(one));
  EXPECT_TRUE(page.done(none));
  EXPECT_FALSE(page.done(two));  // past the page: proves more exists
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(f.out.buffer(), "one:3\n");
  EXPECT_EQ(page.total, 3u);
  EXPECT_EQ(page.files, 3u);
  EXPECT_EQ(page.base, 8u);
}

// The parts of one file (Slot::part), taken in order: each one's line numbers moved by the
// lines of the parts before it, its ordinals by their matches; one file record for them all.
// "f:LINE:text" records put the line number 2 bytes in.
std::vector<std::unique_ptr<seek::Slot>> parts_of(const std::vector<uint64_t>& newlines) {
  auto file = std::make_shared<seek::SharedFile>();
  std::vector<std::unique_ptr<seek::Slot>> out;
  for (size_t k = 0; k < newlines.size(); ++k) {
    auto s = std::make_unique<seek::Slot>();
    s->path = "f";
    s->searched = true;
    s->named = true;  // pushed as parts (a walked file's first part: below)
    s->part = std::make_unique<seek::Part>();
    s->part->file = file;
    s->part->from = k * 100;
    s->part->last = k + 1 == newlines.size();
    s->part->match_line_at = s->part->context_line_at = 2;
    s->part->scan.newlines = newlines[k];
    s->part->scan.part_done = true;
    out.push_back(std::move(s));
  }
  return out;
}

TEST(SeekPage, PartsOfAFileAreJoinedInOrder) {
  Fixture f;
  f.a.max_count = 10;
  seek::Page page{f.a, f.ctx, f.cfg};
  auto parts = parts_of({10, 995, 7});
  seek::Piece p0 = piece({{RecKind::Match, 0, 3, "f:3:a"}});
  seek::Piece p1 = piece({{RecKind::Match, 0, 1, "f:1:b"}, {RecKind::Match, 1, 990, "f:990:c"}});
  seek::Piece p2 = piece({{RecKind::Match, 0, 5, "f:5:d"}});
  seek::Piece* pieces[] = {&p0, &p1, &p2};
  const uint64_t found[] = {1, 2, 1};
  for (size_t k = 0; k < 3; ++k) {
    parts[k]->found = parts[k]->part->scan.found = found[k];
    EXPECT_TRUE(page.take(*parts[k], *pieces[k]));
    EXPECT_TRUE(page.done(*parts[k]));
  }
  const std::string& o = f.out.buffer();
  EXPECT_EQ(o.substr(0, o.find("{")), "f:3:a\nf:11:b\nf:1000:c\nf:1010:d\n");
  EXPECT_EQ(page.files, 1u);
  EXPECT_EQ(page.emitted, 4u);
  EXPECT_EQ(page.base, 4u);
  EXPECT_NE(o.find("\"matches\":4"), std::string::npos) << o;
  EXPECT_EQ(o.find("\"type\":\"file\""), o.rfind("\"type\":\"file\"")) << o;  // one
}

TEST(SeekPage, AWindowAcrossPartsCountsTheOrdinalsOfThePartsBefore) {
  Fixture f;
  f.a.skip = 1;
  f.a.max_count = 1;
  seek::Page page{f.a, f.ctx, f.cfg};
  auto parts = parts_of({4, 4});
  seek::Piece p0 = piece({{RecKind::Match, 0, 1, "f:1:a"}});
  seek::Piece p1 = piece({{RecKind::Match, 0, 2, "f:2:b"}, {RecKind::Match, 1, 3, "f:3:c"}});
  parts[0]->found = 1;
  EXPECT_TRUE(page.take(*parts[0], p0));
  EXPECT_TRUE(page.done(*parts[0]));
  EXPECT_FALSE(page.take(*parts[1], p1));  // the second of the part is past the window
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(f.out.buffer().substr(0, 6), "f:6:b\n");
  EXPECT_EQ(page.files, 1u);
}

// A walked file's first part learns it is one only at the end of its search: its pieces are
// taken as a whole file's (its part is not read before the slot is done), and the parts its
// done() makes way for follow it; the next file starts afresh.
TEST(SeekPage, AWalkedFilesFirstPartIsTakenAsAFileUntilItIsDone) {
  Fixture f;
  f.a.max_count = 10;
  seek::Page page{f.a, f.ctx, f.cfg};
  auto parts = parts_of({4, 0});
  parts[0]->named = false;
  seek::Piece p0 = piece({{RecKind::Match, 0, 2, "f:2:a"}});
  seek::Piece p1 = piece({{RecKind::Match, 0, 1, "f:1:b"}});
  parts[0]->found = parts[0]->part->scan.found = 1;
  parts[1]->found = parts[1]->part->scan.found = 1;
  EXPECT_TRUE(page.take(*parts[0], p0));
  parts[0]->done.store(true);
  EXPECT_TRUE(page.done(*parts[0]));
  EXPECT_TRUE(page.take(*parts[1], p1));
  EXPECT_TRUE(page.done(*parts[1]));
  seek::Slot next;
  next.path = "g";
  next.searched = true;
  seek::Piece q = piece({{RecKind::Match, 0, 3, "g:3:c"}});
  next.found = 1;
  EXPECT_TRUE(page.take(next, q));
  EXPECT_TRUE(page.done(next));
  const std::string& o = f.out.buffer();
  EXPECT_EQ(o.substr(0, o.find("{")), "f:2:a\nf:5:b\n");
  EXPECT_NE(o.find("g:3:c"), std::string::npos) << o;
  EXPECT_EQ(page.files, 2u);
  EXPECT_EQ(page.emitted, 3u);
}

// A part that ended before its end (a read failed) leaves the lines after it unknown: the
// later parts are not shown and add nothing, and the file's count is what came before.
TEST(SeekPage, NothingAfterAPartThatEndedEarlyIsShownOrCounted) {
  for (const bool count : {false, true}) {
    Fixture f;
    f.a.max_count = 10;
    f.a.count = count;
    if (count) f.cfg.mode = seek::Mode::Count;
    seek::Page page{f.a, f.ctx, f.cfg};
    auto parts = parts_of({5, 0, 5});
    parts[1]->part->scan.part_done = false;
    parts[1]->errors.push_back(
        contract::make_error("io.read-failed", "f: read failed", Json::object({{"path", "f"}})));
    seek::Piece p0 = piece({{RecKind::Match, 0, 2, "f:2:a"}});
    seek::Piece p1 = piece({{RecKind::Match, 0, 1, "f:1:b"}});
    p1.recs.push_back({RecKind::Error, 0, 0, p1.bytes.size(), p1.bytes.size(), 0});
    seek::Piece p2 = piece({{RecKind::Match, 0, 1, "f:1:c"}});
    seek::Piece* pieces[] = {&p0, &p1, &p2};
    for (size_t k = 0; k < 3; ++k) {
      parts[k]->found = parts[k]->part->scan.found = 1;
      EXPECT_TRUE(page.take(*parts[k], *pieces[k]));
      EXPECT_TRUE(page.done(*parts[k]));
    }
    const std::string& o = f.out.buffer();
    EXPECT_EQ(f.ctx.errors().size(), 1u);
    if (count) {
      EXPECT_EQ(page.total, 2u);
      EXPECT_NE(o.find("\"matches\":2"), std::string::npos) << o;
    } else {
      EXPECT_EQ(o.substr(0, o.find("{")), "f:2:a\nf:6:b\n");
      EXPECT_EQ(page.emitted, 2u);
    }
    EXPECT_EQ(o.find("f:1:c"), std::string::npos) << o;
    EXPECT_EQ(page.files, 1u);
  }
}

TEST(SeekPage, AMissingFirstPathAfterDashEIsHintedAsAPattern) {
  Fixture f;
  f.a.patterns = {"x"};
  f.a.paths = {"y", "src"};
  seek::Page page{f.a, f.ctx, f.cfg};
  page.error(contract::make_error("io.not-found", "no y", Json::object({{"path", "y"}})));
  page.error(contract::make_error("io.not-found", "no z", Json::object({{"path", "src"}})));
  ASSERT_EQ(f.ctx.errors().size(), 2u);
  ASSERT_TRUE(f.ctx.errors()[0].hint);
  EXPECT_NE(f.ctx.errors()[0].hint->find("every operand is a PATH"), std::string::npos);
  EXPECT_FALSE(f.ctx.errors()[1].hint);  // not the first operand: no hint
}

}  // namespace

namespace {

TEST(SeekPage, TheBudgetCutsAtTheRecordThatReachesItAndSaysSo) {
  Fixture f;
  f.a.max_count = 100;
  f.a.max_bytes = 10;  // "m0\n" .. : 3 bytes each; the fourth record would start at 12
  seek::Page page{f.a, f.ctx, f.cfg};
  seek::Slot s;
  s.path = "f";
  seek::Piece p = piece({{RecKind::Match, 0, 1, "m0"},
                         {RecKind::Match, 1, 2, "m1"},
                         {RecKind::Match, 2, 3, "m2"},
                         {RecKind::Match, 3, 4, "m3"},
                         {RecKind::Match, 4, 5, "m4"}});
  EXPECT_FALSE(page.take(s, p));
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.cut, "max-bytes");
  EXPECT_EQ(page.emitted, 4u);  // 0, 3, 6, 9 bytes before each: the fifth starts at 12
  EXPECT_EQ(f.out.buffer().substr(0, 12), "m0\nm1\nm2\nm3\n");
}

TEST(SeekPage, TheFirstRecordGoesInWhateverItsSize) {
  Fixture f;
  f.a.max_count = 100;
  f.a.max_bytes = 1;
  seek::Page page{f.a, f.ctx, f.cfg};
  seek::Slot s;
  s.path = "f";
  seek::Piece p = piece({{RecKind::Match, 0, 1, std::string(100, 'x')},
                         {RecKind::Match, 1, 2, "m1"}});
  EXPECT_FALSE(page.take(s, p));
  EXPECT_EQ(page.emitted, 1u);
  EXPECT_EQ(page.cut, "max-bytes");
}

// The ring: what write() hands out, as "line" strings and "file:N" for file records.
// An error is "error:PATH" (its detail's path).
std::vector<std::string> written(seek::Tail& t, seek::Tail::Shown* shown = nullptr) {
  std::vector<std::string> out;
  seek::Tail::Shown s =
      t.write([&](const std::string& b) { out.push_back(b); },
              [&](const seek::Tail::File& f, uint64_t n) {
                out.push_back(f.path + ":" + std::to_string(n));
              },
              [&](contract::Error e) { out.push_back("error:" + e.detail.get("path")->str()); });
  if (shown) *shown = s;
  return out;
}

TEST(SeekTail, ErrorsComeInWalkOrderAmongTheRecordsShownOrNot) {
  auto err = [](const char* path) {
    return contract::make_error("io.not-found", "gone", contract::Json::object({{"path", path}}));
  };
  seek::Tail t(2, 1 << 20, 0);
  t.error(0, err("e0"));  // before every match: first
  t.match(1, 1, 0, "a0");
  t.file(1, "a", 10, false);
  t.error(2, err("e2"));  // between a file whose match is dropped and the ones shown
  t.match(3, 1, 1, "b1");
  t.error(3, err("e3"));  // the file's own: after its lines, before its file record
  t.file(3, "b", 10, false);
  t.error(4, err("e4"));
  t.match(5, 1, 2, "c2");
  t.file(5, "c", 10, false);
  t.error(6, err("e6"));  // after every match: last
  EXPECT_EQ(written(t), (std::vector<std::string>{"error:e0", "error:e2", "b1", "error:e3", "b:1",
                                                  "error:e4", "c2", "c:1", "error:e6"}));
  seek::Tail none(2, 1 << 20, 0);
  none.error(0, err("x"));
  EXPECT_EQ(written(none), std::vector<std::string>{"error:x"});
}

TEST(SeekTail, KeepsTheLastNInOrderWithTheirFileRecords) {
  seek::Tail t(3, 1 << 20, 0);
  for (uint64_t i = 0; i < 5; ++i) t.match(0, i + 1, i, "a" + std::to_string(i));
  t.file(0, "a", 10, false);
  t.match(1, 1, 5, "b5");
  t.file(1, "b", 10, false);
  seek::Tail::Shown s;
  EXPECT_EQ(written(t, &s), (std::vector<std::string>{"a3", "a4", "a:2", "b5", "b:1"}));
  EXPECT_EQ(s.first, 3u);
  EXPECT_EQ(s.matches, 3u);
  EXPECT_FALSE(s.cut_by_bytes);
}

TEST(SeekTail, TheFirstMatchShownKeepsOnlyItsOwnBeforeContext) {
  seek::Tail t(1, 1 << 20, 2);
  t.context(0, 1, "c1");
  t.match(0, 2, 0, "m2");
  t.context(0, 3, "c3");  // after m2, and 2 before m6? no: 3 + 2 < 6
  t.context(0, 4, "c4");  // after m2 (2 + 2) and before m6 (4 + 2)
  t.context(0, 5, "c5");
  t.match(0, 6, 1, "m6");
  t.context(0, 7, "c7");
  t.file(0, "f", 1, false);
  EXPECT_EQ(written(t), (std::vector<std::string>{"c4", "c5", "m6", "c7", "f:1"}));
}

TEST(SeekTail, TheBudgetDropsWhatCannotBeShown) {
  seek::Tail t(100, 8, 0);  // each match "mN" is 3 bytes with its newline
  for (uint64_t i = 0; i < 10; ++i) t.match(0, i + 1, i, "m" + std::to_string(i));
  t.file(0, "f", 1, false);
  seek::Tail::Shown s;
  // from the last back while fewer than 8 bytes are held: m9 (3), m8 (6), m7 (9)
  EXPECT_EQ(written(t, &s), (std::vector<std::string>{"m7", "m8", "m9", "f:3"}));
  EXPECT_EQ(s.first, 7u);
  EXPECT_TRUE(s.cut_by_bytes);
}

TEST(SeekTail, ContextPastBeforeIsNotShown) {
  seek::Tail t(5, 1 << 20, 1);
  t.match(0, 1, 0, "m1");
  t.context(0, 2, "c2");  // after m1
  t.context(0, 9, "c9");  // before a match the search stopped at (--before)
  t.file(0, "f", 1, false);
  EXPECT_EQ(written(t), (std::vector<std::string>{"m1", "c2", "f:1"}));
}

}  // namespace
