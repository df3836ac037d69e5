// os_inputs_test.cpp — operands to inputs: a file named is taken as it stands, a directory is
// walked in order, an operand that cannot be opened is an error in its place; what is left out
// is counted cumulatively; ignore rules start at the root, or at the working directory, but
// not above an absolute operand.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "os/inputs.h"

namespace {

namespace fs = std::filesystem;

class InputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tack-inputs-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    file("a.txt");
    file("dir/b.txt");
    file("dir/c.log");
    file("dir/.hidden");
    file("dir/sub/d.txt");
    mkfifo((root_ / "dir/fifo").c_str(), 0600);
    fs::create_symlink("b.txt", root_ / "dir/link");
    file(".gitignore", "*.log\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void file(const std::string& rel, const std::string& content = "x") {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << content;
  }

  // "named PATH" / "walked PATH" / "error RULE", each with the skip counts before it.
  std::vector<std::string> inputs(int root_fd, std::vector<std::string> paths,
                                  os::SkipCounts* total = nullptr) {
    os::Inputs in(root_fd, std::move(paths), os::WalkOptions{});
    std::vector<std::string> seen;
    os::Input i;
    while (in.next(i)) {
      std::string s;
      switch (i.type) {
        case os::Input::Type::Named:
          s = "named " + i.path + (i.named.fd.valid() ? "" : " (not open)");
          break;
        case os::Input::Type::Walked:
          s = "walked " + i.path;
          break;
        case os::Input::Type::Error:
          s = "error " + std::string(i.error.rule);
          break;
      }
      seen.push_back(s + " " + i.skipped.to_json().dump());
    }
    if (total) *total = in.skipped();
    return seen;
  }

  fs::path root_;
};

std::string counts(int ignored, int hidden, int special, int symlink) {
  os::SkipCounts c;
  c.ignored = ignored, c.hidden = hidden, c.special = special, c.symlink = symlink;
  return c.to_json().dump();
}

TEST_F(InputsTest, OperandsInOrderWithCumulativeSkips) {
  os::Fd root(open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  os::SkipCounts total;
  const auto seen = inputs(root.get(), {"a.txt", "dir", "missing", "dir/c.log"}, &total);
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "named a.txt " + counts(0, 0, 0, 0),
                      "walked dir/b.txt " + counts(0, 1, 0, 0),  // .hidden before it
                      // then c.log (by the root's .gitignore), fifo and link
                      "walked dir/sub/d.txt " + counts(1, 1, 1, 1),
                      "error io.not-found " + counts(1, 1, 1, 1),
                      "named dir/c.log " + counts(1, 1, 1, 1),  // named: no rule applies
                  }));
  EXPECT_EQ(total.to_json().dump(), counts(1, 1, 1, 1));
}

TEST_F(InputsTest, NoOperandIsTheRootItself) {
  os::Fd root(open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const auto seen = inputs(root.get(), {});
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], "walked a.txt " + counts(0, 1, 0, 0));  // .gitignore is hidden
}

TEST_F(InputsTest, WithoutARootRulesStartAtTheWorkingDirectoryNotAboveAnAbsoluteOperand) {
  const fs::path back = fs::current_path();
  fs::current_path(root_);
  const auto relative = inputs(-1, {"dir"});
  const auto absolute = inputs(-1, {(root_ / "dir").string()});
  fs::current_path(back);
  ASSERT_EQ(relative.size(), 2u);  // c.log left out by ./.gitignore
  ASSERT_EQ(absolute.size(), 3u);  // the rules above the operand do not apply
  EXPECT_EQ(absolute[0], "walked " + (root_ / "dir/b.txt").string() + " " + counts(0, 1, 0, 0));
  EXPECT_EQ(absolute[1], "walked " + (root_ / "dir/c.log").string() + " " + counts(0, 1, 0, 0));
}

}  // namespace

// walked_reader: the first read of a file opened without fstat says what it is.
class WalkedReaderTest : public InputsTest {
 protected:
  struct Read {
    std::string bytes;
    struct stat st {};
    long long last = 0;  // the last read's return (0 at the end, -errno)
  };
  // Reads `rel` (opened as a walked file is) in reads of `len` bytes to its end.
  Read read(const std::string& rel, size_t len) {
    os::Fd fd(open((root_ / rel).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    EXPECT_TRUE(fd.valid());
    Read r;
    const text::ReadAt at = os::walked_reader(fd.get(), r.st);
    std::string buf(len, '\0');
    for (;;) {
      r.last = at(buf.data(), len, r.bytes.size());
      if (r.last <= 0) break;
      r.bytes.append(buf.data(), static_cast<size_t>(r.last));
      if (static_cast<size_t>(r.last) < len) break;  // the Scanner's end: a short read
    }
    return r;
  }
};

TEST_F(WalkedReaderTest, AReadShortOfAPageBoundaryIsTheWholeFileWithoutFstat) {
  file("small.txt", "hello\n");
  const Read r = read("small.txt", 65536);
  EXPECT_EQ(r.bytes, "hello\n");
  EXPECT_TRUE(S_ISREG(r.st.st_mode));
  EXPECT_EQ(r.st.st_size, 6);
  EXPECT_EQ(r.st.st_ino, 0u);  // no fstat was made
  file("empty.txt", "");
  const Read e = read("empty.txt", 65536);
  EXPECT_EQ(e.bytes, "");
  EXPECT_TRUE(S_ISREG(e.st.st_mode));
  EXPECT_EQ(e.st.st_ino, 0u);
}

TEST_F(WalkedReaderTest, AReadEndingAtAPageBoundaryOrFullIsCheckedWithFstat) {
  // A read cut short by a page that failed ends at a page boundary: such a file is measured.
  file("pages.txt", std::string(8192, 'a'));
  const Read p = read("pages.txt", 65536);
  EXPECT_EQ(p.bytes.size(), 8192u);
  EXPECT_NE(p.st.st_ino, 0u);
  EXPECT_EQ(p.st.st_size, 8192);
  // A file longer than one read: measured at its first read, then read to its end.
  std::string big;
  for (int i = 0; i < 5000; ++i) big += "line " + std::to_string(i) + "\n";
  file("big.txt", big);
  const Read b = read("big.txt", 4096);
  EXPECT_EQ(b.bytes, big);
  EXPECT_NE(b.st.st_ino, 0u);
  EXPECT_EQ(b.st.st_size, static_cast<off_t>(big.size()));
}

TEST_F(WalkedReaderTest, AFifoOrDirectorySwappedInReadsAsEmptyAndSaysWhatItIs) {
  const Read f = read("dir/fifo", 65536);  // no writer: a read would see the end
  EXPECT_EQ(f.bytes, "");
  EXPECT_EQ(f.last, 0);
  EXPECT_TRUE(S_ISFIFO(f.st.st_mode));
  const Read d = read("dir/sub", 65536);
  EXPECT_EQ(d.bytes, "");
  EXPECT_EQ(d.last, 0);
  EXPECT_TRUE(S_ISDIR(d.st.st_mode));
}
