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
