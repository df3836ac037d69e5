// os_walk_test.cpp — the directory walk: bytewise depth-first order, kinds and depth, the
// depth limit, what ignore rules, hidden names and --glob leave out (and count), ignore files
// read from the ignore root down, and directories swapped between listing and entering.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "os/walk.h"

namespace {

namespace fs = std::filesystem;

class WalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tack-walk-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void file(const std::string& rel, const std::string& content = "x") {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << content;
  }

  os::Fd open_dir(const fs::path& p) {
    return os::Fd(open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }

  struct Seen {
    std::vector<std::string> entries;  // "path kind depth"
    std::vector<std::string> errors;   // rule
    os::SkipCounts counts;
  };

  Seen walk(os::WalkOptions o, const std::string& start = ".", int ignore_root = -1,
            const std::string& rel = "") {
    os::Walker w(o, open_dir(root_ / start), start, ignore_root, rel);
    Seen s;
    os::WalkItem item;
    while (w.next(item)) {
      if (item.type == os::WalkItem::Type::Error)
        s.errors.emplace_back(item.error.rule);
      else
        s.entries.push_back(item.entry.path + " " + std::string(os::kind_name(item.entry.kind)) +
                            " " + std::to_string(item.entry.depth));
    }
    s.counts = w.counts();
    return s;
  }

  fs::path root_;
};

TEST_F(WalkTest, DepthFirstBytewiseWithKindsAndDepth) {
  file("b.txt");
  file("a/z.txt");
  file("a/B/y.txt");
  file("a-b");
  file("A");
  mkfifo((root_ / "fifo").c_str(), 0600);
  fs::create_symlink("a", root_ / "link");
  Seen s = walk({});
  EXPECT_EQ(s.entries, (std::vector<std::string>{"A file 1", "a directory 1", "a/B directory 2",
                                                 "a/B/y.txt file 3", "a/z.txt file 2", "a-b file 1",
                                                 "b.txt file 1", "fifo other 1", "link link 1"}));
  EXPECT_TRUE(s.errors.empty());
}

TEST_F(WalkTest, DepthLimitListsButDoesNotEnter) {
  file("a/b/c.txt");
  os::WalkOptions o;
  o.max_depth = 1;
  EXPECT_EQ(walk(o).entries, (std::vector<std::string>{"a directory 1"}));
  o.max_depth = 2;
  EXPECT_EQ(walk(o).entries, (std::vector<std::string>{"a directory 1", "a/b directory 2"}));
}

TEST_F(WalkTest, IgnoredAndHiddenAreCountedOnce) {
  file(".gitignore", "*.log\nbuild/\n");
  file(".ignore", "!keep.log\n");
  file("a.log");
  file("keep.log");
  file("build/x.txt");
  file("build/y.txt");
  file(".hidden/z.txt");
  file("ok.txt");
  Seen s = walk({});
  EXPECT_EQ(s.entries, (std::vector<std::string>{"keep.log file 1", "ok.txt file 1"}));
  EXPECT_EQ(s.counts.ignored, 2u);  // a.log, build
  EXPECT_EQ(s.counts.hidden, 3u);   // .gitignore, .ignore, .hidden
  os::WalkOptions all;
  all.hidden = true;
  all.no_ignore = true;
  EXPECT_EQ(walk(all).entries.size(), 10u);
}

TEST_F(WalkTest, GlobsIncludeExcludeAndPruneDirectories) {
  file("a.md");
  file("b.txt");
  file("sub/c.md");
  os::WalkOptions o;
  o.globs = {"*.md"};
  EXPECT_EQ(walk(o).entries,
            (std::vector<std::string>{"a.md file 1", "sub directory 1", "sub/c.md file 2"}));
  o.globs = {"!sub/"};
  EXPECT_EQ(walk(o).entries, (std::vector<std::string>{"a.md file 1", "b.txt file 1"}));
}

// Each entry is counted once, under the first rule that leaves it out: --glob, then ignore
// files, then hidden names.
TEST_F(WalkTest, GlobIgnoreHiddenPrecedence) {
  file(".gitignore", "*.log\n.secret.log\n");
  file("a.log");        // ignored
  file(".secret.log");  // ignored and hidden: ignored
  file(".h.txt");       // hidden
  file("b.txt");
  file("c.md");
  os::WalkOptions o;
  Seen s = walk(o);
  EXPECT_EQ(s.entries, (std::vector<std::string>{"b.txt file 1", "c.md file 1"}));
  EXPECT_EQ(s.counts.ignored, 2u);
  EXPECT_EQ(s.counts.hidden, 2u);  // .gitignore, .h.txt
  EXPECT_EQ(s.counts.glob, 0u);
  o.no_ignore = true;  // what ignore files left out is now counted by the next rule
  s = walk(o);
  EXPECT_EQ(s.counts.ignored, 0u);
  EXPECT_EQ(s.counts.hidden, 3u);
  o.no_ignore = false;
  o.globs = {"*.txt"};  // a plain glob leaves out what it does not match, before anything else
  s = walk(o);
  EXPECT_EQ(s.entries, (std::vector<std::string>{".h.txt file 1", "b.txt file 1"}));
  EXPECT_EQ(s.counts.glob, 4u);  // .gitignore .secret.log a.log c.md
  EXPECT_EQ(s.counts.ignored + s.counts.hidden, 0u);
  o.globs = {"!*.md"};  // an excluding glob counts only what it excludes
  s = walk(o);
  EXPECT_EQ(s.counts.glob, 1u);
  EXPECT_EQ(s.counts.ignored, 2u);
  EXPECT_EQ(s.counts.hidden, 2u);
}

TEST_F(WalkTest, IgnoreFilesFromTheIgnoreRootDown) {
  file(".gitignore", "*.log\n");
  file("sub/deeper/.gitignore", "skip.txt\n");
  file("sub/deeper/a.log");
  file("sub/deeper/skip.txt");
  file("sub/deeper/keep.txt");
  os::Fd root = open_dir(root_);
  Seen s = walk({}, "sub/deeper", root.get(), "sub/deeper");
  EXPECT_EQ(s.entries, (std::vector<std::string>{"sub/deeper/keep.txt file 1"}));
  EXPECT_EQ(s.counts.ignored, 2u);
  // without the ignore root the parent's *.log does not apply
  s = walk({}, "sub/deeper");
  EXPECT_EQ(s.entries,
            (std::vector<std::string>{"sub/deeper/a.log file 1", "sub/deeper/keep.txt file 1"}));
}

TEST_F(WalkTest, AGitignoreThatIsALinkIsNotRead) {
  file("rules", "*.txt\n");
  fs::create_symlink("rules", root_ / ".gitignore");
  file("a.txt");
  Seen s = walk({});
  EXPECT_EQ(s.entries, (std::vector<std::string>{"a.txt file 1", "rules file 1"}));
}

TEST_F(WalkTest, ADirectorySwappedBeforeItIsEnteredIsAnErrorNotFollowed) {
  file("d/inside.txt");
  fs::create_directories(root_ / "outside");
  file("outside/secret.txt");
  os::Walker w({}, open_dir(root_), ".", -1, "");
  os::WalkItem item;
  ASSERT_TRUE(w.next(item));
  ASSERT_EQ(item.entry.path, "d");
  // Listed as a directory; now a link to one outside.
  fs::rename(root_ / "d", root_ / "gone");
  fs::create_directory_symlink(root_ / "outside", root_ / "d");
  ASSERT_TRUE(w.next(item));
  ASSERT_EQ(item.type, os::WalkItem::Type::Error);
  EXPECT_EQ(item.error.rule, "path.symlink");
  while (w.next(item)) EXPECT_NE(item.entry.path.rfind("d/", 0), 0u) << item.entry.path;
}

TEST_F(WalkTest, OpenEntryRefusesALinkSwappedIn) {
  file("f.txt");
  os::Walker w({}, open_dir(root_), ".", -1, "");
  os::WalkItem item;
  ASSERT_TRUE(w.next(item));
  fs::remove(root_ / "f.txt");
  fs::create_symlink("/etc/hostname", root_ / "f.txt");
  struct stat st {};
  EXPECT_EQ(os::open_entry(item.entry, st), -ELOOP);
}

TEST_F(WalkTest, WholeReadsAreMarkedOnlyWhenAskedAndOnlyWhereTheFilesystemReadsWhole) {
  file("f.txt");
  const bool plain = os::whole_reads_fs(open_dir(root_).get());
  for (bool ask : {false, true}) {
    os::WalkOptions o;
    o.fs_kind = ask;
    os::Walker w(o, open_dir(root_), ".", -1, "");
    os::WalkItem item;
    ASSERT_TRUE(w.next(item));
    EXPECT_EQ(item.entry.whole_reads, ask && plain);
  }
  // Files whose reads stop anywhere: a seq_file in procfs gives a page at a time.
  EXPECT_FALSE(os::whole_reads_fs(open_dir("/proc/self").get()));
  EXPECT_FALSE(os::whole_reads_fs(open_dir("/sys").get()));
  os::WalkOptions o;
  o.fs_kind = true;
  os::Walker w(o, open_dir("/proc/self"), "/proc/self", -1, "");
  os::WalkItem item;
  int files = 0;
  while (w.next(item))
    if (item.type == os::WalkItem::Type::Entry && item.entry.kind == os::EntryKind::File) {
      ++files;
      EXPECT_FALSE(item.entry.whole_reads) << item.entry.path;
    }
  EXPECT_GT(files, 0);
}

TEST(SkipCounts, Json) {
  os::SkipCounts a{1, 2, 3, 4, 5, 6};
  a += os::SkipCounts{1, 1, 1, 1, 1, 1};
  EXPECT_EQ(a.to_json().dump(),
            R"({"ignored":2,"glob":7,"hidden":3,"binary":4,"special":5,"symlink":6})");
  EXPECT_EQ((a - os::SkipCounts{2, 3, 4, 5, 6, 7}).to_json().dump(),
            R"({"ignored":0,"glob":0,"hidden":0,"binary":0,"special":0,"symlink":0})");
}

}  // namespace
