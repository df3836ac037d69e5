// built.cpp — see built.h.
#include "mcp/built.h"

#include <unistd.h>

#include <algorithm>

namespace mcp {
namespace {

constexpr Built kBuilt[] = {
#include "mcp_catalog.inc"
};

}  // namespace

Chosen choose_tools(const Options& o, const std::string& dir) {
  Chosen out;
  for (const std::string& want : o.tools)
    if (std::none_of(std::begin(kBuilt), std::end(kBuilt), [&](const Built& b) { return want == b.name; })) {
      out.error = "args.bad-value: --tools names '" + want + "', which is not a tack tool";
      out.exit = 2;
      return out;
    }
  for (const Built& b : kBuilt) {
    if (!o.tools.empty() && std::find(o.tools.begin(), o.tools.end(), b.name) == o.tools.end()) continue;
    const std::string bin = dir + "/" + b.name;
    if (access(bin.c_str(), X_OK) != 0) {
      out.error = "io.not-found: " + bin + " is not there to run";
      out.exit = 1;
      return out;
    }
    if (o.read_only && (b.writes || b.starts)) continue;
    out.tools.push_back(&b);
  }
  return out;
}

std::vector<ToolEntry> describe_chosen(const std::vector<const Built*>& chosen,
                                       const std::string& dir) {
  std::vector<ToolEntry> out;
  for (const Built* b : chosen) {
    ToolEntry t;
    // The build took these from the tools themselves; one that does not read is a build that
    // went wrong, and the tool is left out rather than described wrongly.
    if (describe_tool(dir + "/" + b->name, {b->introspect, b->introspect_size},
                      {b->skill, b->skill_size}, t))
      continue;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace mcp
