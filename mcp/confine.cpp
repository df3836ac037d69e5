// confine.cpp — see confine.h.
#include "mcp/confine.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "contract/table.h"
#include "os/sandbox.h"

namespace mcp {

// The server's own authority, held by the kernel as a tool's is (os/sandbox.h), as run's
// supervisor row: it reads and executes anywhere (it starts the tools), and it writes nothing
// itself, but what it starts inherits its domain, so the kernel lets it write where its tools
// may: beneath the root, /tmp and its cgroup (run's TMPDIR and pids cgroup). No internet
// socket, no ptrace, mount or bpf. Each call's tool then narrows this to its own row (a
// reader, under --read-only every tool, to no write at all).
std::optional<std::string> confine(const std::vector<const Built*>& chosen,
                                   const std::string& root) {
  contract::Tool self;
  self.name = "tack-mcp";
  self.effects = contract::kReadFiles | contract::kReadStdin | contract::kStartPrograms;
  if (std::any_of(chosen.begin(), chosen.end(), [](const Built* b) { return b->writes; }))
    self.effects |= contract::kWriteFiles;
  int root_fd = open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return "io.not-found: the root cannot be opened";
  std::optional<contract::Error> e = os::apply_sandbox(self, root_fd, {});
  close(root_fd);
  if (e) return std::string(e->rule) + ": " + e->message;
  return std::nullopt;
}

}  // namespace mcp
