// supervise.h — the loop that watches one started program until it and everything it started
// are gone: its two output streams (kept up to a cap, or passed through), its standard input
// (fed from this process's, up to a cap), its deadline, the signals that stop the supervisor
// (a signalfd), and a caller that goes away. Whatever ends the program, its whole tree is
// ended (end_descendants) before loop() returns; the supervisor must be a child subreaper.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "os/kept.h"
#include "os/process.h"

namespace os {

// One of the program's output streams.
struct Channel {
  int fd = -1;  // the read end of the program's pipe
  int to = -1;  // pass-through: where the bytes go (1 or 2)
  std::shared_ptr<Kept> kept;
  uint64_t total = 0;  // bytes the program wrote, kept or not
  bool cut = false;    // it wrote past the cap
  bool splice = true;  // pass-through: try splice(2) first
  bool full = false;   // pass-through: the destination had no room at the last splice
  bool widened = false;
};

enum class Stop { None, Timeout, Output, Stdin };

bool write_all(int fd, const char* p, size_t n);

struct Watch {
  // Set before loop().
  std::string_view tool = "run";  // names the last-resort line on stderr
  Spawned child;
  Channel out, err;
  int child_in = -1;  // feeding standard input: the write end of the program's
  int sigfd = -1;     // the stopping signals, blocked and read here
  Cgroup* cgroup = nullptr;
  uint64_t timeout_ms = 30000, max_output = 0, max_stdin = 0, stdin_ceiling = 0;
  bool feed_stdin = false, pass_through = false;
  std::chrono::milliseconds grace{100};
  // Before an abandoned supervisor exits (a stopping signal, a caller gone): remove what it made.
  std::function<void()> cleanup;

  // Results.
  bool child_done = false;
  int status = 0;  // the program's wait status
  Stop stop_reason = Stop::None;
  size_t killed = 0;                    // processes signalled
  const char* killed_stream = nullptr;  // Stop::Output: "stdout" or "stderr"
  uint64_t stdin_total = 0;             // bytes read from standard input (counted past the cap)
  bool stdin_eof = false;               // standard input was read to its end
  int stdin_errno = 0;                  // its read failed with this (the program saw an end)

  // Runs until the program is reaped, its tree ended and its streams closed. A stopping
  // signal ends the tree, calls cleanup and dies by that signal; a caller gone ends it too and
  // exits 1 with the last-resort line.
  void loop();

 private:
  std::string pending;  // standard input read but not yet written to the program
  pid_t ns_init = -1;   // the program's namespace's init, once its status is read
  int namespaced_status();
  size_t end_tree();
  void end_all();
  void stop(Stop w);
  [[noreturn]] void abandon(int sig);
  void take(Channel& s, char* buf, size_t n, const char* name);
};

}  // namespace os
