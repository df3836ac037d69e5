// run_program — the fixture programs run's tests start, one binary called by many names (its
// argv[0], the name run was given). Each behaviour is one hostile or ordinary case; a MARKER
// argument lands in every process's command line, so a test can scan /proc for survivors.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern char** environ;

namespace {

bool put(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void say(int fd, const std::string& s) {
  put(fd, s.data(), s.size());
}

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

// Writes `total` bytes ('x', a newline every `line` bytes when line > 0; forever when total
// is "inf") to each fd in `fds`.
int flood(const char* total_s, bool out, bool err, long line) {
  bool forever = std::strcmp(total_s, "inf") == 0;
  unsigned long long total = forever ? 0 : std::strtoull(total_s, nullptr, 10);
  static char buf[1 << 16];
  std::memset(buf, 'x', sizeof buf);
  if (line > 0)
    for (long i = line - 1; i < static_cast<long>(sizeof buf); i += line) buf[i] = '\n';
  unsigned long long done = 0;
  while (forever || done < total) {
    size_t n = forever
                   ? sizeof buf
                   : static_cast<size_t>(std::min<unsigned long long>(sizeof buf, total - done));
    if (out && !put(1, buf, n)) return 1;
    if (err && !put(2, buf, n)) return 1;
    done += n;
  }
  return 0;
}

int report(const char* what, int rc) {
  if (rc < 0) {
    say(2, std::string(what) + ": " + std::strerror(errno) + "\n");
    return 3;
  }
  say(1, std::string(what) + ": ok\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string self = argv[0];
  self = self.substr(self.rfind('/') + 1);  // started by path too (benchmarks, by hand)
  // The same behaviours under names the fixture policy grants more (tests/support/run_programs.sh).
  if (self == "netok") self = "connect";
  if (self == "scribe") self = "write";
  const char* arg1 = argc > 1 ? argv[1] : "";
  if (self == "echo") {
    std::string line;
    for (int i = 1; i < argc; ++i) line += std::string(i > 1 ? " " : "") + argv[i];
    say(1, line + "\n");
    return 0;
  }
  if (self == "true") return 0;
  if (self == "false") return 1;
  if (self == "exit") return std::atoi(arg1);
  if (self == "cat") {  // standard input to standard output, counted on stderr
    static char buf[1 << 16];
    unsigned long long n = 0;
    for (ssize_t r; (r = read(0, buf, sizeof buf)) != 0;) {
      if (r < 0) {
        if (errno == EINTR) continue;
        return 2;
      }
      n += static_cast<unsigned long long>(r);
      if (!put(1, buf, static_cast<size_t>(r))) return 1;
    }
    return 0;
  }
  if (self == "args") {  // one line per argument, in brackets: the bytes arrive as given
    for (int i = 0; i < argc; ++i) say(1, std::string("[") + argv[i] + "]\n");
    return 0;
  }
  if (self == "env") {
    for (char** e = environ; *e; ++e) say(1, std::string(*e) + "\n");
    return 0;
  }
  if (self == "pwd") {
    char buf[4096];
    say(1, std::string(getcwd(buf, sizeof buf) ? buf : "?") + "\n");
    return 0;
  }
  if (self == "both") {  // a line on each stream
    say(1, "to stdout\n");
    say(2, "to stderr\n");
    return 0;
  }
  if (self == "flood") return flood(arg1, true, false, 4096);  // flood N|inf
  if (self == "flood-err") return flood(arg1, false, true, 4096);
  if (self == "flood-both") return flood(arg1, true, true, 4096);
  if (self == "longline") return flood(arg1, true, false, 0) || !put(1, "\n", 1);
  if (self == "binary") {
    const char b[] = "\xff\xfe\x00\x80 not utf-8 \xc0\x80\n";
    put(1, b, sizeof b - 1);
    put(2, b, sizeof b - 1);
    return 0;
  }
  if (self == "closeout") {  // closes stdout at once, goes on a while on stderr
    close(1);
    usleep(50 * 1000);
    say(2, "stdout closed\n");
    return 0;
  }
  if (self == "sleep") {  // sleep MS
    usleep(static_cast<useconds_t>(std::atol(arg1)) * 1000);
    return 0;
  }
  if (self == "hang") sleep_forever();  // hang MARKER
  if (self == "readall") {              // reads standard input to its end, then says how much
    static char buf[1 << 16];
    unsigned long long n = 0;
    for (ssize_t r; (r = read(0, buf, sizeof buf)) != 0;) {
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return 2;
      n += static_cast<unsigned long long>(r);
    }
    say(1, std::to_string(n) + "\n");
    return 0;
  }
  if (self == "deaf") {  // ignores SIGTERM, sleeps: deaf MARKER
    signal(SIGTERM, SIG_IGN);
    sleep_forever();
  }
  if (self == "stopper") {  // a child that stops itself; the parent waits: stopper MARKER
    if (fork() == 0) {
      raise(SIGSTOP);
      sleep_forever();
    }
    sleep_forever();
  }
  if (self == "orphan") {  // setsid + double fork + TERM ignored, parent exits: orphan MARKER
    pid_t p = fork();
    if (p == 0) {
      setsid();
      if (fork() == 0) {
        signal(SIGTERM, SIG_IGN);
        close(1);
        close(2);
        sleep_forever();
      }
      _exit(0);
    }
    waitpid(p, nullptr, 0);
    say(1, "left a grandchild behind\n");
    return 0;
  }
  if (self == "brood") {  // brood MARKER: leaves running a child in its own session, the
    // grandchild of a double fork and a child deaf to SIGTERM, says "ready" once all three
    // are up, and waits
    int ready[2];
    if (pipe(ready) != 0) return 5;
    if (fork() == 0) {
      setsid();
      put(ready[1], "s", 1);
      sleep_forever();
    }
    if (fork() == 0) {
      if (fork() == 0) {
        put(ready[1], "d", 1);
        sleep_forever();
      }
      _exit(0);
    }
    if (fork() == 0) {
      signal(SIGTERM, SIG_IGN);
      put(ready[1], "t", 1);
      sleep_forever();
    }
    close(ready[1]);
    char c;
    for (int i = 0; i < 3; ++i)
      if (read(ready[0], &c, 1) != 1) return 6;
    say(1, "ready\n");
    sleep_forever();
  }
  if (self == "forkbomb") {  // forks until refused, then reports: forkbomb MARKER
    int made = 0, refusals = 0;
    for (int i = 0; i < 100000 && refusals < 50; ++i) {
      pid_t p = fork();
      if (p == 0) sleep_forever();
      if (p < 0) {
        ++refusals;
        continue;
      }
      ++made;
    }
    say(1, "made " + std::to_string(made) + " refused " + std::to_string(refusals) + "\n");
    return refusals > 0 ? 0 : 4;
  }
  if (self == "write") {  // write PATH: creates PATH (relative to the working directory)
    int fd = open(arg1, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return report((std::string("write ") + arg1).c_str(), -1);
    put(fd, "written by run_program\n", 23);
    close(fd);
    return report((std::string("write ") + arg1).c_str(), 0);
  }
  if (self == "tmpwrite") {  // writes a file in $TMPDIR and prints its path
    const char* t = getenv("TMPDIR");
    std::string path = std::string(t ? t : "/nonexistent") + "/scratch.txt";
    int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0644);
    if (fd < 0) return report(("write " + path).c_str(), -1);
    close(fd);
    say(1, path + "\n");
    return 0;
  }
  if (self == "inet") return report("socket AF_INET", socket(AF_INET, SOCK_STREAM, 0));
  if (self == "inet6") return report("socket AF_INET6", socket(AF_INET6, SOCK_DGRAM, 0));
  if (self == "unix") {
    int sv[2];
    return report("socketpair AF_UNIX", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  }
  if (self == "connect") {  // connect PORT: to 127.0.0.1 (through an inherited socket fd 3 if any)
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return report("socket AF_INET", -1);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(std::atoi(arg1)));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return report("connect", connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa));
  }
  if (self == "signal") {  // signal PID: tries to send SIGTERM outside its own domain
    return report("kill", kill(static_cast<pid_t>(std::atol(arg1)), SIGTERM));
  }
  if (self == "segv") {
    raise(SIGSEGV);
    return 0;
  }
  if (self == "setsid-child") {  // a child in its own session writes after the parent exits
    if (fork() == 0) {
      setsid();
      usleep(100 * 1000);
      say(1, "late\n");
      _exit(0);
    }
    return 0;
  }
  say(2, "run_program: unknown behaviour " + self + "\n");
  return 125;
}
