// os_open_test.cpp — open beneath a root (CONTRACT.md §5) against a hostile fixture tree:
// links of every shape, escapes, special files that would block, odd names. Every case runs
// twice, through openat2 and through the O_NOFOLLOW walk, and must get the same answer.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/openat2.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "os/open.h"

namespace {

namespace fs = std::filesystem;

void write_file(const std::string& path, std::string_view content) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
  close(fd);
}

template <class T>
std::string rule_of(const os::Result<T>& r) {
  if (auto* e = std::get_if<contract::Error>(&r)) return std::string(e->rule);
  return "ok";
}

template <class T>
const contract::Error& error_of(const os::Result<T>& r) {
  return std::get<contract::Error>(r);
}

std::string read_all(int fd) {
  std::string out(4096, '\0');
  long long n = os::pread_full(fd, out.data(), out.size(), 0);
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

// Runs `fn` in a child and fails if it has not exited within `ms`: a regression that blocks
// on a FIFO fails this test instead of hanging the whole suite.
int exit_code_within(const std::function<int()>& fn, int ms) {
  pid_t pid = fork();
  if (pid == 0) _exit(fn());
  for (int waited = 0; waited < ms; waited += 5) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -2;  // timed out: the open blocked
}

// A fresh tree per test:
//   base/outside.txt  base/rootevil/x.txt
//   base/root/{file.txt, dir/inner.txt, dir/sub/deep.txt, links, fifo, sock, odd names}
class OsOpenTree : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tack-os-open-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    root_ = base_ + "/root";
    chmod(base_.c_str(), 0755);
    fs::create_directories(root_ + "/dir/sub");
    fs::create_directories(base_ + "/rootevil");
    write_file(base_ + "/outside.txt", "outside\n");
    write_file(base_ + "/rootevil/x.txt", "evil\n");
    write_file(root_ + "/file.txt", "hello\n");
    write_file(root_ + "/dir/inner.txt", "inner\n");
    write_file(root_ + "/dir/sub/deep.txt", "deep\n");
    fs::create_symlink("file.txt", root_ + "/link_file");
    fs::create_symlink("dir", root_ + "/link_dir");
    fs::create_symlink("sub", root_ + "/dir/link_sub");
    fs::create_symlink("nope", root_ + "/dangling");
    fs::create_symlink("chain2", root_ + "/chain1");
    fs::create_symlink("file.txt", root_ + "/chain2");
    fs::create_symlink("loop2", root_ + "/loop1");
    fs::create_symlink("loop1", root_ + "/loop2");
    fs::create_symlink("/etc/passwd", root_ + "/abs_link");
    fs::create_symlink("../outside.txt", root_ + "/up_link");
    fs::create_symlink("/dev/zero", root_ + "/zero");
    fs::create_symlink("../rootevil", root_ + "/evil_dir");
    ASSERT_EQ(mkfifo((root_ + "/fifo").c_str(), 0644), 0);
    make_socket(root_ + "/sock");
    auto r = os::open_root(root_);
    ASSERT_EQ(rule_of(r), "ok");
    root_fd_ = std::move(std::get<os::Fd>(r));
  }
  void TearDown() override {
    sock_ = os::Fd();
    root_fd_ = os::Fd();
    fs::remove_all(base_);
  }
  void make_socket(const std::string& path) {
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(s, 0);
    sock_ = os::Fd(s);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    ASSERT_LT(path.size(), sizeof addr.sun_path);
    memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  }
  std::string base_, root_;
  os::Fd root_fd_, sock_;
};

// Beneath the root: run once through openat2 and once through the walk.
class OsOpenBeneath : public OsOpenTree, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    OsOpenTree::SetUp();
    os::force_walk_fallback_for_tests(GetParam());
  }
  void TearDown() override {
    os::force_walk_fallback_for_tests(false);
    OsOpenTree::TearDown();
  }
  os::Result<os::Opened> open(std::string_view path, os::Want want = os::Want::File) {
    return os::open_read(root_fd_.get(), path, want, path);
  }
  std::string rule(std::string_view path, os::Want want = os::Want::File) {
    return rule_of(open(path, want));
  }
};

INSTANTIATE_TEST_SUITE_P(Os, OsOpenBeneath, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "walk" : "openat2"; });

TEST(OsOpen, Openat2IsAvailableHereSoBothResolutionsAreExercised) {
  // If this fails the openat2 runs silently test the walk twice; the suite still passes
  // otherwise, so say so loudly.
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH;
  long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof how);
  if (fd < 0 && (errno == ENOSYS || errno == EPERM)) GTEST_SKIP() << "no openat2 here";
  ASSERT_GE(fd, 0);
  close(static_cast<int>(fd));
}

TEST_P(OsOpenBeneath, RegularFileOpensAndReads) {
  auto r = open("file.txt");
  ASSERT_EQ(rule_of(r), "ok");
  const os::Opened& o = std::get<os::Opened>(r);
  EXPECT_TRUE(S_ISREG(o.st.st_mode));
  EXPECT_EQ(read_all(o.fd.get()), "hello\n");
  // O_NONBLOCK was only for the open; a regular file is read normally afterwards.
  EXPECT_EQ(fcntl(o.fd.get(), F_GETFL) & O_NONBLOCK, 0);
  EXPECT_NE(fcntl(o.fd.get(), F_GETFD) & FD_CLOEXEC, 0);
  EXPECT_EQ(rule("dir/sub/deep.txt"), "ok");
}

TEST_P(OsOpenBeneath, DirectoriesByWant) {
  EXPECT_EQ(rule(".", os::Want::File), "io.is-a-directory");
  EXPECT_EQ(rule(".", os::Want::Directory), "ok");
  EXPECT_EQ(rule(".", os::Want::Any), "ok");
  EXPECT_EQ(rule("dir", os::Want::File), "io.is-a-directory");
  EXPECT_EQ(rule("dir/sub", os::Want::Directory), "ok");
  EXPECT_EQ(rule("file.txt", os::Want::Directory), "io.not-a-directory");
  EXPECT_EQ(rule("file.txt", os::Want::Any), "ok");
  auto r = open(".", os::Want::Directory);
  ASSERT_EQ(rule_of(r), "ok");
  struct stat want_st {};
  ASSERT_EQ(stat(root_.c_str(), &want_st), 0);
  EXPECT_EQ(std::get<os::Opened>(r).st.st_ino, want_st.st_ino);  // "." is the root itself
}

TEST_P(OsOpenBeneath, MissingAndNotADirectory) {
  EXPECT_EQ(rule("missing"), "io.not-found");
  EXPECT_EQ(rule("dir/missing"), "io.not-found");
  EXPECT_EQ(rule("missing/x"), "io.not-found");
  EXPECT_EQ(rule("file.txt/x"), "io.not-a-directory");
  EXPECT_EQ(rule("file.txt/"), "io.not-a-directory");
  EXPECT_EQ(rule(""), "io.not-found");
}

TEST_P(OsOpenBeneath, EveryLinkIsRefused) {
  for (std::string_view p : {"link_file", "link_dir", "link_dir/inner.txt", "dir/link_sub",
                             "dir/link_sub/deep.txt", "dangling", "chain1", "loop1", "abs_link",
                             "up_link", "zero", "evil_dir/x.txt", "link_dir/"}) {
    auto r = open(p, os::Want::Any);
    ASSERT_EQ(rule_of(r), "path.symlink") << p;
    EXPECT_NE(error_of(r).message.find("symbolic link"), std::string::npos) << p;
    EXPECT_EQ(error_of(r).detail.get("errno")->str(), "ELOOP") << p;
  }
}

TEST_P(OsOpenBeneath, EscapesAreOutsideTheRoot) {
  // check_path refuses these first; open_read must hold even for a caller that did not.
  EXPECT_EQ(rule("../outside.txt"), "path.outside-root");
  EXPECT_EQ(rule("dir/../../outside.txt"), "path.outside-root");
  EXPECT_EQ(rule("../rootevil/x.txt"), "path.outside-root");
  EXPECT_EQ(rule("/etc/passwd"), "path.outside-root");
  EXPECT_EQ(rule(root_ + "/file.txt"), "path.outside-root");
  EXPECT_EQ(rule("dir/../file.txt"), "ok");  // `..` that stays beneath is the kernel's call
  EXPECT_EQ(rule("dir/sub/..", os::Want::Directory), "ok");
}

TEST_P(OsOpenBeneath, FifoIsRefusedWithoutBlocking) {
  // No writer exists: an open without O_NONBLOCK would wait forever.
  int code = exit_code_within([&] { return rule("fifo") == "io.special-file" ? 0 : 1; }, 5000);
  // Only once the child proved the open returns may this process try it itself.
  ASSERT_EQ(code, 0) << "-2 means the open blocked";
  auto r = open("fifo", os::Want::Any);
  ASSERT_EQ(rule_of(r), "io.special-file");
  EXPECT_EQ(error_of(r).detail.get("kind")->str(), "fifo");
}

TEST_P(OsOpenBeneath, SocketIsASpecialFile) {
  auto r = open("sock", os::Want::Any);
  ASSERT_EQ(rule_of(r), "io.special-file");
  EXPECT_EQ(error_of(r).detail.get("errno")->str(), "ENXIO");
}

TEST_P(OsOpenBeneath, OddNamesAreOrdinary) {
  for (std::string name :
       {"it's \"q\"", "a b", "~", "%2e%2e", "-rf", "new\nline", "\xff\xfe", "...", " ", "$(x)"}) {
    write_file(root_ + "/" + name, name);
    auto r = open(name);
    ASSERT_EQ(rule_of(r), "ok") << name;
    EXPECT_EQ(read_all(std::get<os::Opened>(r).fd.get()), name);
  }
  auto missing = open("-rf missing\n\xff");
  ASSERT_EQ(rule_of(missing), "io.not-found");
  EXPECT_EQ(error_of(missing).detail.get("path")->type(), contract::Json::Type::Bytes);
  EXPECT_EQ(error_of(missing).detail.get("path")->str(), "-rf missing\n\xff");
  EXPECT_NE(error_of(missing).message.find("\\xff"), std::string::npos);
}

TEST_P(OsOpenBeneath, LongNamesAreTooLong) {
  EXPECT_EQ(rule(std::string(5000, 'n')), "path.too-long");
  EXPECT_EQ(rule(std::string(300, 'n')), "path.too-long");  // one name past NAME_MAX
  std::string deep;
  for (int i = 0; i < 20; ++i) deep += std::string(250, 'd') + "/";
  deep += "f";
  EXPECT_EQ(rule(deep), "path.too-long");  // past PATH_MAX
}

TEST_P(OsOpenBeneath, NulIsABadName) {
  EXPECT_EQ(rule(std::string("file.txt\0/../x", 14)), "path.bad-name");
}

TEST_P(OsOpenBeneath, PermissionDeniedAsAnUnprivilegedUser) {
  write_file(root_ + "/secret.txt", "s");
  ASSERT_EQ(chmod((root_ + "/secret.txt").c_str(), 0), 0);
  ASSERT_EQ(chmod(root_.c_str(), 0755), 0);
  // root would read through mode 000, so the check runs in a child that drops to nobody.
  int code = exit_code_within(
      [&] {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) return 3;
        if (rule("secret.txt") != "io.permission-denied") return 1;
        return rule("file.txt") == "ok" ? 0 : 2;
      },
      5000);
  EXPECT_EQ(code, 0);
}

TEST_P(OsOpenBeneath, AWalkedDirectoryRenamedAwayCannotLeadOutside) {
  // Resolution is relative to descriptors, so moving the tree mid-life changes nothing: the
  // root fd still names the same directory and `..` from it is still refused.
  ASSERT_EQ(rename(root_.c_str(), (base_ + "/moved").c_str()), 0);
  EXPECT_EQ(rule("file.txt"), "ok");
  EXPECT_EQ(rule("../outside.txt"), "path.outside-root");
  ASSERT_EQ(rename((base_ + "/moved").c_str(), root_.c_str()), 0);
}

TEST_F(OsOpenTree, WithoutRootFollowsTheOperatorsLinks) {
  auto r = os::open_read(-1, root_ + "/link_file", os::Want::File, "x");
  ASSERT_EQ(rule_of(r), "ok");
  EXPECT_EQ(read_all(std::get<os::Opened>(r).fd.get()), "hello\n");
  EXPECT_EQ(rule_of(os::open_read(-1, root_ + "/up_link", os::Want::File, "x")), "ok");
  EXPECT_EQ(rule_of(os::open_read(-1, root_ + "/dangling", os::Want::File, "x")), "io.not-found");
  EXPECT_EQ(rule_of(os::open_read(-1, root_ + "/loop1", os::Want::File, "x")), "path.symlink");
  EXPECT_EQ(rule_of(os::open_read(-1, root_ + "/dir", os::Want::File, "x")), "io.is-a-directory");
  EXPECT_EQ(rule_of(os::open_read(-1, root_ + "/zero", os::Want::File, "x")), "io.special-file");
  auto dev = os::open_read(-1, "/dev/zero", os::Want::Any, "/dev/zero");
  ASSERT_EQ(rule_of(dev), "io.special-file");
  EXPECT_EQ(error_of(dev).detail.get("kind")->str(), "char-device");
  int code = exit_code_within(
      [&] {
        auto f = os::open_read(-1, root_ + "/fifo", os::Want::File, "fifo");
        return rule_of(f) == "io.special-file" ? 0 : 1;
      },
      5000);
  EXPECT_EQ(code, 0);
}

TEST_F(OsOpenTree, OpenRoot) {
  EXPECT_EQ(rule_of(os::open_root(root_ + "/missing")), "io.not-found");
  EXPECT_EQ(rule_of(os::open_root(root_ + "/file.txt")), "io.not-a-directory");
  EXPECT_EQ(rule_of(os::open_root(root_ + "/link_dir")), "ok");  // the operator's spelling
  EXPECT_EQ(rule_of(os::open_root(root_ + "/fifo")), "io.not-a-directory");
  auto r = os::open_root(root_ + "/link_dir");
  ASSERT_EQ(rule_of(r), "ok");
  int fd = std::get<os::Fd>(r).get();
  // Paths beneath a root reached through a link still refuse links below it.
  EXPECT_EQ(rule_of(os::open_read(fd, "inner.txt", os::Want::File, "inner.txt")), "ok");
  EXPECT_EQ(rule_of(os::open_read(fd, "link_sub", os::Want::Any, "link_sub")), "path.symlink");
}

TEST(OsOpen, ErrnoErrorMapsEveryErrnoToACatalogueRule) {
  struct Case {
    int err;
    std::string_view rule, name;
  };
  for (Case k :
       {Case{ENOENT, "io.not-found", "ENOENT"}, Case{ENOTDIR, "io.not-a-directory", "ENOTDIR"},
        Case{ELOOP, "path.symlink", "ELOOP"}, Case{EXDEV, "path.outside-root", "EXDEV"},
        Case{EACCES, "io.permission-denied", "EACCES"},
        Case{EPERM, "io.permission-denied", "EPERM"}, Case{EISDIR, "io.is-a-directory", "EISDIR"},
        Case{ENAMETOOLONG, "path.too-long", "ENAMETOOLONG"},
        Case{ENXIO, "io.special-file", "ENXIO"}, Case{EIO, "io.read-failed", "EIO"},
        Case{ENOMEM, "io.read-failed", "ENOMEM"}}) {
    contract::Error e = os::errno_error(k.err, "a\xff", "read");
    EXPECT_EQ(e.rule, k.rule) << k.name;
    EXPECT_NE(contract::find_rule(e.rule), nullptr) << k.name;
    EXPECT_EQ(e.detail.get("errno")->str(), k.name);
    EXPECT_EQ(e.detail.get("path")->str(), "a\xff");
    EXPECT_TRUE(e.message.starts_with("cannot read 'a\\xff': ")) << e.message;
  }
}

TEST(OsOpen, FdClosesOnceAndMoves) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  {
    os::Fd a(raw);
    os::Fd b(std::move(a));
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(b.get(), raw);
    os::Fd c;
    c = std::move(b);
    EXPECT_EQ(c.get(), raw);
    EXPECT_FALSE(b.valid());
    EXPECT_GE(fcntl(raw, F_GETFD), 0);
  }
  EXPECT_EQ(fcntl(raw, F_GETFD), -1);  // closed when the last owner went away
  EXPECT_EQ(errno, EBADF);
}

TEST_F(OsOpenTree, PreadFull) {
  auto r = os::open_read(-1, root_ + "/file.txt", os::Want::File, "f");
  ASSERT_EQ(rule_of(r), "ok");
  int fd = std::get<os::Opened>(r).fd.get();
  char buf[16];
  EXPECT_EQ(os::pread_full(fd, buf, 3, 2), 3);
  EXPECT_EQ(std::string_view(buf, 3), "llo");
  EXPECT_EQ(os::pread_full(fd, buf, sizeof buf, 4), 2);  // short only at end of file
  EXPECT_EQ(os::pread_full(fd, buf, sizeof buf, 100), 0);
  EXPECT_EQ(os::pread_full(-1, buf, sizeof buf, 0), -EBADF);
  auto d = os::open_read(-1, root_, os::Want::Directory, "d");
  ASSERT_EQ(rule_of(d), "ok");
  EXPECT_EQ(os::pread_full(std::get<os::Opened>(d).fd.get(), buf, sizeof buf, 0), -EISDIR);
}

// A stream is kept up to the cap, counted past it, and left at the ceiling.
TEST(OsReadCapped, KeepsCountsAndStops) {
  auto from_pipe = [](const std::string& data, uint64_t keep, uint64_t ceiling, bool refuse) {
    int fd = memfd_create("stream", 0);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
    lseek(fd, 0, SEEK_SET);
    std::string kept;
    os::CappedRead r = os::read_capped(fd, keep, ceiling, [&](std::string_view piece) {
      if (refuse) return false;
      kept += piece;
      return true;
    });
    close(fd);
    return std::pair(r, kept);
  };
  const std::string data(10000, 'x');
  auto [all, kept] = from_pipe(data, 20000, 30000, false);
  EXPECT_EQ(all.error, 0);
  EXPECT_EQ(all.total, 10000u);
  EXPECT_EQ(kept, data);
  // Past the cap: counted to the end, only what fit before the cap was taken.
  auto [over, some] = from_pipe(data, 4000, 30000, false);
  EXPECT_EQ(over.error, 0);
  EXPECT_EQ(over.total, 10000u);
  EXPECT_LE(some.size(), 4000u);
  // Past the ceiling: it stops there, short of the end.
  auto [stopped, none] = from_pipe(std::string(1 << 20, 'y'), 10, 1000, false);
  EXPECT_GT(stopped.total, 1000u);
  EXPECT_LT(stopped.total, 1u << 20);
  // A piece that cannot be kept (out of memory) stops the read with ENOMEM.
  auto [refused, nothing] = from_pipe(data, 20000, 30000, true);
  EXPECT_EQ(refused.error, ENOMEM);
  EXPECT_TRUE(nothing.empty());
}

}  // namespace

// A writer's earlier file is closed by the process's exit, not by its scope: its descriptor
// stays open and the Fd is left empty, for 64 files; past them each is closed at once (a call
// changing thousands of files never runs out of descriptors).
TEST(OsOpen, CloseAtExitKeepsSixtyFourAndClosesTheRest) {
  std::vector<int> raw;
  for (int i = 0; i < 70; ++i) {
    os::Fd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(fd.valid());
    raw.push_back(fd.get());
    os::close_at_exit(fd);
    EXPECT_FALSE(fd.valid());
  }
  int open_now = 0;
  for (int r : raw)
    if (fcntl(r, F_GETFD) >= 0) ++open_now;
  EXPECT_EQ(open_now, 64);
  EXPECT_GE(fcntl(raw.front(), F_GETFD), 0);
  EXPECT_LT(fcntl(raw.back(), F_GETFD), 0);
  for (int i = 0; i < 64; ++i) close(raw[i]);
}
