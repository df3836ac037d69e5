// catalog.h — the tools tack-mcp offers, each described from its own binary's `introspect` and
// `skill` (so from its table, never rewritten): the MCP tool entry (name, title, description,
// inputSchema, outputSchema, annotations), the argv a call's arguments make, and the arguments
// a retry repair's argv makes back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "contract/json.h"

namespace mcp {

// One property of a tool's inputSchema and what it becomes on the command line.
struct Prop {
  enum class Kind { Flag, Operand, Stdin, Root };
  std::string name;       // as the client writes it: max_count, path, paths
  Kind kind = Kind::Flag;
  std::string flag;       // Flag: the long name without dashes
  std::string flag_kind;  // bool, nat, text, path, choice, range, list
  char short_name = 0;
  size_t operand = 0;     // Operand: its slot
  size_t min = 0, max = 1;
  // Not offered to a model (a tuning knob, or the root): accepted by its name all the same.
  bool hidden = false;
  bool widens = false;  // the flag lets the call touch more: never put in by a repair
};

// An argument the server cannot turn into the tool's argv: named as the argument it is.
struct ArgumentError {
  std::string rule, message, hint;
  contract::Json detail;
  contract::Json retry;  // the call's arguments with the one fix, when there is exactly one
};

// An operand as the tool's parser sees it (a property may leave one out: see catalog.cpp).
struct OperandSpec {
  std::string name, unless;  // unless: the flag (no dashes) that makes it not taken
  size_t min = 0, max = 1;
  std::string prop;          // its property, or empty
};

struct ToolEntry {
  std::string name;
  std::vector<OperandSpec> operands;
  std::string bin;                // absolute path of the tool's binary
  bool stream = false;            // NDJSON answer (gathered into {records, end})
  bool writes = false;            // declares the write effect
  bool starts = false;            // declares the effect of starting programs
  bool takes_root = true;
  std::vector<Prop> props;
  contract::Json descriptor;      // the tools/list entry
  std::string schema_id;          // "peek.v1"
};

// The tool's own words in a model's terms: each `--flag` of the tool becomes its argument's
// name (`--if-sha256` is `if_sha256`), so that what the model reads names what it can pass.
std::string in_arguments(const ToolEntry& tool, std::string_view text);

// The entry of the tool at `bin` from what its `introspect` and `skill` print (taken at build
// time: gen/mcp_catalog.py; the binary's presence is checked once, at start: built.h); an
// error message when its introspect is not what the server reads.
std::optional<std::string> describe_tool(const std::string& bin, std::string_view introspect,
                                         std::string_view skill, ToolEntry& out);

// The argv for a call: the tool, --root, then flags, then "--" and the operands (so an operand
// that starts with '-' is never taken for a flag). `stdin_data` receives the content for
// standard input when the call gives one. `error` receives an argument no property has, or a
// value the argv cannot carry (an object where a string goes).
std::vector<std::string> build_argv(const ToolEntry& tool, const contract::Json& arguments,
                                    const std::string& root, std::string& stdin_data,
                                    std::optional<ArgumentError>& error);

// A retry repair's argv as the arguments object of the same tool (the root left out when it
// is the call's own); nothing when a token has no property.
std::optional<contract::Json> argv_to_arguments(const ToolEntry& tool,
                                                const std::vector<std::string>& argv,
                                                const std::string& call_root,
                                                const std::string& server_root,
                                                const std::string& stdin_data);

}  // namespace mcp
