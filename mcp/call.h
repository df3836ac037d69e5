// call.h — one tools/call: the arguments made an argv, the tool run in a process of its own
// (from the pool), and its answer made the MCP result: content (the tool's text rendering,
// or its JSON with --content json) and structuredContent (the JSON answer as its outputSchema
// says), with each retry repair also given as the arguments of a tool call.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "contract/json.h"
#include "mcp/catalog.h"
#include "mcp/options.h"
#include "mcp/pool.h"
#include "runner/waiting.h"

namespace mcp {

struct CallEnv {
  const Options& opt;
  const std::vector<ToolEntry>& tools;  // a repair may name another tool than the call's
  Pool& pool;
};

// The result of calling `t` with `arguments` beneath `root` (the directory `root_id`: the tool
// works only in it; none for a tool without a root); `cancel` ends its process. A process
// whose answer was whole before it ended is left in `ending`, for the caller to discard once
// the answer is sent.
contract::Json call_tool(const CallEnv& env, const ToolEntry& t, const contract::Json& arguments,
                         const std::string& root, contract::waiting::RootId root_id,
                         const std::atomic<bool>* cancel, Waiting& ending);

// A tagged error the server finds itself (a root outside the client's, an argument no
// property has), answered in the tool's own shape.
contract::Json refusal(const Options& opt, const ToolEntry& t, const contract::Json& err);

}  // namespace mcp
