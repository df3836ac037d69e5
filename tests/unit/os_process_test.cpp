// os/process: the sweep that ends a program's whole tree, spawning with its channels and
// confinement, the private directory's removal. Each case that kills runs in a forked helper
// (a subreaper of its own), so nothing it does reaches the test runner's other children.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "os/process.h"
#include "subreaper_fixture.h"
#include "os/sandbox.h"

namespace {

using namespace std::chrono_literals;

using subreaper_fixture::in_helper;

// /bin/sh with these arguments and environment, capabilities dropped, nothing else asked.
os::Spawn shell(const char** argv, const char** envp, int in, int out, int err, int cwd) {
  return os::Spawn{.path = "/bin/sh",
                   .argv = const_cast<char* const*>(argv),
                   .envp = const_cast<char* const*>(envp),
                   .in = in,
                   .out = out,
                   .err = err,
                   .cwd = cwd,
                   .ruleset = -1,
                   .join = {},
                   .drop_capabilities = true,
                   .nproc = 0,
                   .filter = {}};
}

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

TEST(OsProcess, DescendantsFindsGrandchildren) {
  EXPECT_EQ(in_helper([] {
              int ready[2];
              if (pipe(ready) != 0) return 10;
              pid_t child = fork();
              if (child == 0) {
                if (fork() == 0) sleep_forever();
                if (write(ready[1], "x", 1) != 1) _exit(1);
                sleep_forever();
              }
              char c;
              if (read(ready[0], &c, 1) != 1) return 11;
              size_t n = os::descendants(getpid()).size();
              size_t killed = os::end_descendants(50ms);
              return n == 2 && killed == 2 && os::descendants(getpid()).empty() ? 0 : 12;
            }),
            0);
}

TEST(OsProcess, EndsDetachedDeafAndStoppedProcesses) {
  EXPECT_EQ(in_helper([] {
              int ready[2];
              if (pipe(ready) != 0) return 10;
              pid_t top = fork();
              if (top == 0) {
                // a grandchild in its own session that ignores SIGTERM, left behind
                if (fork() == 0) {
                  setsid();
                  signal(SIGTERM, SIG_IGN);
                  if (fork() == 0) {
                    if (write(ready[1], "a", 1) != 1) _exit(1);
                    sleep_forever();
                  }
                  _exit(0);
                }
                // a child that stops itself
                if (fork() == 0) {
                  if (write(ready[1], "b", 1) != 1) _exit(1);
                  raise(SIGSTOP);
                  sleep_forever();
                }
                sleep_forever();
              }
              char c[2];
              if (read(ready[0], c, 1) != 1 || read(ready[0], c + 1, 1) != 1) return 11;
              std::this_thread::sleep_for(20ms);
              int status = 0;
              auto t = std::chrono::steady_clock::now();
              size_t killed = os::end_descendants(30ms, top, &status);
              auto took = std::chrono::steady_clock::now() - t;
              if (!os::descendants(getpid()).empty()) return 12;
              if (killed != 3) return 13;  // top, the stopped child, the deaf grandchild
              if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM) return 14;
              if (took > 2s) return 15;
              siginfo_t info{};
              return waitid(P_ALL, 0, &info, WEXITED | WNOHANG) == -1 && errno == ECHILD ? 0 : 16;
            }),
            0);
}

TEST(OsProcess, NothingToEndIsCheap) {
  EXPECT_EQ(in_helper([] { return static_cast<int>(os::end_descendants(1000ms)); }), 0);
}

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int p[2];
    if (pipe2(p, O_CLOEXEC) == 0) r = p[0], w = p[1];
  }
  ~Pipe() {
    if (r >= 0) close(r);
    if (w >= 0) close(w);
  }
  std::string drain() {
    if (w >= 0) close(w), w = -1;
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = read(r, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    return out;
  }
};

TEST(OsProcess, SpawnPassesArgvEnvAndDirectory) {
  Pipe out, err;
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int tmp = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const char* argv[] = {"sh", "-c", "printf '%s|%s|%s' \"$0\" \"$FOO\" \"$(pwd)\"; echo e >&2",
                        nullptr};
  const char* envp[] = {"FOO=bar baz", "PATH=/usr/bin:/bin", nullptr};
  os::Spawn s = shell(argv, envp, null, out.w, err.w, tmp);
  os::Spawned child;
  ASSERT_FALSE(os::spawn(s, child));
  EXPECT_EQ(out.drain(), "sh|bar baz|/tmp");
  EXPECT_EQ(err.drain(), "e\n");
  int status = 0;
  waitpid(child.pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (child.pidfd >= 0) close(child.pidfd);
  close(null);
  close(tmp);
}

TEST(OsProcess, SpawnReportsExecFailures) {
  Pipe out;
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int tmp = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const char* argv[] = {"x", nullptr};
  const char* envp[] = {nullptr};
  os::Spawn s{.path = "/nonexistent/program",
              .argv = const_cast<char* const*>(argv),
              .envp = const_cast<char* const*>(envp),
              .in = null,
              .out = out.w,
              .err = out.w,
              .cwd = tmp,
              .ruleset = -1,
              .join = {},
              .drop_capabilities = true,
              .nproc = 0,
              .filter = {}};
  os::Spawned child;
  auto e = os::spawn(s, child);
  ASSERT_TRUE(e);
  EXPECT_STREQ(e->stage, "exec");
  EXPECT_EQ(e->err, ENOENT);
  close(null);
  close(tmp);
}

TEST(OsProcess, SpawnedChildHasNoCapabilitiesAndOwnSession) {
  Pipe out;
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int tmp = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const char* argv[] = {"sh", "-c",
                        "grep -E '^(CapEff|CapBnd)' /proc/self/status; ps -o sid= -p $$", nullptr};
  const char* envp[] = {"PATH=/usr/bin:/bin", nullptr};
  os::Spawn s = shell(argv, envp, null, out.w, out.w, tmp);
  os::Spawned child;
  ASSERT_FALSE(os::spawn(s, child));
  std::string text = out.drain();
  waitpid(child.pid, nullptr, 0);
  EXPECT_NE(text.find("CapEff:\t0000000000000000"), std::string::npos) << text;
  EXPECT_NE(text.find("CapBnd:\t0000000000000000"), std::string::npos) << text;
  EXPECT_EQ(std::stol(text.substr(text.rfind('\n', text.size() - 2) + 1)), child.pid) << text;
  close(null);
  close(tmp);
}

// In a PID namespace of its own the program is the second process (its init, a child of
// this one, the first); its wait status comes through the status pipe; what it left running
// is ended by the sweep, which neither signals nor counts the init, and the init is gone
// after it.
TEST(OsProcess, SpawnInAPidNamespace) {
  if (!os::pid_namespace_available()) GTEST_SKIP() << "no PID namespace can be made here";
  EXPECT_EQ(in_helper([] {
              Pipe out;
              int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
              int tmp = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
              const char* argv[] = {"sh", "-c",
                                    "echo $$ $PPID; setsid sh -c 'trap \"\" TERM; exec sleep 1000' "
                                    "</dev/null >/dev/null 2>&1 & exit 3",
                                    nullptr};
              const char* envp[] = {"PATH=/usr/bin:/bin", nullptr};
              os::Spawn s = shell(argv, envp, null, out.w, out.w, tmp);
              s.pid_namespace = true;
              os::Spawned child;
              if (os::spawn(s, child)) return 10;
              if (child.status_fd < 0) return 11;
              int st = 0;
              if (read(child.status_fd, &st, sizeof st) != sizeof st) return 12;
              if (!WIFEXITED(st) || WEXITSTATUS(st) != 3) return 13;
              if (out.drain() != "2 1\n") return 14;  // what the program sees
              // the setsid'd sleep, deaf to TERM, is still there beneath the init
              if (os::descendants(getpid()).size() != 2) return 15;
              size_t killed = os::end_descendants(30ms, -1, nullptr, child.pid, child.pidfd);
              if (killed != 1) return 16;
              siginfo_t info{};
              if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG) != -1 || errno != ECHILD) return 17;
              return 0;
            }),
            0);
}

// A supervisor killed by SIGKILL takes its program's namespace with it: nothing it started
// outlives it, detached or deaf to TERM.
TEST(OsProcess, APidNamespaceEndsWithItsSupervisor) {
  if (!os::pid_namespace_available()) GTEST_SKIP() << "no PID namespace can be made here";
  EXPECT_EQ(in_helper([] {
              int ready[2];
              if (pipe(ready) != 0) return 10;
              pid_t supervisor = fork();
              if (supervisor == 0) {
                int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
                int tmp = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
                const char* argv[] = {"sh", "-c",
                                      "setsid sh -c 'trap \"\" TERM; exec sleep 1000' & "
                                      "sleep 1000 & echo up; wait",
                                      nullptr};
                const char* envp[] = {"PATH=/usr/bin:/bin", nullptr};
                os::Spawn s = shell(argv, envp, null, ready[1], null, tmp);
                s.pid_namespace = true;
                os::Spawned child;
                if (os::spawn(s, child) || child.status_fd < 0) _exit(1);
                sleep_forever();
              }
              close(ready[1]);
              char buf[3];
              if (read(ready[0], buf, 3) != 3) return 11;
              std::this_thread::sleep_for(20ms);
              // supervisor, init, sh, and the two sleeps beneath this helper
              if (os::descendants(getpid()).size() != 5) return 12;
              kill(supervisor, SIGKILL);
              waitpid(supervisor, nullptr, 0);
              auto t = std::chrono::steady_clock::now();
              while (!os::descendants(getpid()).empty()) {
                if (std::chrono::steady_clock::now() - t > 1s) return 13;
                std::this_thread::sleep_for(5ms);
              }
              return 0;
            }),
            0);
}

// The program's Landlock ruleset alone (no seccomp): writes beneath the granted directory
// only, and TCP connect refused by Landlock itself where the ABI has network rules.
TEST(OsProcess, ProgramRulesetConfinesWritesAndTcp) {
  if (os::landlock_abi() <= 0) GTEST_SKIP() << "no Landlock";
  char tmpl[] = "/tmp/tack-process-XXXXXX";
  std::string top = mkdtemp(tmpl);
  std::string inside = top + "/in", outside = top + "/out";
  mkdir(inside.c_str(), 0700);
  mkdir(outside.c_str(), 0700);
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof sa;
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  getsockname(listener, reinterpret_cast<sockaddr*>(&sa), &len);
  int code = in_helper([&] {
    int in = open(inside.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    int fds[] = {in};
    os::ProgramRuleset rs = os::program_ruleset(fds);
    if (rs.fd < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(__NR_landlock_restrict_self, rs.fd, 0) != 0)
      return 10;
    if (open((inside + "/f").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600) < 0) return 11;
    if (open((outside + "/f").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600) >= 0 ||
        errno != EACCES)
      return 12;
    if (open("/etc/hostname", O_RDONLY | O_CLOEXEC) < 0 && errno == EACCES)
      return 13;  // reads stay
    if (rs.tcp) {
      int s = socket(AF_INET, SOCK_STREAM, 0);
      if (connect(s, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0 || errno != EACCES)
        return 14;
    }
    if (rs.scoped && kill(getppid(), 0) == 0) return 15;  // outside its domain: refused
    return 0;
  });
  close(listener);
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(os::remove_tree(top));
}

TEST(OsProcess, RemoveTreeTakesDeepAndUnreadableTrees) {
  auto dir = os::make_private_dir("/tmp");
  ASSERT_TRUE(dir);
  struct stat st {};
  ASSERT_EQ(stat(dir->c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  int fd = open(dir->c_str(), O_RDONLY | O_DIRECTORY);
  for (int i = 0; i < 3000; ++i) {  // deeper than a process has descriptors
    ASSERT_EQ(mkdirat(fd, "d", 0700), 0);
    int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
    close(fd);
    fd = next;
  }
  close(openat(fd, "file", O_WRONLY | O_CREAT, 0600));
  ASSERT_EQ(symlinkat("/etc", fd, "link"), 0);
  close(fd);
  std::string locked = *dir + "/locked";
  mkdir(locked.c_str(), 0700);
  close(open((locked + "/x").c_str(), O_WRONLY | O_CREAT, 0600));
  chmod(locked.c_str(), 0);
  EXPECT_TRUE(os::remove_tree(*dir));
  EXPECT_NE(access(dir->c_str(), F_OK), 0);
  EXPECT_EQ(access("/etc/hostname", F_OK) == 0 || errno == ENOENT,
            true);  // the link's target stays
}

TEST(OsProcess, CgroupLimitsProcessesWhereOneCanBeMade) {
  if (os::Cgroup::parents().empty()) GTEST_SKIP() << "no writable cgroup here";
  os::Cgroup cg;
  cg.make(5);
  ASSERT_TRUE(cg.made());
  if (!cg.pids_max()) GTEST_SKIP() << "no pids controller";
  auto fds = cg.join_fds();
  int v2 = cg.v2_procs_fd();
  int code = in_helper([&] {
    for (int fd : fds)
      if (write(fd, "0", 1) != 1) return 10;
    if (v2 >= 0 && write(v2, "0", 1) != 1) return 10;
    int made = 0;
    for (int i = 0; i < 20; ++i) {
      pid_t p = fork();
      if (p == 0) sleep_forever();
      if (p > 0) ++made;
    }
    os::end_descendants(10ms);
    return made;
  });
  EXPECT_EQ(code, 4);  // the helper itself is the fifth
}

// The program lands in a v2 cgroup by being created there (clone3, CLONE_INTO_CGROUP), with
// or without a PID namespace: its cgroup.procs is never written (here a pipe stands in for it,
// and stays empty). Where the kernel cannot create into the directory (not a cgroup's here),
// the child writes cgroup.procs instead and lands there all the same.
TEST(OsProcess, SpawnCreatesTheProgramInsideAV2Cgroup) {
  // This process's v2 cgroup, among the writable ones run makes its cgroups beneath.
  std::string parent;
  for (const std::string& p : os::Cgroup::parents())
    if (access((p + "/cgroup.controllers").c_str(), F_OK) == 0) parent = p;
  if (parent.empty()) GTEST_SKIP() << "no writable v2 cgroup here";
  const std::string name = "/tack-unit." + std::to_string(getpid());
  const std::string dir = parent + name;
  if (mkdir(dir.c_str(), 0700) != 0) GTEST_SKIP() << "no v2 cgroup can be made here";
  int dfd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  int procs = openat(dfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
  int not_cgroup = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(procs, 0);
  for (bool ns : {false, true}) {
    if (ns && !os::pid_namespace_available()) continue;
    for (bool created : {true, false}) {
      Pipe out, witness;
      int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
      const char* argv[] = {"sh", "-c", "cat /proc/self/cgroup", nullptr};
      const char* envp[] = {"PATH=/usr/bin:/bin", nullptr};
      os::Spawn s = shell(argv, envp, null, out.w, out.w, not_cgroup);
      s.pid_namespace = ns;
      s.cgroup_dir = created ? dfd : not_cgroup;
      s.cgroup_procs = created ? witness.w : procs;
      os::Spawned child;
      ASSERT_FALSE(os::spawn(s, child));
      std::string text = out.drain();
      if (child.status_fd >= 0) {
        int st = 0;
        EXPECT_EQ(read(child.status_fd, &st, sizeof st), static_cast<ssize_t>(sizeof st));
        close(child.status_fd);
      }
      waitpid(child.pid, nullptr, 0);
      if (child.pidfd >= 0) close(child.pidfd);
      // the v2 line, "0::PATH", names the cgroup made here
      const size_t v2 = text.rfind("0::");
      const size_t eol = text.find('\n', v2);
      EXPECT_TRUE(v2 != std::string::npos && eol != std::string::npos &&
                  text.substr(v2, eol - v2).ends_with(name))
          << "namespace " << ns << ", created " << created << ": " << text;
      EXPECT_EQ(witness.drain(), "") << "namespace " << ns;
      close(null);
    }
  }
  close(procs);
  close(dfd);
  close(not_cgroup);
  for (int i = 0; i < 200 && rmdir(dir.c_str()) != 0 && errno == EBUSY; ++i)
    std::this_thread::sleep_for(1ms);
}

TEST(OsProcess, SignalNames) {
  EXPECT_EQ(os::signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(os::signal_name(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(os::signal_name(SIGRTMIN + 1).rfind("SIG", 0), 0u);
}

}  // namespace
