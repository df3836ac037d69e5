// The sandbox's evidence: under each profile, every refused family fails with EPERM/EACCES and
// every allowed one works. Each case runs in a forked child (a profile lasts for the process),
// which reports what the call returned through its exit status.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>
#include <vector>

#include "os/sandbox.h"
#include "os/seccomp_profile.h"

namespace {

namespace fs = std::filesystem;

constexpr contract::Tool kReader{.name = "reader", .effects = contract::kReadFiles};
constexpr contract::Tool kWriter{.name = "writer",
                                 .effects = contract::kReadFiles | contract::kWriteFiles};
constexpr contract::Tool kStarter{.name = "starter",
                                  .effects = contract::kReadFiles | contract::kStartPrograms};

struct Tree {
  fs::path top, root, outside;
  Tree() {
    char tmpl[] = "/tmp/tack-sandbox-XXXXXX";
    top = mkdtemp(tmpl);
    root = top / "root";
    outside = top / "outside";
    fs::create_directories(root / "sub");
    fs::create_directories(outside);
    std::ofstream(root / "in.txt") << "inside\n";
    std::ofstream(outside / "out.txt") << "outside\n";
  }
  ~Tree() { fs::remove_all(top); }
};

// Runs `body` in a child under `tool`'s profile; returns the errno the body reports (0 when
// the call succeeded), or -1 if the profile could not be installed or the child died.
int in_child(const contract::Tool& tool, const fs::path& root, std::function<int()> body) {
  pid_t pid = fork();
  if (pid == 0) {
    int root_fd = open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (os::apply_sandbox(tool, root_fd, {})) _exit(255);
    _exit(body());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 255) return -1;
  return WEXITSTATUS(status);
}

int err_of(long rc) { return rc < 0 ? errno : 0; }

bool have_landlock() { return os::landlock_abi() > 0; }

TEST(OsSandbox, EveryToolIsRefusedTheNetwork) {
  Tree t;
  for (auto* tool : {&kReader, &kWriter, &kStarter}) {
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(socket(AF_INET, SOCK_STREAM, 0)); }), EPERM);
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(socket(AF_INET6, SOCK_DGRAM, 0)); }),
              EPERM);
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(socket(AF_NETLINK, SOCK_RAW, 0)); }),
              EPERM);
    // A tool that starts programs hands its filter on to them: local sockets stay for those.
    int want = tool == &kStarter ? 0 : EPERM;
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(socket(AF_UNIX, SOCK_STREAM, 0)); }),
              want);
    int sv[2];
    EXPECT_EQ(
        in_child(*tool, t.root, [&] { return err_of(socketpair(AF_UNIX, SOCK_STREAM, 0, sv)); }),
        want);
  }
}

TEST(OsSandbox, NoNewProcessesUnlessDeclaredButThreadsWork) {
  Tree t;
  auto spawn = [] {
    pid_t p = fork();
    if (p == 0) _exit(0);
    if (p > 0) waitpid(p, nullptr, 0);
    return err_of(p);
  };
  auto exec = [] {
    char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
    return err_of(execv("/bin/true", argv));
  };
  auto thread = [] {
    int v = 0;
    std::thread th([&] { v = 7; });
    th.join();
    return v == 7 ? 0 : 1;
  };
  EXPECT_EQ(in_child(kReader, t.root, spawn), EPERM);
  EXPECT_EQ(in_child(kReader, t.root, exec), EPERM);
  EXPECT_EQ(in_child(kWriter, t.root, spawn), EPERM);
  EXPECT_EQ(in_child(kReader, t.root, thread), 0);
  EXPECT_EQ(in_child(kWriter, t.root, thread), 0);
  // Positive control: the profile that declares programs may start them.
  EXPECT_EQ(in_child(kStarter, t.root, spawn), 0);
}

TEST(OsSandbox, ReadOnlyToolsCannotMutate) {
  Tree t;
  std::string in = (t.root / "in.txt").string(), sub = (t.root / "sub").string();
  std::string fresh = (t.root / "new").string(), moved = (t.root / "moved").string();
  auto r = [&](std::function<int()> f) { return in_child(kReader, t.root, f); };
  EXPECT_EQ(r([&] { return err_of(open(in.c_str(), O_WRONLY)); }), EPERM);
  EXPECT_EQ(r([&] { return err_of(open(in.c_str(), O_RDWR)); }), EPERM);
  EXPECT_EQ(r([&] { return err_of(open(fresh.c_str(), O_RDONLY | O_CREAT, 0644)); }), EPERM);
  EXPECT_EQ(r([&] { return err_of(rename(in.c_str(), moved.c_str())); }), EPERM);
  EXPECT_EQ(r([&] { return err_of(unlink(in.c_str())); }), EPERM);
  EXPECT_EQ(r([&] { return err_of(mkdir(fresh.c_str(), 0755)); }), EPERM);
  EXPECT_EQ(r([&] { return err_of(truncate(in.c_str(), 0)); }), EPERM);
  EXPECT_EQ(r([&] { return err_of(chmod(in.c_str(), 0600)); }), EPERM);
  EXPECT_EQ(r([&] { return err_of(symlink("in.txt", fresh.c_str())); }), EPERM);
  EXPECT_EQ(r([&] { return err_of(link(in.c_str(), fresh.c_str())); }), EPERM);
  // Reading stays allowed beneath the root.
  EXPECT_EQ(r([&] { return err_of(open(in.c_str(), O_RDONLY)); }), 0);
  EXPECT_EQ(r([&] { return err_of(open(sub.c_str(), O_RDONLY | O_DIRECTORY)); }), 0);
  // Nothing was changed by any of the refused calls.
  EXPECT_TRUE(fs::exists(in));
  EXPECT_FALSE(fs::exists(fresh));
  EXPECT_FALSE(fs::exists(moved));
}

// Every way to truncate a file is refused to a reader, with a root and without one: its
// Landlock ruleset leaves truncation to the seccomp filter where one is installed, so the
// filter must refuse the opens whose flags it cannot read (openat2, open_by_handle_at) as well
// as truncate, ftruncate and O_TRUNC. O_RDONLY|O_TRUNC truncates with a read-only descriptor.
TEST(OsSandbox, ReadOnlyToolsCannotTruncate) {
  Tree t;
  const std::string in = (t.root / "in.txt").string();
  auto openat2_trunc = [&] {
    open_how how{};
    how.flags = O_RDONLY | O_TRUNC;
    long fd = syscall(SYS_openat2, AT_FDCWD, in.c_str(), &how, sizeof how);
    return err_of(fd);
  };
  auto by_handle = [&] {
    // Refused whatever the handle: a bad one would fail anyway, so the call is made with a
    // real handle to this very file, read-only and truncating.
    alignas(file_handle) char buf[sizeof(file_handle) + MAX_HANDLE_SZ];
    auto* h = reinterpret_cast<file_handle*>(buf);
    h->handle_bytes = MAX_HANDLE_SZ;
    int mount_id = 0;
    if (name_to_handle_at(AT_FDCWD, in.c_str(), h, &mount_id, 0) != 0) return 250;
    int dir = open(in.c_str(), O_PATH);
    long fd = syscall(SYS_open_by_handle_at, dir, h, O_RDONLY | O_TRUNC);
    return err_of(fd);
  };
  auto ftrunc = [&] {
    int fd = open(in.c_str(), O_RDONLY);
    return fd < 0 ? 251 : err_of(ftruncate(fd, 0));
  };
  for (const fs::path& root : {t.root, fs::path()}) {
    auto r = [&](std::function<int()> f) {
      pid_t pid = fork();
      if (pid == 0) {
        int root_fd = root.empty() ? -1 : open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (os::apply_sandbox(kReader, root_fd, {})) _exit(255);
        _exit(f());
      }
      int status = 0;
      waitpid(pid, &status, 0);
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    SCOPED_TRACE(root.empty() ? "without a root" : "with a root");
    EXPECT_EQ(r(openat2_trunc), EPERM);
    EXPECT_EQ(r([&] { return err_of(open(in.c_str(), O_RDONLY | O_TRUNC)); }), EPERM);
    EXPECT_EQ(r([&] { return err_of(truncate(in.c_str(), 0)); }), EPERM);
    EXPECT_EQ(r(ftrunc), EPERM);
    EXPECT_EQ(r([&] { return err_of(creat(in.c_str(), 0644)); }), EPERM);
    EXPECT_EQ(r(by_handle), EPERM);
    // Positive control: the same file is still readable, and was not truncated by any call.
    EXPECT_EQ(r([&] { return err_of(open(in.c_str(), O_RDONLY)); }), 0);
    std::ifstream f(in);
    std::string content((std::istreambuf_iterator<char>(f)), {});
    EXPECT_EQ(content, "inside\n");
  }
}

TEST(OsSandbox, EverywhereRefusedFamilies) {
  Tree t;
  for (auto* tool : {&kReader, &kWriter}) {
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(ptrace(PTRACE_TRACEME, 0, nullptr, nullptr)); }), EPERM);
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(syscall(SYS_bpf, 0, nullptr, 0)); }), EPERM);
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(syscall(SYS_io_uring_setup, 1, nullptr)); }), EPERM);
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(syscall(SYS_userfaultfd, 0)); }), EPERM);
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0)); }), EPERM);
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(syscall(SYS_keyctl, 0, 0, 0, 0, 0)); }), EPERM);
    EXPECT_EQ(in_child(*tool, t.root, [] { return err_of(syscall(SYS_mount, "none", "/mnt", "tmpfs", 0, nullptr)); }), EPERM);
  }
}

TEST(OsSandbox, LandlockKeepsReadsBeneathTheRoot) {
  if (!have_landlock()) GTEST_SKIP() << "this kernel has no Landlock";
  Tree t;
  std::string out = (t.outside / "out.txt").string(), in = (t.root / "in.txt").string();
  EXPECT_EQ(in_child(kReader, t.root, [&] { return err_of(open(out.c_str(), O_RDONLY)); }), EACCES);
  EXPECT_EQ(in_child(kReader, t.root, [&] { return err_of(open(in.c_str(), O_RDONLY)); }), 0);
  EXPECT_EQ(in_child(kReader, t.root, [] { return err_of(open("/etc/hostname", O_RDONLY)); }), EACCES);
}

TEST(OsSandbox, LandlockKeepsWritesBeneathTheRoot) {
  if (!have_landlock()) GTEST_SKIP() << "this kernel has no Landlock";
  Tree t;
  std::string inside = (t.root / "made.txt").string(), outside = (t.outside / "made.txt").string();
  std::string out_file = (t.outside / "out.txt").string();
  auto create = [](std::string p) {
    return [p] {
      int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
      if (fd >= 0) close(fd);
      return err_of(fd);
    };
  };
  EXPECT_EQ(in_child(kWriter, t.root, create(inside)), 0);
  EXPECT_EQ(in_child(kWriter, t.root, create(outside)), EACCES);
  EXPECT_EQ(in_child(kWriter, t.root, [&] { return err_of(open(out_file.c_str(), O_WRONLY)); }), EACCES);
  EXPECT_TRUE(fs::exists(inside));
  EXPECT_FALSE(fs::exists(outside));
  std::ifstream f(out_file);
  std::string content((std::istreambuf_iterator<char>(f)), {});
  EXPECT_EQ(content, "outside\n");
}

TEST(OsSandbox, AuthorityNamesTheMechanisms) {
  contract::Json a = os::authority(kReader);
  ASSERT_NE(a.get("mechanisms"), nullptr);
  const contract::Json* abi = a.get("mechanisms")->get("landlock_abi");
  ASSERT_NE(abi, nullptr);
  EXPECT_EQ(abi->is_null(), !have_landlock());
  EXPECT_EQ(a.get("mechanisms")->get("seccomp")->as_bool(), os::seccomp_available());
}

}  // namespace

// The programs the tools carry are exactly what libseccomp compiles from the profile now: a
// stale or hand-edited table would fail here, not silently weaken a tool.
TEST(OsSandbox, CarriedProgramsEqualAFreshCompile) {
  for (bool start : {false, true})
    for (bool write : {false, true}) {
      scmp_filter_ctx f = os::seccomp_profile(start, write);
      ASSERT_NE(f, nullptr);
      int fd = memfd_create("bpf", 0);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(seccomp_export_bpf(f, fd), 0);
      seccomp_release(f);
      off_t n = lseek(fd, 0, SEEK_END);
      std::vector<unsigned char> fresh(static_cast<size_t>(n));
      ASSERT_EQ(pread(fd, fresh.data(), fresh.size(), 0), n);
      close(fd);
      auto carried = os::seccomp_program(start, write);
      EXPECT_GT(carried.size(), 0u);
      EXPECT_EQ(std::vector<unsigned char>(carried.begin(), carried.end()), fresh)
          << "start_programs=" << start << " write_files=" << write;
    }
  // The supervisor that leaves sockets to its programs, and the filter each program adds.
  for (int i : {4, 5}) {
    scmp_filter_ctx f =
        i == 4 ? os::seccomp_profile(true, true, true) : os::seccomp_started_profile();
    ASSERT_NE(f, nullptr);
    int fd = memfd_create("bpf", 0);
    ASSERT_EQ(seccomp_export_bpf(f, fd), 0);
    seccomp_release(f);
    off_t n = lseek(fd, 0, SEEK_END);
    std::vector<unsigned char> fresh(static_cast<size_t>(n));
    ASSERT_EQ(pread(fd, fresh.data(), fresh.size(), 0), n);
    close(fd);
    auto carried = i == 4 ? os::seccomp_program(true, true, true) : os::started_program_filter();
    EXPECT_EQ(std::vector<unsigned char>(carried.begin(), carried.end()), fresh) << i;
  }
  // Each effect changes the program.
  EXPECT_NE(os::seccomp_program(false, false).size(), os::seccomp_program(false, true).size());
  EXPECT_NE(os::seccomp_program(false, false).size(), os::seccomp_program(true, false).size());
}
