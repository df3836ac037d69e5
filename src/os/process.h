// process.h — starting one program confined, and ending everything it started.
//
// The supervisor (tools/run.cpp) is a child subreaper: whatever the program forks, however it
// detaches (setsid, double fork), lands beneath it when its parent dies, so one scan of /proc
// finds the whole tree. Where the machine lets one be made, the program also runs in a cgroup
// of its own (v2: cgroup.kill; v1 pids: pids.max, which keeps a fork bomb in check even for
// root, whom RLIMIT_NPROC does not bind).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace os {

// How many processes `uid` has now (RLIMIT_NPROC counts them all, not only one tree's).
size_t processes_of(uid_t uid);

// The processes beneath `ancestor` (children, theirs, ...), from one scan of /proc.
std::vector<pid_t> descendants(pid_t ancestor);

// Ends every process beneath this one: SIGTERM and SIGCONT to each (a stopped one sees the
// TERM), `grace` for them to go, then SIGKILL until none is left, reaping as it goes. The
// status of `watched` (when it is reaped here) goes to `*watched_status`. `ns_init` (with its
// pidfd, or -1), the first process of a PID namespace the program runs in, is never signalled
// nor counted: it reaps everything in its namespace and leaves once nothing else is left there
// (a second past the last one, it is killed too). Returns how many distinct processes were
// signalled.
size_t end_descendants(std::chrono::milliseconds grace, pid_t watched = -1,
                       int* watched_status = nullptr, pid_t ns_init = -1, int ns_init_pidfd = -1);

// A cgroup of its own for one program, made where the machine allows (best effort).
class Cgroup {
 public:
  Cgroup() = default;
  Cgroup(const Cgroup&) = delete;
  Cgroup& operator=(const Cgroup&) = delete;
  ~Cgroup();
  // Makes tack-run.PID beneath this process's own cgroup in each hierarchy found. First it
  // ends what a supervisor killed by SIGKILL left in its own (the owner PID gone).
  void make(uint64_t pids_max);
  size_t stale_killed() const { return stale_killed_; }
  std::span<const pid_t> stale_owners() const { return stale_owners_; }
  // Descriptors to write "0" into from the child, before it execs: v1's tasks files.
  std::span<const int> join_fds() const { return join_; }
  // The v2 cgroup: its directory, which the child is created in (clone3 CLONE_INTO_CGROUP),
  // and its cgroup.procs, written instead where the kernel cannot create into it. -1 if none.
  int v2_dir_fd() const { return v2_dir_; }
  int v2_procs_fd() const { return v2_procs_; }
  bool made() const { return !v2_.empty() || !v1_pids_.empty(); }
  bool killable() const { return !v2_.empty(); }  // cgroup.kill exists
  std::optional<uint64_t> pids_max() const { return pids_max_; }
  // Kills every process in the v2 cgroup at once (cgroup.kill); false where there is none.
  bool kill() const;
  // The directories beneath which cgroups are made, for the supervisor's own Landlock rules.
  static std::vector<std::string> parents();

 private:
  std::string v2_, v1_pids_;
  std::vector<int> join_;
  int v2_dir_ = -1, v2_procs_ = -1;
  std::optional<uint64_t> pids_max_;
  size_t stale_killed_ = 0;
  std::vector<pid_t> stale_owners_;
};

// What the child does between fork and exec, prepared before the fork (the child allocates
// nothing).
struct Spawn {
  const char* path = nullptr;  // absolute
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  int in = -1, out = -1, err = -1;  // become 0, 1, 2
  int cwd = -1;
  int ruleset = -1;           // a Landlock ruleset to restrict the child to, or -1
  std::span<const int> join;  // descriptors the child writes "0" into (Cgroup::join_fds)
  // A v2 cgroup the child is created in (Cgroup::v2_dir_fd), and its cgroup.procs, which the
  // child writes instead where the kernel cannot create into a cgroup (before Linux 5.7).
  int cgroup_dir = -1, cgroup_procs = -1;
  bool drop_capabilities = true;
  uint64_t nproc = 0;                     // RLIMIT_NPROC for the child (0: unchanged)
  std::span<const unsigned char> filter;  // a seccomp program (sock_filter bytes) to add
  // Start the program beneath a PID namespace of its own where the kernel allows one (see
  // Spawned::status_fd); where it does not, the program is this process's child as without.
  bool pid_namespace = false;
};

struct Spawned {
  pid_t pid = -1;  // this process's child: the program, or its PID namespace's first process
  int pidfd = -1;  // -1 when the kernel has no pidfd_open
  // -1 unless the program runs in a PID namespace of its own. Then `pid` is the namespace's
  // first process (its init): it joined the cgroup, started the program, and reaps whatever is
  // orphaned in the namespace; the program's wait status comes here (an int) when it ends, and
  // the init leaves once nothing else is left in the namespace. The init dies with this
  // process's thread (PR_SET_PDEATHSIG), and with it, by the kernel's hand, everything in the
  // namespace: even a SIGKILLed supervisor leaves nothing running.
  int status_fd = -1;
};

// Whether spawn() can start a program in a PID namespace here: as a process with
// CAP_SYS_ADMIN directly, otherwise inside a user namespace of its own (where the kernel lets
// an unprivileged one be made). Found by making one (a child that exits at once).
bool pid_namespace_available();

struct SpawnError {
  const char* stage;  // "fork", "exec", "landlock", ...
  int err;
};

// Forks and execs. The child gets its own session and process group, dies with the
// supervisor's thread (PR_SET_PDEATHSIG), default signal dispositions, no core files, only
// fds 0-2, and (when asked) no capabilities. Exec failures are reported through a pipe.
// With `pid_namespace` the program is the second process of a new PID namespace (Spawned).
std::optional<SpawnError> spawn(const Spawn& s, Spawned& out);

// A private directory beneath `base` (mode 0700, named for this process), and its removal with
// everything in it, following no link.
std::optional<std::string> make_private_dir(const char* base);
bool remove_tree(const std::string& path);
// The private directories a supervisor now gone (`owner`) could not remove.
void remove_private_dirs_of(const char* base, pid_t owner);

// "SIGKILL" for 9, "SIG34" for a number without a name.
std::string signal_name(int sig);

}  // namespace os
