// child.cpp — fork, exec and supervise one tool (see child.h).
#include "mcp/child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>

namespace mcp {

namespace {

std::mutex g_mu;
std::set<pid_t> g_groups;

uint64_t now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

void kill_all_children() {
  std::lock_guard<std::mutex> lock(g_mu);
  for (pid_t g : g_groups) kill(-g, SIGKILL);
}

ChildResult run_child(const std::vector<std::string>& argv, const std::string& stdin_data,
                      uint64_t timeout_ms, size_t max_output, const std::atomic<bool>* cancel) {
  ChildResult r;
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) {
    r.spawn_error = std::strerror(errno);
    return r;
  }
  if (pipe2(out, O_CLOEXEC) != 0) {
    r.spawn_error = std::strerror(errno);
    close(in[0]), close(in[1]);
    return r;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    r.spawn_error = std::strerror(errno);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return r;
  }
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  char* envp[] = {nullptr};

  pid_t pid;
  {
    // Registered under the lock, so kill_all_children never misses a group being born.
    std::lock_guard<std::mutex> lock(g_mu);
    pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);  // the server blocks these for its own thread
      signal(SIGPIPE, SIG_DFL);
      dup2(in[0], 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      syscall(SYS_close_range, 3, ~0u, 0);
      execve(args[0], args.data(), envp);
      _exit(127);
    }
    if (pid > 0) {
      setpgid(pid, pid);  // also here: whichever runs first, the group exists before a kill
      g_groups.insert(pid);
    }
  }
  close(in[0]), close(out[1]), close(err[1]);
  if (pid < 0) {
    r.spawn_error = std::strerror(errno);
    close(in[1]), close(out[0]), close(err[0]);
    return r;
  }
  int fin = in[1], fout = out[0], ferr = err[0];
  fcntl(fin, F_SETFL, O_NONBLOCK);
  if (stdin_data.empty()) close_fd(fin);
  size_t written = 0;
  const uint64_t deadline = now_ms() + timeout_ms;
  bool killed = false;
  auto kill_group = [&] {
    if (!killed) kill(-pid, SIGKILL);
    killed = true;
  };
  char buf[65536];
  while (fout >= 0 || ferr >= 0) {
    if (cancel && cancel->load()) {
      r.cancelled = true;
      kill_group();
    }
    uint64_t t = now_ms();
    if (t >= deadline) {
      r.timed_out = true;
      kill_group();
    }
    if (killed) break;
    pollfd fds[3];
    int n = 0;
    int i_out = -1, i_err = -1, i_in = -1;
    if (fout >= 0) fds[i_out = n++] = {fout, POLLIN, 0};
    if (ferr >= 0) fds[i_err = n++] = {ferr, POLLIN, 0};
    if (fin >= 0) fds[i_in = n++] = {fin, POLLOUT, 0};
    int wait = static_cast<int>(std::min<uint64_t>(deadline - t, 50));
    int k = poll(fds, static_cast<nfds_t>(n), wait);
    if (k < 0 && errno != EINTR) break;
    if (k <= 0) continue;
    if (i_in >= 0 && (fds[i_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(fin, stdin_data.data() + written, stdin_data.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      if (w < 0 && errno != EAGAIN && errno != EINTR) close_fd(fin);  // the tool stopped reading
      if (written == stdin_data.size()) close_fd(fin);
    }
    if (i_out >= 0 && (fds[i_out].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t got = read(fout, buf, sizeof buf);
      if (got > 0) {
        if (r.out.size() + static_cast<size_t>(got) > max_output) {
          r.capped = true;
          kill_group();
        } else {
          r.out.append(buf, static_cast<size_t>(got));
        }
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close_fd(fout);
      }
    }
    if (i_err >= 0 && (fds[i_err].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t got = read(ferr, buf, sizeof buf);
      if (got > 0) {
        if (r.err.size() < 65536) r.err.append(buf, std::min<size_t>(static_cast<size_t>(got), 65536 - r.err.size()));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close_fd(ferr);
      }
    }
  }
  close_fd(fin), close_fd(fout), close_fd(ferr);
  // The tool closed its output: it is ending. Give it until the deadline, then kill it.
  // Its end is awaited on a pidfd (readable when it exits), with the deadline and the cancel
  // flag still watched; without pidfd_open, by polling.
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  for (;;) {
    // Seen ended but not yet reaped: its group id cannot be reused while we kill the group.
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid)
      break;
    if ((cancel && cancel->load()) || now_ms() >= deadline) {
      if (cancel && cancel->load())
        r.cancelled = true;
      else
        r.timed_out = true;
      kill_group();
    }
    if (pidfd >= 0) {
      pollfd p = {pidfd, POLLIN, 0};
      poll(&p, 1, 50);
    } else {
      usleep(1000);
    }
  }
  if (pidfd >= 0) close(pidfd);
  kill(-pid, SIGKILL);  // nothing of the group outlives the call
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_groups.erase(pid);
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace mcp
