// pool.h — digest's files hashed in parallel: each file is a slot of an os::Ordered pool, opened
// and hashed on a worker thread, its result handed back to the main thread in the order the
// files were given, so the records are the serial order whichever thread finishes first.
// Memory is the pool's window of slots (a path and a result each) and one read buffer per
// worker, whatever the number of files. One file alone is hashed on the calling thread: no
// thread is started for it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "contract/error.h"
#include "os/hash.h"
#include "os/ordered.h"

namespace digest {

// One read buffer per worker: memory is this much whatever the files' sizes. 256 KiB measured
// fastest here (large enough that a syscall costs nothing next to hashing it, small enough to
// stay in L2 between read and hash).
constexpr size_t kChunk = 256 * 1024;

// A slot carries no output while its work runs: the result is in the slot.
struct Nothing {
  size_t size() const { return 0; }
  bool empty() const { return true; }
};

struct Slot : os::OrderedSlot<Nothing> {
  // Set by the main thread.
  std::string path;  // as the records show it: the operand, or the name in the --check list
  std::string open;  // as it is opened, when not `path` (a list's name in its normal form)
  os::Sha::Algo algo = os::Sha::Algo::Sha256;
  uint64_t line = 0;     // --check: the list's line
  std::string expected;  // --check: the lowercase hex the line gives
  // Set by the worker (or by the main thread for a slot without work).
  std::optional<contract::Error> error;  // the file could not be opened or read
  bool read_failed = false;              // the error is a failed read (it was opened)
  os::Hashed hashed;
  std::optional<std::string> link;  // without --root: where a link in the path led
};

struct Worker {
  std::unique_ptr<char[]> buf;  // kChunk bytes, allocated on the worker's first file
};

using Pool = os::Ordered<Slot, Worker>;

// What every slot's work shares.
struct Job {
  int root_fd = -1;    // -1: paths are opened as given
  bool links = false;  // find where a link in the path led (operands without --root)
};

// Opens the slot's file (beneath the root when there is one, refusing what is not a regular
// file) and hashes it, filling the slot's result.
void hash_slot(const Job& job, Slot& s, Worker& w);

// The workers: a thread per core this process may run on, and the main thread's (os::Ordered
// starts one thread fewer than its workers; the main thread works where it would wait).
unsigned worker_count();

}  // namespace digest
