// supervise.cpp — see supervise.h.
#include "os/supervise.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>

namespace os {

namespace {
constexpr int kWidePipe = 1 << 20;
}  // namespace

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// The program's wait status from its namespace's init; a SIGKILL where the init died without
// passing it on (killed itself, the namespace with it).
int Watch::namespaced_status() {
  int st = 0;
  ssize_t n;
  do {
    n = read(child.status_fd, &st, sizeof st);
  } while (n < 0 && errno == EINTR);
  close(child.status_fd);
  child.status_fd = -1;
  return n == static_cast<ssize_t>(sizeof st) ? st : SIGKILL;
}

size_t Watch::end_tree() {
  // The program is done and its namespace's init, which leaves by itself once nothing else is
  // left in the namespace, is usually on its way out: a moment for that (cut short by its
  // pidfd) spares the sweep its scan of /proc, a read of every process's stat (at the end of
  // nine runs in ten before). Whatever the program left running is found 2 ms later.
  if (child_done && ns_init > 0 && child.pidfd >= 0) {
    pollfd init{child.pidfd, POLLIN, 0};
    poll(&init, 1, 2);
  }
  return child.status_fd >= 0 || ns_init > 0
             ? end_descendants(grace, -1, nullptr, child.pid, child.pidfd)
             : end_descendants(grace);
}

void Watch::end_all() {
  if (!child_done && child.status_fd >= 0) {
    ns_init = child.pid;
    killed += end_tree();  // the init is gone after: its report is in the pipe, or never
    status = namespaced_status();
    child_done = true;
  } else if (!child_done) {
    killed += end_descendants(grace, child.pid, &status);
    child_done = true;
  } else {
    killed += end_tree();
  }
  if (cgroup) cgroup->kill();  // anything the sweep could not see (none expected)
  if (child_in >= 0) close(child_in), child_in = -1;
  pending.clear();
}

void Watch::stop(Stop w) {
  if (stop_reason == Stop::None) stop_reason = w;
  end_all();
}

[[noreturn]] void Watch::abandon(int sig) {
  end_all();
  if (cleanup) cleanup();
  if (sig == 0) {
    std::string line =
        std::string(tool) + ": io.write-failed: standard output: the reader is gone\n";
    write_all(2, line.data(), line.size());
    _exit(1);
  }
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);
}

void Watch::take(Channel& s, char* buf, size_t n, const char* name) {
  uint64_t keep = std::min<uint64_t>(n, max_output - std::min(s.total, max_output));
  s.total += n;
  if (pass_through) {
    if (keep && !write_all(s.to, buf, keep)) abandon(0);
  } else if (!s.cut && !s.kept->add(buf, keep)) {
    // No memory for what the cap allows: the text stops here and says it was cut, and the
    // program is ended as at the cap (never a silent gap).
    s.cut = true;
    if (stop_reason == Stop::None) killed_stream = name;
    stop(Stop::Output);
  }
  if (s.total > max_output && !s.cut) {
    s.cut = true;
    if (stop_reason == Stop::None) killed_stream = name;
    stop(Stop::Output);
  }
}

void Watch::loop() {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  static char buf[1 << 20];
  bool stdin_open = feed_stdin;
  bool watch_caller = true;
  for (;;) {
    // Past --max-stdin the rest is still counted (to its end or the ceiling), so the refusal
    // can name the cap a retry needs.
    bool counting = stop_reason == Stop::Stdin && stdin_open;
    if (child_done && out.fd < 0 && err.fd < 0 && !counting) break;
    pollfd p[7];
    int n = 0, i_out = -1, i_err = -1, i_pid = -1, i_sig, i_caller = -1, i_in = -1, i_feed = -1;
    // A stream passed through to a full destination waits for room there, not for its own
    // bytes (which are there already: polling for them would spin).
    if (out.fd >= 0)
      p[i_out = n++] = out.full ? pollfd{out.to, POLLOUT, 0} : pollfd{out.fd, POLLIN, 0};
    if (err.fd >= 0)
      p[i_err = n++] = err.full ? pollfd{err.to, POLLOUT, 0} : pollfd{err.fd, POLLIN, 0};
    if (!child_done && child.status_fd >= 0)
      p[i_pid = n++] = {child.status_fd, POLLIN, 0};
    else if (!child_done && child.pidfd >= 0)
      p[i_pid = n++] = {child.pidfd, POLLIN, 0};
    p[i_sig = n++] = {sigfd, POLLIN, 0};
    if (watch_caller) p[i_caller = n++] = {1, 0, 0};  // errors only: the caller closed its end
    bool want_stdin =
        stdin_open && pending.empty() && (child_in >= 0 || stop_reason == Stop::Stdin);
    if (want_stdin) p[i_in = n++] = {0, POLLIN, 0};
    if (!pending.empty() && child_in >= 0) p[i_feed = n++] = {child_in, POLLOUT, 0};
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    int wait_ms = -1;
    if (!child_done) {
      if (left <= 0) {
        stop(Stop::Timeout);
        continue;
      }
      bool woken = child.pidfd >= 0 || child.status_fd >= 0;
      wait_ms = static_cast<int>(std::min<long long>(left, woken ? left : 10));
    } else {
      // Everything it started is gone, so the pipes close at once; should a descriptor have
      // been handed outside the tree, the answer does not wait for it past a second more.
      if (left <= -1000) break;
      wait_ms = static_cast<int>(left + 1000);
    }
    int r = poll(p, static_cast<nfds_t>(n), wait_ms);
    if (r < 0 && errno != EINTR) stop(Stop::None);
    if (r <= 0) {
      if (child.pidfd < 0 && child.status_fd < 0 && !child_done &&
          waitpid(child.pid, &status, WNOHANG) == child.pid) {
        child_done = true;
        killed += end_descendants(grace);
      }
      continue;
    }
    if (p[i_sig].revents & POLLIN) {
      signalfd_siginfo si{};
      if (read(sigfd, &si, sizeof si) == sizeof si) abandon(static_cast<int>(si.ssi_signo));
    }
    if (i_caller >= 0 && (p[i_caller].revents & (POLLERR | POLLHUP))) abandon(0);
    if (i_caller >= 0 && (p[i_caller].revents & POLLNVAL)) watch_caller = false;  // no stdout
    for (auto [idx, s, name] :
         {std::tuple{i_out, &out, "stdout"}, std::tuple{i_err, &err, "stderr"}}) {
      if (idx < 0 || !(p[idx].revents & (POLLIN | POLLOUT | POLLHUP | POLLERR))) continue;
      s->full = false;
      if (pass_through && s->splice && s->total < max_output) {
        // Text passes the bytes on kernel to kernel, up to the cap (past it, read() below
        // sees the first byte too many).
        ssize_t moved =
            splice(s->fd, nullptr, s->to, nullptr,
                   std::min<uint64_t>(max_output - s->total, sizeof buf), SPLICE_F_MOVE);
        if (moved > 0) {
          s->total += static_cast<uint64_t>(moved);
          continue;
        }
        if (moved == 0) {
          close(s->fd);
          s->fd = -1;
          continue;
        }
        if (errno == EAGAIN) {
          // The program's pipe is non-blocking, so a splice into a full pipe says EAGAIN too:
          // its bytes wait until the destination has room, which is widened once (a sixteenth
          // of the rounds with the reader).
          s->full = true;
          if (!s->widened) {
            s->widened = true;
            if (fcntl(s->to, F_GETPIPE_SZ) < kWidePipe) fcntl(s->to, F_SETPIPE_SZ, kWidePipe);
          }
          continue;
        }
        if (errno == EINTR) continue;
        if (errno != EINVAL) abandon(0);  // the caller's end is gone
        s->splice = false;                // not a pipe or file splice takes: copy instead
      }
      // Kept bytes are read straight into the memory that keeps them; past the cap (or with
      // no memory for it) into buf, which take() counts and refuses.
      std::span<char> room;
      if (!pass_through && !s->cut) room = s->kept->room(sizeof buf);
      ssize_t got =
          room.empty() ? read(s->fd, buf, sizeof buf) : read(s->fd, room.data(), room.size());
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {
        close(s->fd);
        s->fd = -1;
        continue;
      }
      if (room.empty()) {
        take(*s, buf, static_cast<size_t>(got), name);
      } else {
        s->kept->commit(static_cast<size_t>(got));
        s->total += static_cast<uint64_t>(got);
      }
    }
    if (i_pid >= 0 && (p[i_pid].revents & (POLLIN | POLLHUP)) && !child_done) {
      bool done = false;
      if (child.status_fd >= 0) {
        ns_init = child.pid;
        status = namespaced_status();
        done = true;
      } else {
        done = waitpid(child.pid, &status, WNOHANG) == child.pid;
      }
      if (done) {
        child_done = true;
        // The program is done: whatever it left running goes now, so its pipes can close.
        killed += end_tree();
        if (child_in >= 0) close(child_in), child_in = -1;
        pending.clear();
        if (stop_reason != Stop::Stdin) stdin_open = false;
      }
    }
    if (i_in >= 0 && (p[i_in].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) {
      ssize_t got = read(0, buf, sizeof buf);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {
        stdin_open = false;
        stdin_eof = got == 0;
        if (got < 0) stdin_errno = errno;
        if (child_in >= 0) close(child_in), child_in = -1;
      } else {
        stdin_total += static_cast<uint64_t>(got);
        if (stop_reason == Stop::Stdin) {
          if (stdin_total > stdin_ceiling) stdin_open = false;  // past any retry: stop counting
        } else if (stdin_total > max_stdin) {
          stop(Stop::Stdin);
        } else {
          pending.assign(buf, static_cast<size_t>(got));
        }
      }
    }
    if (i_feed >= 0 && (p[i_feed].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(child_in, pending.data(), pending.size());
      if (w > 0) {
        pending.erase(0, static_cast<size_t>(w));
        if (pending.empty() && !stdin_open) close(child_in), child_in = -1;
      } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
        // The program closed its standard input: it wants no more.
        close(child_in), child_in = -1;
        pending.clear();
        stdin_open = false;
      }
    }
  }
}

}  // namespace os
