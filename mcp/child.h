// child.h — one tool run by tack-mcp: its own binary, exact argv, an empty environment,
// standard input fed from memory, standard output captured up to a cap, a deadline, and a
// cancel flag. The child leads its own process group, and the whole group is killed at the
// deadline, at the cap, on cancellation, or when the server goes away.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace mcp {

struct ChildResult {
  std::string out;           // standard output, at most the cap
  std::string err;           // standard error, at most 64 KiB
  int exit_code = -1;        // when it exited
  int signal = 0;            // when a signal ended it
  bool timed_out = false, capped = false, cancelled = false;
  std::string spawn_error;   // the exec could not start
};

// Every child's process group, so that a server ending for any reason can kill them all.
void kill_all_children();

ChildResult run_child(const std::vector<std::string>& argv, const std::string& stdin_data,
                      uint64_t timeout_ms, size_t max_output, const std::atomic<bool>* cancel);

}  // namespace mcp
