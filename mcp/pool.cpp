// pool.cpp — see pool.h.
#include "mcp/pool.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <shared_mutex>
#include <vector>

#include "runner/waiting.h"

namespace mcp {

namespace {

// Every group started and not yet reaped. A start holds g_starting shared (starts run side by
// side, and a call reaping its own process never waits for one), kill_all_children holds it
// exclusive: it never misses a group being born.
std::shared_mutex g_starting;
std::mutex g_mu;
std::set<pid_t> g_groups;

bool binary_id(const std::string& path, BinaryId& id) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  id = {st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec * 1000000000L + st.st_mtim.tv_nsec,
        st.st_ctim.tv_sec * 1000000000L + st.st_ctim.tv_nsec};
  return true;
}

// Not yet ended (WNOWAIT: a dead one stays to be reaped, its group id not reused meanwhile).
bool alive(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == 0;
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

void kill_all_children() {
  std::unique_lock<std::shared_mutex> starts(g_starting);
  std::lock_guard<std::mutex> lock(g_mu);
  for (pid_t g : g_groups) kill(-g, SIGKILL);
}

Waiting start_waiting(const std::string& path, std::string& error) {
  Waiting w;
  if (!binary_id(path, w.binary)) {
    error = std::strerror(errno);
    return w;
  }
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    return w;
  }
  if (pipe2(out, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    close(in[0]), close(in[1]);
    return w;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return w;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  // Its own group (killed as one), no signal blocked (the server blocks some for its own
  // thread), SIGPIPE back to its default (the server ignores it, and an ignored signal stays
  // ignored across exec).
  posix_spawnattr_setflags(&at,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&at, 0);
  sigset_t none, pipe_default;
  sigemptyset(&none);
  sigemptyset(&pipe_default);
  sigaddset(&pipe_default, SIGPIPE);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &pipe_default);
  char* args[] = {const_cast<char*>(path.c_str()), const_cast<char*>(contract::waiting::kFlag),
                  nullptr};
  char* envp[] = {nullptr};
  int rc;
  {
    // The group exists when posix_spawn returns (the child has executed by then), and is
    // registered before kill_all_children can run.
    std::shared_lock<std::shared_mutex> starting(g_starting);
    rc = posix_spawn(&w.pid, path.c_str(), &fa, &at, args, envp);
    if (rc == 0) {
      std::lock_guard<std::mutex> lock(g_mu);
      g_groups.insert(w.pid);
    }
  }
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(in[0]), close(out[1]), close(err[1]);
  if (rc != 0) {
    error = std::strerror(rc);
    close(in[1]), close(out[0]), close(err[0]);
    w.pid = -1;
    return w;
  }
  w.in = in[1], w.out = out[0], w.err = err[0];
  return w;
}

int discard(Waiting& w) {
  close_fd(w.in), close_fd(w.out), close_fd(w.err);
  if (w.pid <= 0) return 0;
  kill(-w.pid, SIGKILL);
  int status = 0;
  while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_groups.erase(w.pid);
  }
  w.pid = -1;
  return status;
}

Waiting Pool::take(const std::string& path, std::string& error) {
  BinaryId now;
  bool known = binary_id(path, now);
  Waiting got;
  std::vector<Waiting> stale;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return start_waiting(path, error);
    wanted_[path] = idle_per_tool_;
    auto& q = idle_[path];
    while (!q.empty() && got.pid < 0) {
      Waiting w = q.front();
      q.pop_front();
      if (known && w.binary == now && alive(w.pid))
        got = w;
      else
        stale.push_back(w);
    }
    if (!thread_.joinable()) thread_ = std::thread([this] { refill(); });
  }
  for (auto& w : stale) discard(w);
  return got.pid > 0 ? got : start_waiting(path, error);
}

void Pool::refill_now() {
  cv_.notify_one();
}

// The pool's own thread keeps each called tool at its number of waiting processes. It lives
// as long as the pool: a parent-death signal follows the thread that started the process.
void Pool::refill() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (stopping_) return;
    std::string path;
    for (auto& [p, n] : wanted_)
      if (idle_[p].size() < n) {
        path = p;
        break;
      }
    if (path.empty()) {
      cv_.wait(lock);
      continue;
    }
    lock.unlock();
    std::string error;
    Waiting w = start_waiting(path, error);
    lock.lock();
    if (w.pid < 0) {
      wanted_[path] = 0;  // cannot start now: the next call tries again, and says why
      continue;
    }
    if (stopping_) {
      lock.unlock();
      discard(w);
      return;
    }
    idle_[path].push_back(w);
  }
}

void Pool::stop() {
  std::vector<Waiting> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& [p, q] : idle_)
      for (auto& w : q) all.push_back(w);
    idle_.clear();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (auto& w : all) discard(w);
}

}  // namespace mcp
