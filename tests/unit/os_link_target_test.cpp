// os_link_target_test.cpp — link_target says when a path opened as given ran through a
// symbolic link (a directory, the file itself, a chain, a relative link) and where it led, and
// says nothing when no component is a link (also for `..`, `.`, `//` and a deleted file). It
// must work under a read-only tool's sandbox, which is in place before any file is opened.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "os/link_target.h"
#include "os/sandbox.h"

namespace {

namespace fs = std::filesystem;

struct Tree {
  fs::path top;  // physical: no link in its own spelling
  Tree() {
    char tmpl[] = "/tmp/tack-link-XXXXXX";
    top = fs::canonical(mkdtemp(tmpl));
    fs::create_directories(top / "real" / "sub");
    fs::create_directories(top / "other");
    std::ofstream(top / "real" / "f.txt") << "f\n";
    std::ofstream(top / "real" / "sub" / "deep.txt") << "deep\n";
    std::ofstream(top / "other" / "o.txt") << "o\n";
    fs::create_directory_symlink(top / "real", top / "dirlink");  // absolute target
    fs::create_directory_symlink("real/sub", top / "rel");        // relative target
    fs::create_symlink(top / "real" / "f.txt", top / "filelink");
    fs::create_symlink("filelink", top / "chain2");  // chain2 -> filelink -> f
    fs::create_symlink("chain2", top / "chain3");
    fs::create_directory_symlink("../other", top / "real" / "up");  // inside a real dir
  }
  ~Tree() { fs::remove_all(top); }
};

// Opens `spelled` as a reader without a root would, then asks.
std::optional<std::string> through(const std::string& spelled) {
  int fd = open(spelled.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << spelled;
  if (fd < 0) return std::nullopt;
  auto t = os::link_target(fd, spelled);
  close(fd);
  return t;
}

TEST(OsLinkTarget, NoLinkNoAnswer) {
  Tree t;
  std::string top = t.top.string();
  EXPECT_EQ(through(top + "/real/f.txt"), std::nullopt);
  EXPECT_EQ(through(top + "/real/sub/deep.txt"), std::nullopt);
  // spellings that differ from the kernel's name without any link
  EXPECT_EQ(through(top + "//real/./sub/../f.txt"), std::nullopt);
  EXPECT_EQ(through(top + "/real/sub/../../other/o.txt"), std::nullopt);
}

TEST(OsLinkTarget, ALinkedDirectory) {
  Tree t;
  std::string top = t.top.string();
  EXPECT_EQ(through(top + "/dirlink/f.txt"), top + "/real/f.txt");
  EXPECT_EQ(through(top + "/dirlink/sub/deep.txt"), top + "/real/sub/deep.txt");
  EXPECT_EQ(through(top + "/real/up/o.txt"), top + "/other/o.txt");
}

TEST(OsLinkTarget, ALinkedFileAndAChain) {
  Tree t;
  std::string top = t.top.string();
  EXPECT_EQ(through(top + "/filelink"), top + "/real/f.txt");
  EXPECT_EQ(through(top + "/chain3"), top + "/real/f.txt");
}

TEST(OsLinkTarget, ARelativeLinkAndARelativeSpelling) {
  Tree t;
  std::string top = t.top.string();
  EXPECT_EQ(through(top + "/rel/deep.txt"), top + "/real/sub/deep.txt");
  // `..` after a link climbs from where the link led, not from where it was spelled
  EXPECT_EQ(through(top + "/rel/../f.txt"), top + "/real/f.txt");
  fs::path was = fs::current_path();
  fs::current_path(t.top);
  EXPECT_EQ(through("rel/deep.txt"), top + "/real/sub/deep.txt");
  EXPECT_EQ(through("./chain2"), top + "/real/f.txt");
  EXPECT_EQ(through("real/f.txt"), std::nullopt);
  EXPECT_EQ(through("real/sub/../f.txt"), std::nullopt);
  fs::current_path(t.top / "real" / "sub");
  EXPECT_EQ(through("../f.txt"), std::nullopt);
  EXPECT_EQ(through("../../dirlink/f.txt"), top + "/real/f.txt");
  fs::current_path(was);
}

// Without /proc: the components are looked at, and realpath says where they led.
TEST(OsLinkTarget, TheSameAnswersWithoutProc) {
  Tree t;
  std::string top = t.top.string();
  os::force_no_proc_for_tests(true);
  EXPECT_EQ(through(top + "/real/f.txt"), std::nullopt);
  EXPECT_EQ(through(top + "//real/./sub/../f.txt"), std::nullopt);
  EXPECT_EQ(through(top + "/dirlink/f.txt"), top + "/real/f.txt");
  EXPECT_EQ(through(top + "/chain3"), top + "/real/f.txt");
  EXPECT_EQ(through(top + "/rel/../f.txt"), top + "/real/f.txt");
  EXPECT_EQ(through(top + "/real/up/o.txt"), top + "/other/o.txt");
  os::force_no_proc_for_tests(false);
}

TEST(OsLinkTarget, ADeletedFileIsNotALink) {
  Tree t;
  std::string path = (t.top / "real" / "f.txt").string();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(unlink(path.c_str()), 0);  // the kernel's name now ends in " (deleted)"
  EXPECT_EQ(os::link_target(fd, path), std::nullopt);
  close(fd);
}

TEST(OsLinkTarget, NothingToTell) {
  EXPECT_EQ(os::link_target(-1, "/etc/hostname"), std::nullopt);
  EXPECT_EQ(os::link_target(0, ""), std::nullopt);
}

// Under a reader's sandbox (Landlock read-only, seccomp without mutating calls), as in a tool.
TEST(OsLinkTarget, WorksUnderAReadersSandbox) {
  Tree t;
  std::string top = t.top.string();
  static constexpr contract::Tool kReader{.name = "reader", .effects = contract::kReadFiles};
  pid_t pid = fork();
  if (pid == 0) {
    if (os::apply_sandbox(kReader, -1, {})) _exit(3);
    std::string spelled = top + "/dirlink/f.txt";
    int fd = open(spelled.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) _exit(4);
    auto got = os::link_target(fd, spelled);
    if (got != top + "/real/f.txt") _exit(1);
    std::string plain = top + "/real/f.txt";
    int fd2 = open(plain.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd2 < 0 || os::link_target(fd2, plain)) _exit(2);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
