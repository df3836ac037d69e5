// child.h — one tool run by tack-mcp: its own binary (started ahead by the pool, pool.h),
// exact argv, an empty environment, standard input fed from memory, standard output captured
// up to a cap, a deadline, and a cancel flag. The child leads its own process group, and the whole
// group is killed at the deadline, at the cap, on cancellation, or when the server goes away.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "mcp/pool.h"
#include "runner/waiting.h"

namespace mcp {

struct ChildResult {
  std::string out;     // standard output, at most the cap
  std::string err;     // standard error, at most 64 KiB
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false, capped = false, cancelled = false;
  bool whole_early = false;    // the answer was whole before the tool ended (see Whole)
  bool never_started = false;  // it had ended before its argv could be written
};

// When a call's answer is known to be whole. A tool has nothing left to do once its answer is
// printed, so the answer need not wait for its exit (the unmapping, the closing, the wake-ups):
// Document, one JSON line; Stream, the end record. A writer prints its answer once its change
// is made and durable; the server sends it at once and reaps the process before it starts the
// next call (server.cpp), so no call finds a lock the last one held. A tool that starts
// programs is awaited to its exit (AtExit): its children end with it.
enum class Whole { AtExit, Document, Stream };

// Hands `w` its argv and stdin and supervises it: to its end, when `w` is reaped and closed
// (pid -1), or, with whole_early, until its answer is whole, `w` left for the caller to
// discard once the answer is sent.
ChildResult run_child(Waiting& w, const std::vector<std::string>& argv,
                      contract::waiting::RootId root_id, const std::string& stdin_data,
                      uint64_t timeout_ms, size_t max_output, const std::atomic<bool>* cancel,
                      Whole whole);

}  // namespace mcp
