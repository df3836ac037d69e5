// process.cpp — see process.h.
#include "os/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>
#include <unordered_map>

namespace os {

namespace {

std::string slurp(const char* path) {
  std::string out;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

bool write_text(int dirfd, const char* name, const std::string& text) {
  int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

// Living processes (not zombies) by parent, from /proc/N/stat.
std::unordered_multimap<pid_t, pid_t> children_by_parent() {
  std::unordered_multimap<pid_t, pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::string st = slurp(("/proc/" + std::string(e->d_name) + "/stat").c_str());
    size_t close_paren = st.rfind(')');  // the command name may hold spaces and parentheses
    if (close_paren == std::string::npos || close_paren + 4 >= st.size()) continue;
    char state = st[close_paren + 2];
    if (state == 'Z' || state == 'X') continue;
    pid_t ppid = static_cast<pid_t>(std::strtol(st.c_str() + close_paren + 4, nullptr, 10));
    out.emplace(ppid, static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10)));
  }
  closedir(d);
  return out;
}

}  // namespace

size_t processes_of(uid_t uid) {
  size_t n = 0;
  DIR* d = opendir("/proc");
  if (!d) return 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    struct stat st {};
    if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && st.st_uid == uid) ++n;
  }
  closedir(d);
  return n;
}

std::vector<pid_t> descendants(pid_t ancestor) {
  auto by_parent = children_by_parent();
  std::vector<pid_t> out;
  std::vector<pid_t> todo = {ancestor};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    auto [b, e] = by_parent.equal_range(p);
    for (auto it = b; it != e; ++it) {
      out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

namespace {

// True while this process has any child, living or not reaped. A subreaper with no child has
// no descendant at all: every orphan beneath it would have been handed to it.
bool have_children() {
  siginfo_t info{};
  return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0;
}

}  // namespace

size_t end_descendants(std::chrono::milliseconds grace, pid_t watched, int* watched_status,
                       pid_t ns_init, int ns_init_pidfd) {
  using Clock = std::chrono::steady_clock;
  std::set<pid_t> signalled;
  const pid_t self = getpid();
  bool watched_done = watched <= 0;
  auto reap_all = [&] {
    int status = 0;
    for (pid_t p; (p = waitpid(-1, &status, WNOHANG | __WALL)) > 0;) {
      if (p != watched) continue;
      watched_done = true;
      if (watched_status) *watched_status = status;
    }
  };
  // A pause between rounds; one that a namespace's init ending cuts short.
  auto pause_for = [&](std::chrono::milliseconds ms) {
    if (ns_init_pidfd >= 0) {
      pollfd p{ns_init_pidfd, POLLIN, 0};
      poll(&p, 1, static_cast<int>(ms.count()));
    } else {
      std::this_thread::sleep_for(ms);
    }
  };
  // Signals every descendant but the namespace's init; how many it found living.
  auto signal_all = [&](int sig) {
    std::vector<pid_t> living = descendants(self);
    // The watched child is signalled by its pid whatever the scan saw.
    if (!watched_done && std::find(living.begin(), living.end(), watched) == living.end())
      living.push_back(watched);
    size_t n = 0;
    for (pid_t p : living) {
      if (p == ns_init) continue;
      ++n;
      bool fresh = signalled.insert(p).second;
      if (sig == SIGKILL || fresh) {
        kill(p, sig);
        if (sig == SIGTERM) kill(p, SIGCONT);  // a stopped process gets to act on the TERM
      }
    }
    return n;
  };
  reap_all();
  if (!have_children()) return 0;
  // SIGTERM first, to whatever appears during the grace too.
  const auto deadline = Clock::now() + grace;
  while (Clock::now() < deadline) {
    signal_all(SIGTERM);
    pause_for(std::chrono::milliseconds(2));
    reap_all();
    if (!have_children()) return signalled.size();
  }
  // SIGKILL until no child is left: a process forked between a scan and its kill is handed
  // here (or to the namespace's init) when its parent dies, so a later round finds it. An init
  // that outstays everything else in its namespace by a second is killed as well.
  auto alone_since = Clock::now();
  while (have_children()) {
    if (signal_all(SIGKILL) > 0) alone_since = Clock::now();
    else if (ns_init > 0 && Clock::now() - alone_since > std::chrono::seconds(1))
      ns_init_pidfd >= 0 ? syscall(SYS_pidfd_send_signal, ns_init_pidfd, SIGKILL, nullptr, 0)
                         : kill(ns_init, SIGKILL);
    reap_all();
    if (have_children()) pause_for(std::chrono::milliseconds(1));
    reap_all();
  }
  return signalled.size();
}

// --- cgroups ------------------------------------------------------------------------------

std::vector<std::string> Cgroup::parents() {
  std::vector<std::string> out;
  std::string self = slurp("/proc/self/cgroup");
  const bool v2_at_top = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
  size_t pos = 0;
  while (pos < self.size()) {
    size_t nl = self.find('\n', pos);
    std::string line = self.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? self.size() : nl + 1;
    size_t c1 = line.find(':'), c2 = c1 == std::string::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string::npos) continue;
    std::string controllers = line.substr(c1 + 1, c2 - c1 - 1), path = line.substr(c2 + 1);
    if (path == "/") path.clear();
    std::string dir;
    if (line.compare(0, c1, "0") == 0 && controllers.empty())
      dir = (v2_at_top ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified") + path;
    else if (("," + controllers + ",").find(",pids,") != std::string::npos)
      dir = "/sys/fs/cgroup/pids" + path;
    if (!dir.empty() && access(dir.c_str(), W_OK) == 0) out.push_back(dir);
  }
  return out;
}

namespace {

bool process_exists(pid_t pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

// tack-run.PID cgroups beneath `parent` whose supervisor is gone (killed by SIGKILL, which it
// cannot answer): what is left in them is killed and the cgroup removed. A PID that exists
// again may be the supervisor or a stranger: that cgroup is left alone.
size_t sweep_stale(const std::string& parent, std::vector<pid_t>& owners) {
  size_t killed = 0;
  DIR* d = opendir(parent.c_str());
  if (!d) return 0;
  while (dirent* e = readdir(d)) {
    std::string_view n = e->d_name;
    if (!n.starts_with("tack-run.")) continue;
    pid_t owner = static_cast<pid_t>(std::strtol(e->d_name + 9, nullptr, 10));
    if (owner <= 0 || process_exists(owner)) continue;
    std::string dir = parent + "/" + e->d_name;
    owners.push_back(owner);
    for (int round = 0; round < 100; ++round) {
      std::string procs = slurp((dir + "/cgroup.procs").c_str());
      if (procs.empty()) break;
      for (size_t pos = 0; pos < procs.size();) {
        size_t nl = procs.find('\n', pos);
        pid_t p = static_cast<pid_t>(std::strtol(procs.c_str() + pos, nullptr, 10));
        if (p > 0 && kill(p, SIGKILL) == 0 && round == 0) ++killed;
        pos = nl == std::string::npos ? procs.size() : nl + 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    rmdir(dir.c_str());
  }
  closedir(d);
  return killed;
}

}  // namespace

void Cgroup::make(uint64_t pids_max) {
  const std::string name = "/tack-run." + std::to_string(getpid());
  for (const std::string& parent : parents()) {
    stale_killed_ += sweep_stale(parent, stale_owners_);
    std::string dir = parent + name;
    // A v2 cgroup is made only where it can hold pids.max: the sweep already ends the tree,
    // and moving a process into a cgroup costs a grace period of RCU (up to ~15 ms here).
    bool v2_parent = access((parent + "/cgroup.subtree_control").c_str(), F_OK) == 0;
    if (v2_parent) {
      std::string controllers = slurp((parent + "/cgroup.subtree_control").c_str());
      if ((" " + controllers).find(" pids") == std::string::npos) continue;
    }
    if (mkdir(dir.c_str(), 0700) != 0) continue;
    int dfd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    bool v2 = faccessat(dfd, "cgroup.kill", F_OK, 0) == 0;
    bool limited = write_text(dfd, "pids.max", std::to_string(pids_max));
    // Moving a process between cgroups (writing its pid to cgroup.procs) takes the kernel's
    // threadgroup lock for writing, which waits for an RCU grace period: 10-20 ms on a start
    // that follows no other. v2: the child is created inside instead (clone3 with
    // CLONE_INTO_CGROUP; cgroup.procs kept for kernels without it). v1: the child writes
    // "tasks", which moves the writing thread alone, without that lock; it is single-threaded,
    // so that is the whole process.
    int procs = openat(dfd, v2 ? "cgroup.procs" : "tasks", O_WRONLY | O_CLOEXEC);
    if (procs < 0) {
      close(dfd);
      rmdir(dir.c_str());
      continue;
    }
    if (v2) {
      v2_dir_ = dfd;
      v2_procs_ = procs;
    } else {
      close(dfd);
      join_.push_back(procs);
    }
    if (limited) pids_max_ = pids_max;
    (v2 ? v2_ : v1_pids_) = dir;
  }
}

bool Cgroup::kill() const {
  if (v2_.empty()) return false;
  int dfd = open(v2_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  bool ok = dfd >= 0 && write_text(dfd, "cgroup.kill", "1");
  if (dfd >= 0) close(dfd);
  return ok;
}

Cgroup::~Cgroup() {
  for (int fd : join_) close(fd);
  for (int fd : {v2_dir_, v2_procs_})
    if (fd >= 0) close(fd);
  // A cgroup empties when its last task is reaped; the removal waits a moment for that.
  for (const std::string* dir : {&v2_, &v1_pids_}) {
    if (dir->empty()) continue;
    for (int i = 0; i < 200 && rmdir(dir->c_str()) != 0 && errno == EBUSY; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// --- spawning -----------------------------------------------------------------------------

namespace {

constexpr const char* kStages[] = {"fork",     "cgroup", "channels", "directory",
                                   "landlock", "exec",   "seccomp"};

struct ChildReport {
  int stage;
  int err;
};

[[noreturn]] void child_fail(int pipe_fd, int stage) {
  ChildReport r{stage, errno};
  ssize_t ignored = write(pipe_fd, &r, sizeof r);
  (void)ignored;
  _exit(127);
}

// Joins the cgroups a child was not created in (see Spawn::join and Spawn::cgroup_procs).
bool join_cgroups(const Spawn& s, bool created_inside) {
  for (int fd : s.join)
    if (write(fd, "0", 1) != 1) return false;
  return created_inside || s.cgroup_procs < 0 || write(s.cgroup_procs, "0", 1) == 1;
}

// The program's side of the fork, up to its exec. `parent`: the pid its parent has as the
// program sees it (1 beneath a namespace's init); `join`: whether it joins the cgroups itself;
// `inside`: whether it was created in the v2 one.
[[noreturn]] void child(const Spawn& s, pid_t parent, int report, bool join, bool inside) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  setsid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the supervisor is already gone
  if (join && !join_cgroups(s, inside)) child_fail(report, 1);
  // Out of the way of 0-2 first, so no dup2 below overwrites a descriptor still in use (with
  // the supervisor's own 0 closed, any of them may have been given number 0).
  report = fcntl(report, F_DUPFD_CLOEXEC, 10);
  int cwd = fcntl(s.cwd, F_DUPFD_CLOEXEC, 10);
  int ruleset = s.ruleset >= 0 ? fcntl(s.ruleset, F_DUPFD_CLOEXEC, 10) : -1;
  int in = fcntl(s.in, F_DUPFD_CLOEXEC, 10), out = fcntl(s.out, F_DUPFD_CLOEXEC, 10),
      err = fcntl(s.err, F_DUPFD_CLOEXEC, 10);
  if (report < 0) _exit(127);
  if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
    child_fail(report, 2);
  syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
  if (fchdir(cwd) != 0) child_fail(report, 3);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (s.nproc > 0) {
    rlimit nproc{s.nproc, s.nproc};
    setrlimit(RLIMIT_NPROC, &nproc);
  }
  if (s.ruleset >= 0) {
    if (ruleset < 0) child_fail(report, 4);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(__NR_landlock_restrict_self, ruleset, 0) != 0)
      child_fail(report, 4);
  }
  if (s.drop_capabilities) {
    for (int cap = 0; cap < 64; ++cap)
      if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    syscall(SYS_capset, &hdr, data);
  }
  if (!s.filter.empty()) {
    sock_fprog prog{static_cast<unsigned short>(s.filter.size() / sizeof(sock_filter)),
                    reinterpret_cast<sock_filter*>(const_cast<unsigned char*>(s.filter.data()))};
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) child_fail(report, 6);
  }
  execve(s.path, s.argv, s.envp);
  child_fail(report, 5);
}

// The first process of the program's PID namespace. It dies with the supervisor's thread (and
// the kernel then kills everything in the namespace), joins the cgroup, starts the program as
// its child, passes the program's wait status on, and reaps what the namespace orphans until
// nothing is left. As the namespace's init it gets no signal from outside but SIGKILL and
// SIGSTOP (it sets no handler), and none at all from inside.
[[noreturn]] void ns_init(const Spawn& s, int report, int status, bool inside) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  setsid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The supervisor's pid is not seen from here (getppid() is 0): that it is gone shows as the
  // report pipe's reading end closed.
  pollfd alive{report, POLLOUT, 0};
  if (poll(&alive, 1, 0) == 1 && (alive.revents & (POLLERR | POLLHUP))) _exit(127);
  prctl(PR_SET_DUMPABLE, 0);  // the program (the same user) cannot reach into it
  if (!join_cgroups(s, inside)) child_fail(report, 1);
  pid_t program = fork();
  if (program < 0) child_fail(report, 0);
  if (program == 0) child(s, 1, report, false, inside);
  // Only the status pipe stays open here: the program's streams close when it and what it
  // started are done, and the report pipe when the program execs.
  if (status > 0) syscall(SYS_close_range, 0u, static_cast<unsigned>(status - 1), 0u);
  syscall(SYS_close_range, static_cast<unsigned>(status + 1), ~0u, 0u);
  for (;;) {
    int st = 0;
    pid_t p = waitpid(-1, &st, __WALL);
    if (p < 0 && errno == EINTR) continue;
    if (p < 0) _exit(0);  // nothing is left in the namespace
    if (p == program && status >= 0) {
      ssize_t ignored = write(status, &st, sizeof st);
      (void)ignored;
      close(status);
      status = -1;
    }
  }
}

bool have_cap_sys_admin() {
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &hdr, data) != 0) return false;
  return data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32));
}

// A new PID namespace (and a new user namespace without CAP_SYS_ADMIN, whose creator has
// every capability in it).
unsigned long pid_namespace_flags() {
  return have_cap_sys_admin() ? CLONE_NEWPID : CLONE_NEWPID | CLONE_NEWUSER;
}

// clone(2) as fork(2), into a new PID namespace. -1 where the kernel refuses.
pid_t fork_into_pid_namespace() {
  return static_cast<pid_t>(
      syscall(SYS_clone, pid_namespace_flags() | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
}

// clone3(2) as fork(2) (with `flags`: a namespace's), the child created in the v2 cgroup whose
// directory is `dir`: nothing is moved, so nothing waits for the kernel's grace period. -1
// where the kernel cannot (no clone3 or CLONE_INTO_CGROUP before 5.7) or refuses the cgroup.
pid_t fork_into_cgroup(unsigned long flags, int dir) {
  clone_args args{};
  args.flags = flags | CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<uint64_t>(dir);
  return static_cast<pid_t>(syscall(SYS_clone3, &args, sizeof args));
}

}  // namespace

bool pid_namespace_available() {
  pid_t pid = fork_into_pid_namespace();
  if (pid == 0) _exit(getpid() == 1 ? 0 : 1);
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid) return false;
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

std::optional<SpawnError> spawn(const Spawn& s, Spawned& out) {
  int report[2], status[2] = {-1, -1};
  if (pipe2(report, O_CLOEXEC) != 0) return SpawnError{"channels", errno};
  if (s.pid_namespace && pipe2(status, O_CLOEXEC) != 0) {
    int e = errno;
    close(report[0]);
    close(report[1]);
    return SpawnError{"channels", e};
  }
  const pid_t parent = getpid();
  pid_t pid = -1;
  bool inside = false;  // created in the v2 cgroup
  if (s.pid_namespace) {
    if (s.cgroup_dir >= 0) inside = (pid = fork_into_cgroup(pid_namespace_flags(), s.cgroup_dir)) >= 0;
    if (pid < 0) pid = fork_into_pid_namespace();
    if (pid == 0) ns_init(s, report[1], status[1], inside);
    if (pid < 0) {  // no namespace here: the program is a child of this process, as without
      close(status[0]);
      close(status[1]);
      status[0] = status[1] = -1;
    }
  }
  if (pid < 0 && s.cgroup_dir >= 0) inside = (pid = fork_into_cgroup(0, s.cgroup_dir)) >= 0;
  if (pid < 0) pid = fork();
  if (pid < 0) {
    int e = errno;
    for (int fd : {report[0], report[1], status[0], status[1]})
      if (fd >= 0) close(fd);
    return SpawnError{"fork", e};
  }
  if (pid == 0) child(s, parent, report[1], true, inside);
  close(report[1]);
  if (status[1] >= 0) close(status[1]);
  ChildReport r{};
  ssize_t n;
  do {
    n = read(report[0], &r, sizeof r);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n == static_cast<ssize_t>(sizeof r)) {
    waitpid(pid, nullptr, 0);
    if (status[0] >= 0) close(status[0]);
    int stage = r.stage >= 0 && r.stage < 7 ? r.stage : 0;
    return SpawnError{kStages[stage], r.err};
  }
  out.pid = pid;
  out.pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  out.status_fd = status[0];
  return std::nullopt;
}

// --- the private directory ----------------------------------------------------------------

std::optional<std::string> make_private_dir(const char* base) {
  std::string tmpl = std::string(base) + "/tack-run." + std::to_string(getpid()) + ".XXXXXX";
  if (!mkdtemp(tmpl.data())) return std::nullopt;
  return tmpl;
}

void remove_private_dirs_of(const char* base, pid_t owner) {
  const std::string prefix = "tack-run." + std::to_string(owner) + ".";
  std::vector<std::string> found;
  if (DIR* d = opendir(base)) {
    while (dirent* e = readdir(d))
      if (std::string_view(e->d_name).starts_with(prefix)) found.emplace_back(e->d_name);
    closedir(d);
  }
  for (const std::string& n : found) remove_tree(std::string(base) + "/" + n);
}

bool remove_tree(const std::string& path) {
  // Depth first with one descriptor open at a time (a deep tree cannot exhaust them): go down
  // into the first subdirectory, come back up through ".." once a directory is empty.
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  std::vector<std::string> down;
  bool ok = true;
  for (int steps = 0; steps < 10'000'000; ++steps) {
    int scan = dup(fd);
    DIR* d = scan >= 0 ? fdopendir(scan) : nullptr;
    if (!d) {
      if (scan >= 0) close(scan);
      ok = false;
      break;
    }
    std::string subdir;
    while (dirent* e = readdir(d)) {
      std::string_view n = e->d_name;
      if (n == "." || n == "..") continue;
      if (unlinkat(fd, e->d_name, 0) == 0) continue;
      if (errno == EISDIR || errno == EPERM) {  // EPERM: unlink on a directory, per POSIX
        if (unlinkat(fd, e->d_name, AT_REMOVEDIR) == 0) continue;
        subdir = e->d_name;
        break;
      }
      ok = false;
    }
    closedir(d);
    if (!subdir.empty()) {
      fchmodat(fd, subdir.c_str(), 0700, 0);  // a directory its program made unreadable
      int next = openat(fd, subdir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0) {
        ok = false;
        break;
      }
      close(fd);
      fd = next;
      down.push_back(subdir);
      continue;
    }
    if (down.empty()) break;
    int up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(fd);
    if (up < 0) return false;
    fd = up;
    if (unlinkat(fd, down.back().c_str(), AT_REMOVEDIR) != 0) {
      ok = false;
      break;
    }
    down.pop_back();
  }
  close(fd);
  return rmdir(path.c_str()) == 0 && ok;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "SIG" + std::to_string(sig);
}

}  // namespace os
