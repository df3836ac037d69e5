// child.cpp — hand one started tool its call and supervise it (see child.h).
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

#include "runner/waiting.h"

namespace mcp {

namespace {

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

// Whether `out` holds the whole answer: a document is one line, a stream ends with its end
// record (written with "type" first).
bool answer_whole(const std::string& out, Whole whole) {
  if (whole == Whole::AtExit || out.empty() || out.back() != '\n') return false;
  if (whole == Whole::Document) return true;
  size_t last = out.rfind('\n', out.size() - 2);
  last = last == std::string::npos ? 0 : last + 1;
  return std::string_view(out).substr(last).starts_with("{\"type\":\"end\",");
}

ChildResult run_child(Waiting& w, const std::vector<std::string>& argv,
                      contract::waiting::RootId root_id, const std::string& stdin_data,
                      uint64_t timeout_ms, size_t max_output, const std::atomic<bool>* cancel,
                      Whole whole) {
  ChildResult r;
  // The argv goes first on its standard input, then the call's own stdin (waiting.h).
  const std::string feed = contract::waiting::encode(argv, root_id) + stdin_data;
  const pid_t pid = w.pid;
  int &fin = w.in, &fout = w.out, &ferr = w.err;
  fcntl(fin, F_SETFL, O_NONBLOCK);
  size_t written = 0;
  // Most calls' feed fits the pipe: written at once, without waiting for the poll to say so.
  ssize_t first = write(fin, feed.data(), feed.size());
  if (first < 0 && errno == EPIPE) {
    // It ended before it could read a byte of its argv (killed while it waited, after the
    // pool saw it alive): this call never ran in it.
    r.never_started = true;
    discard(w);
    return r;
  }
  if (first > 0) written = static_cast<size_t>(first);
  if (written == feed.size()) close_fd(fin);
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
      ssize_t n = write(fin, feed.data() + written, feed.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) close_fd(fin);  // the tool stopped reading
      if (written == feed.size()) close_fd(fin);
    }
    if (i_out >= 0 && (fds[i_out].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t got = read(fout, buf, sizeof buf);
      if (got > 0) {
        if (r.out.size() + static_cast<size_t>(got) > max_output) {
          r.capped = true;
          kill_group();
        } else {
          r.out.append(buf, static_cast<size_t>(got));
          if (answer_whole(r.out, whole)) {
            r.whole_early = true;
            break;
          }
        }
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close_fd(fout);
      }
    }
    if (i_err >= 0 && (fds[i_err].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t got = read(ferr, buf, sizeof buf);
      if (got > 0) {
        if (r.err.size() < 65536)
          r.err.append(buf, std::min<size_t>(static_cast<size_t>(got), 65536 - r.err.size()));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close_fd(ferr);
      }
    }
  }
  close_fd(fin), close_fd(fout), close_fd(ferr);
  if (r.whole_early) return r;  // the caller reaps it once the answer is sent
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
  int status = discard(w);  // its group killed: nothing of it outlives the call
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace mcp
