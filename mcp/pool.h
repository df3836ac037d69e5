// pool.h — tools started ahead of their calls. A call's exec and start-up (about a
// millisecond) are off its critical path: each tool a session has called keeps a few
// processes already executed and waiting for their argv (runner/waiting.h). A call takes
// one, hands it the argv and its stdin, and once the call is answered the pool starts a
// replacement in the background.
//
// A waiting process is started exactly as a call's own process was: the tool's binary, an
// empty environment, the server's working directory, its own process group, standard
// signals; it parses the argv it is handed and installs its own sandbox after parsing, as any
// invocation does, then serves that one call and exits. It dies with the server (parent-death
// signal), and its group is among those kill_all_children ends.
//
// A process is used only while it is alive and while the binary at its path is the one it
// was started from (device, inode, size, times): one killed while it waited, or one started
// from a binary since replaced on disk, is ended and reaped, and another is taken or started.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace mcp {

// What identifies the binary a process was started from.
struct BinaryId {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  long mtime_ns = 0, ctime_ns = 0;
  bool operator==(const BinaryId&) const = default;
};

// One started tool: its pid (which leads its group) and the server's ends of its pipes.
struct Waiting {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  BinaryId binary;
};

// Starts `path` waiting for its argv (posix_spawn: no copy of the server's address space).
// pid -1 and `error` set when it cannot start.
Waiting start_waiting(const std::string& path, std::string& error);

// Ends a started tool's group (nothing of it outlives its call), closes the pipes still open,
// reaps it and returns its wait status.
int discard(Waiting& w);

// Ends the group of every tool the server started, waiting or running: the server is going.
void kill_all_children();

class Pool {
 public:
  explicit Pool(size_t idle_per_tool) : idle_per_tool_(idle_per_tool) {}
  ~Pool() { stop(); }
  // A live process of the binary now at `path`: one waiting, or one started now.
  Waiting take(const std::string& path, std::string& error);
  // Starts the replacements of the processes taken. Called once a call is answered: a start
  // (about a millisecond of CPU) then does not compete with the call it would replace.
  void refill_now();
  // Ends every waiting process and the thread that starts them.
  void stop();

 private:
  void refill();

  const size_t idle_per_tool_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::deque<Waiting>> idle_;
  std::map<std::string, size_t> wanted_;  // the paths called at least once: kept at idle_per_tool_
  std::thread thread_;
  bool stopping_ = false;
};

}  // namespace mcp
