// waiting.h — a tool started ahead of its call by tack-mcp, waiting for its argv.
//
// tack-mcp keeps a few processes of each tool already executed (the exec and the start-up
// off the call's critical path). Such a process is started as `TOOL --tack-mcp-waiting`,
// with an empty environment and the server's working directory, exactly as the server would
// start the tool itself; it reads one argv message from standard input and then runs that
// argv through contract::main as a fresh process would: same parse, same root, same sandbox,
// one call, exit. One half of the sandbox comes earlier: the seccomp filter, which depends on
// the tool and not on its arguments, is loaded while the process waits (its load, about a
// tenth of a millisecond, is then off the call's path too), so the argv is parsed under it;
// Landlock, which needs the root, is installed after parsing as on a fresh start.
//
// The mode is reachable only from tack-mcp: the flag is honoured only when the parent process
// is the tack-mcp beside the tool's own binary. From anywhere else (a shell, a script) it is
// what any name outside the table is: args.unknown-flag. The mode grants nothing a command
// line does not: the argv it reads is parsed and confined like any other.
//
// The message: a 4-byte length (host order), the call's root as an 8-byte device and an 8-byte
// inode number (both 0: none), then the argv strings, each ended by a NUL. Read with
// exact-sized reads, so the bytes after it on standard input are the tool's own stdin. The
// root is the directory the server opened beneath its own root following no link, and holds
// open until the call is answered (so its inode is not another's meanwhile). The tool opens
// --root as any invocation does, and works in it only if it is that very directory: a name
// swapped for a link (or another directory) after the server opened it is refused, on the
// descriptor the tool then works from, so no later swap can lead it elsewhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contract/table.h"

namespace contract::waiting {

inline constexpr const char* kFlag = "--tack-mcp-waiting";
inline constexpr uint32_t kMaxMessage = 16u << 20;  // the server's largest message, and more

// A directory by its device and inode; both 0: none named.
struct RootId {
  uint64_t dev = 0, ino = 0;
};

// The message that hands `argv` (argv[0] first) and the call's root to a waiting tool.
std::string encode(const std::vector<std::string>& argv, RootId root);

struct Received {
  std::vector<std::string> argv;
  RootId root;  // the directory --root must open to
};

// The argv a waiting process receives: when argv is exactly {TOOL, kFlag} and the parent is
// tack-mcp, loads `tool`'s seccomp filter, waits for the message and returns it in `out`
// (true). A process whose server closed the pipe before a message came ends here, silently:
// it was never a call. Otherwise returns false and changes nothing.
bool receive(const Tool& tool, int argc, char** argv, Received& out);

}  // namespace contract::waiting
