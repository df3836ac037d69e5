// built.h — the tools tack-mcp was built with (gen/mcp_catalog.py took each one's effects,
// introspect and skill), and the choice its command line makes among them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mcp/catalog.h"
#include "mcp/options.h"

namespace mcp {

struct Built {
  const char* name;
  bool writes, starts;
  const char* introspect;
  size_t introspect_size;
  const char* skill;
  size_t skill_size;
};

// The tools --tools names (all without it), less the writers and starters under --read-only,
// each checked present and runnable in `dir`. On a bad name or a missing binary: `error`
// ("rule: message") and the exit code to leave with.
struct Chosen {
  std::vector<const Built*> tools;
  std::string error;
  int exit = 0;
};
Chosen choose_tools(const Options& o, const std::string& dir);

// The entries of the chosen tools for tools/list and calls, read from what the build took.
std::vector<ToolEntry> describe_chosen(const std::vector<const Built*>& chosen,
                                       const std::string& dir);

}  // namespace mcp
