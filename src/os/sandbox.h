// sandbox.h — the tool's declared effects, held by the kernel (Landlock + seccomp). Applied by
// contract::main after argument parsing and before any input is opened.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "contract/error.h"
#include "contract/json.h"
#include "contract/table.h"

namespace os {

// Installs the tool's profile. `write_dirs`: without a root, the directories a writer may
// write beneath (its targets' parents). An error only when a mechanism the kernel has could
// not be installed; a kernel without one runs best effort (see authority()).
std::optional<contract::Error> apply_sandbox(const contract::Tool& tool, int root_fd,
                                             const std::vector<std::string>& write_dirs);

// The seccomp half alone, ahead of the argv: its filter depends on the tool's effects only,
// never on the arguments, so a process started ahead of its call (runner/waiting.h) loads it
// while it waits and apply_sandbox then installs only Landlock, the half that needs the root.
// Not for a tool that starts programs (its filter depends on the deployer's policy, read at
// the call). False when it was not installed: apply_sandbox then installs it, or says why not.
bool apply_seccomp_ahead(const contract::Tool& tool);

int landlock_abi();  // 0 when the kernel has no Landlock
bool seccomp_available();

// The seccomp program (raw struct sock_filter bytes) for a tool with these effects, as
// libseccomp compiled it from src/os/seccomp_profile.cpp when tack was built.
// `network`: a supervisor whose deployer grants some program the network (sockets are left to
// each program's own filter, started_program_filter()).
std::span<const unsigned char> seccomp_program(bool start_programs, bool write_files,
                                               bool network = false);
// The filter each started program adds to its supervisor's: sockets other than AF_UNIX refused.
std::span<const unsigned char> started_program_filter();

// The Landlock ruleset a started program is restricted to, between fork and exec: read and
// execute anywhere, write beneath each of `write_fds` and to /dev/null, no TCP bind or connect
// (ABI 4), no signal or abstract socket reaching outside its own domain (ABI 6). `fd` is -1
// where the kernel has no Landlock; the caller closes it.
struct ProgramRuleset {
  int fd = -1;
  int abi = 0;
  bool tcp = false;     // TCP bind/connect refused by Landlock
  bool scoped = false;  // signals and abstract sockets scoped
};
// `network`: the deployer granted this program the network (TCP is not handled).
ProgramRuleset program_ruleset(std::span<const int> write_fds, bool network = false);

// The authority row as introspect prints it: what the tool may do and what enforces it here.
contract::Json authority(const contract::Tool& tool);

}  // namespace os
