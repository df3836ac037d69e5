// start.cpp — see start.h.
#include "start.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "os/open.h"
#include "os/policy.h"
#include "os/programs.h"

namespace run_tool {

using contract::Json;

bool start_and_watch(const Launch& l, contract::Context& ctx, Watched& w) {
  const std::string& name = l.name;
  auto fail = [&](const char* stage, int err) {
    ctx.error(os::spawn_error(name, stage, err));
    return false;
  };

  // The root (where the program may write), its working directory, the private TMPDIR.
  int root = ctx.root_fd() >= 0 ? fcntl(ctx.root_fd(), F_DUPFD_CLOEXEC, 3)
                                : open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) return fail("directory", errno);
  std::string pwd = ctx.root_abs();
  if (pwd.empty()) {
    char here[4096];
    pwd = getcwd(here, sizeof here) ? here : "/";
  }
  int cwd = root;
  if (l.cwd) {
    auto opened = os::open_read(ctx.root_fd(), *l.cwd, os::Want::Directory, *l.cwd);
    if (auto* e = std::get_if<contract::Error>(&opened)) {
      close(root);
      ctx.error(std::move(*e));
      return false;
    }
    cwd = fcntl(std::get<os::Opened>(opened).fd.get(), F_DUPFD_CLOEXEC, 3);
    if (*l.cwd != ".")
      pwd = l.cwd->front() == '/' ? *l.cwd : (pwd == "/" ? "" : pwd) + "/" + *l.cwd;
  }
  auto tmp = os::make_private_dir("/tmp");
  if (!tmp) return fail("tmpdir", errno);
  int tmp_fd = open(tmp->c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);

  // The program's authority: its Landlock ruleset, its cgroup.
  // What the deployer's policy grants this program beyond that (never the caller's to say).
  const os::Policy policy = os::read_policy(l.programs_dir);
  const os::ProgramPolicy* granted = policy.find(name);
  const bool network = w.network = granted && granted->network;
  std::vector<int> writable = {tmp_fd};
  if (!l.read_only) writable.push_back(root);
  const size_t own = writable.size();
  Json& extra = w.writable;
  for (const std::string& dir : granted ? granted->write : std::vector<std::string>{}) {
    int fd = l.read_only ? -1 : open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;
    writable.push_back(fd);
    extra.push(Json::bytes(dir));
  }
  w.rules = os::program_ruleset(writable, network);
  const os::ProgramRuleset& rules = w.rules;
  for (size_t i = own; i < writable.size(); ++i) close(writable[i]);
  os::Cgroup& cgroup = w.cgroup;
  cgroup.make(l.pids_max);
  for (pid_t gone : cgroup.stale_owners()) os::remove_private_dirs_of("/tmp", gone);

  // Channels: the program's three streams, and the signals that end run itself.
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, in_pipe[2] = {-1, -1};
  int in = -1;
  bool channels = pipe2(out_pipe, O_CLOEXEC) == 0 && pipe2(err_pipe, O_CLOEXEC) == 0;
  if (channels && l.feed_stdin) {
    channels = pipe2(in_pipe, O_CLOEXEC) == 0;
    in = in_pipe[0];
  } else if (channels) {
    in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    channels = in >= 0;
  }
  sigset_t stopping;
  sigemptyset(&stopping);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stopping, s);
  sigprocmask(SIG_BLOCK, &stopping, nullptr);
  int sigfd = signalfd(-1, &stopping, SFD_CLOEXEC | SFD_NONBLOCK);
  if (!channels || sigfd < 0) {
    os::remove_tree(*tmp);
    return fail("channels", errno);
  }
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

  // The argv and the fixed environment.
  std::vector<std::string> env_s = {"PATH=/usr/local/bin:/usr/bin:/bin",
                                    "HOME=" + *tmp,
                                    "TMPDIR=" + *tmp,
                                    "LANG=C.UTF-8",
                                    "LC_ALL=C.UTF-8",
                                    "TZ=UTC",
                                    "PWD=" + pwd};
  std::vector<char*> argv = {const_cast<char*>(name.c_str())}, envp;
  for (auto& s : l.args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  for (auto& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);

  os::Spawn sp{.path = l.path.c_str(),
               .argv = argv.data(),
               .envp = envp.data(),
               .in = in,
               .out = out_pipe[1],
               .err = err_pipe[1],
               .cwd = cwd,
               .ruleset = rules.fd,
               .join = cgroup.join_fds(),
               .cgroup_dir = cgroup.v2_dir_fd(),
               .cgroup_procs = cgroup.v2_procs_fd(),
               .drop_capabilities = true,
               .nproc = 0,
               .filter = {},
               .pid_namespace = true};
  // Without a pids cgroup, a user other than root is held by RLIMIT_NPROC (which counts all
  // of the user's processes, and never binds root).
  if (!cgroup.pids_max() && getuid() != 0) sp.nproc = os::processes_of(getuid()) + l.pids_max;
  const bool sockets_filtered = w.sockets_filtered = os::seccomp_available() && !network;
  if (sockets_filtered) sp.filter = os::started_program_filter();
  os::Watch& sv = w.sv;
  auto spawn_err = os::spawn(sp, sv.child);
  for (int fd : {out_pipe[1], err_pipe[1], in, rules.fd, tmp_fd, cwd == root ? -1 : cwd, root})
    if (fd >= 0) close(fd);
  if (spawn_err) {
    for (int fd : {out_pipe[0], err_pipe[0], in_pipe[1], sigfd})
      if (fd >= 0) close(fd);
    os::remove_tree(*tmp);
    return fail(spawn_err->stage, spawn_err->err);
  }
  for (int fd : {out_pipe[0], err_pipe[0], in_pipe[1]}) {
    if (fd < 0) continue;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    // A larger pipe: a flood crosses in a sixteenth of the wake-ups (best effort: the
    // system's pipe-max-size may refuse it).
    fcntl(fd, F_SETPIPE_SZ, 1 << 20);
  }
  sv.out = {.fd = out_pipe[0], .to = 1, .kept = std::make_shared<os::Kept>(l.max_output)};
  sv.err = {.fd = err_pipe[0], .to = 2, .kept = std::make_shared<os::Kept>(l.max_output)};
  sv.child_in = in_pipe[1];
  sv.sigfd = sigfd;
  sv.cgroup = &cgroup;
  sv.timeout_ms = l.timeout_ms;
  sv.max_output = l.max_output;
  sv.max_stdin = l.max_stdin;
  sv.stdin_ceiling = l.stdin_ceiling;
  sv.feed_stdin = l.feed_stdin;
  sv.pass_through = ctx.format() == contract::Format::Text;
  sv.grace = l.grace;
  sv.cleanup = [&] {
    os::remove_tree(*tmp);
    cgroup.~Cgroup();  // the process exits at once after this
  };
  sv.loop();
  close(sigfd);
  os::remove_tree(*tmp);
  return true;
}

}  // namespace run_tool
