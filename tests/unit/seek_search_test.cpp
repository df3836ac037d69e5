// seek_search_test.cpp — seek's per-file worker over a real file, through the ordered pool:
// each matching line a record in the file's pieces with its ordinal and line number, exact
// counts per -e pattern when lines are only counted, and long matching lines reported once as
// limit.line-too-long instead of being clipped.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "text/any_of.h"
#include "text/search.h"
#include "tools/seek/search.h"

namespace {

using seek::RecKind;

// A file holding `bytes`, removed at the end of the test.
struct TempFile {
  std::string path = "/tmp/seek_search_testXXXXXX";
  explicit TempFile(const std::string& bytes) {
    const int fd = mkstemp(path.data());
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    ::close(fd);
  }
  ~TempFile() { ::unlink(path.c_str()); }
};

struct Result {
  std::string bytes;
  std::vector<seek::Rec> recs;  // begin/end relative to `bytes`
  std::vector<std::string> errors;
  uint64_t found = 0, size = 0;
  bool searched = false;
  std::vector<uint64_t> pattern_counts;
};

// Searches one named file as seek would, collecting what the main thread receives.
Result search(const seek::Args& a, seek::Mode mode, const std::string& file) {
  TempFile f(file);
  std::vector<seek::Worker> workers(1);
  std::vector<std::unique_ptr<text::Matcher>> parts;
  for (const std::string& p : a.patterns) parts.push_back(text::literal_matcher(p, false, false));
  workers[0].matcher = a.patterns.empty() ? text::literal_matcher(a.pattern, false, false)
                                          : text::any_of(std::move(parts));
  seek::Search cfg{a};
  cfg.mode = mode;
  cfg.limit = a.skip + a.max_count + 1;
  Result out;
  seek::Ordered pool(
      workers, [&](seek::Slot& s, seek::Worker& w) { seek::search_file(cfg, s, w); },
      [&](seek::Slot& s, seek::Piece& p) {
        for (seek::Rec r : p.recs) {
          if (r.kind == RecKind::Error) {
            out.errors.push_back(std::string(s.errors[r.lo].rule));
            continue;
          }
          r.begin += out.bytes.size();
          r.end += out.bytes.size();
          out.recs.push_back(r);
        }
        out.bytes += p.bytes;
        return true;
      },
      [&](seek::Slot& s) {
        out.found = s.found;
        out.size = s.bytes();
        out.searched = s.searched;
        out.pattern_counts = s.pattern_counts;
        return true;
      });
  cfg.pool = &pool;
  auto s = std::make_unique<seek::Slot>();
  s->path = "f.txt";
  s->named = true;
  s->fd = os::Fd(::open(f.path.c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(::fstat(s->fd.get(), &s->st), 0);
  pool.push(std::move(s));
  pool.finish();
  return out;
}

seek::Args literal(std::string pattern) {
  seek::Args a;
  a.pattern = std::move(pattern);
  a.max_count = 1000;
  a.max_line_bytes = 1024;
  return a;
}

TEST(SeekSearch, EachMatchingLineIsARecordWithItsOrdinalAndLine) {
  const std::string file = "one\nneedle a\ntwo\nneedle b\n";
  const Result r = search(literal("needle"), seek::Mode::Lines, file);
  EXPECT_TRUE(r.searched);
  EXPECT_EQ(r.found, 2u);
  EXPECT_EQ(r.size, file.size());
  ASSERT_EQ(r.recs.size(), 2u);
  EXPECT_EQ(r.recs[0].kind, RecKind::Match);
  EXPECT_EQ(r.recs[0].lo, 0u);
  EXPECT_EQ(r.recs[0].line, 2u);
  EXPECT_EQ(r.recs[1].lo, 1u);
  EXPECT_EQ(r.recs[1].line, 4u);
  const std::string first = r.bytes.substr(r.recs[0].begin, r.recs[0].end - r.recs[0].begin);
  EXPECT_NE(first.find("\"needle a\""), std::string::npos) << first;
  EXPECT_EQ(first.back(), '\n');
  EXPECT_TRUE(r.errors.empty());
}

TEST(SeekSearch, ContextLinesComeWithTheMatchTheyServe) {
  seek::Args a = literal("x");
  a.context = 1;
  const Result r = search(a, seek::Mode::Lines, "a\nx\nb\nc\n");
  ASSERT_EQ(r.recs.size(), 3u);
  EXPECT_EQ(r.recs[0].kind, RecKind::Context);
  EXPECT_EQ(r.recs[1].kind, RecKind::Match);
  EXPECT_EQ(r.recs[2].kind, RecKind::Context);
  EXPECT_EQ(r.recs[2].line, 3u);
}

TEST(SeekSearch, CountsRenderNoLinesAndCountEachPattern) {
  seek::Args a = literal("");
  a.patterns = {"a", "b"};
  a.count = true;
  const Result r = search(a, seek::Mode::Count, "a\nab\nc\nb\nb\n");
  EXPECT_TRUE(r.recs.empty());
  EXPECT_TRUE(r.bytes.empty());
  EXPECT_EQ(r.found, 4u);
  EXPECT_EQ(r.pattern_counts, (std::vector<uint64_t>{2, 3}));
}

TEST(SeekSearch, ALongMatchingLineIsReportedNotClipped) {
  const std::string file = "short needle\n" + std::string(3000, 'z') + "needle\nend\n";
  const Result r = search(literal("needle"), seek::Mode::Lines, file);
  EXPECT_EQ(r.recs.size(), 1u);  // the short line; the long one is not shown
  EXPECT_EQ(r.errors, (std::vector<std::string>{"limit.line-too-long"}));
}

}  // namespace
