// start.h — run's start and watch: the program's root, working directory and private TMPDIR,
// its Landlock ruleset, cgroup and socket filter, its three streams, then the supervision
// until it and all it started are gone (or run itself is stopped).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contract/context.h"
#include "contract/json.h"
#include "os/process.h"
#include "os/sandbox.h"
#include "os/supervise.h"

namespace run_tool {

struct Launch {
  std::string name, path;  // the program's name (its argv[0]) and absolute path
  const std::vector<std::string>& args;
  const std::optional<std::string>& cwd;  // beneath the root; none: the root
  const char* programs_dir;               // where the deployer's policy is read
  uint64_t timeout_ms, max_output, max_stdin, stdin_ceiling, pids_max;
  bool feed_stdin, read_only;
  std::chrono::milliseconds grace;
};

// What the answer reports of a program that ran.
struct Watched {
  os::Watch sv;
  os::ProgramRuleset rules;
  os::Cgroup cgroup;
  bool network = false, sockets_filtered = false;
  contract::Json writable = contract::Json::array();  // the policy's directories granted
};

// Starts the program and watches it to its end, filling `w`; false after ctx.error when it
// could not be started.
bool start_and_watch(const Launch& l, contract::Context& ctx, Watched& w);

}  // namespace run_tool
