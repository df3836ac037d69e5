// child.h — one tool run by tack-mcp: its own binary (started ahead by the pool, pool.h),
// exact argv, an empty environment, standard input fed from memory, standard output captured
// up to a cap, a deadline, and a cancel flag. The child leads its own process group, and the whole group is killed at the
// deadline, at the cap, on cancellation, or when the server goes away.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "mcp/pool.h"

namespace mcp {

struct ChildResult {
  std::string out;           // standard output, at most the cap
  std::string err;           // standard error, at most 64 KiB
  int exit_code = -1;        // when it exited
  int signal = 0;            // when a signal ended it
  bool timed_out = false, capped = false, cancelled = false;
};

// Hands `w` its argv and stdin and supervises it to its end; `w` is reaped and closed after.
ChildResult run_child(Waiting w, const std::vector<std::string>& argv, const std::string& stdin_data,
                      uint64_t timeout_ms, size_t max_output, const std::atomic<bool>* cancel);

}  // namespace mcp
