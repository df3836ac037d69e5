// fuzz-sources: mcp/catalog.cpp mcp/json_in.cpp src/contract/json.cpp src/contract/parse.cpp src/contract/error.cpp src/contract/describe.cpp src/text/json_bytes.cpp
// fuzz-libs: -lsimdjson
// fuzz-options: -max_len=65536
// libFuzzer target: tack-mcp's mapping of a call's `arguments` onto a tool's argv, for every
// tool the server was built with (each described from its own introspect, as the server
// does). The first byte picks the tool, the rest is the arguments as a client sends them:
// wrong types, huge strings and arrays, NUL bytes, deep nesting, unknown keys. Nothing
// crashes, and either the call is refused with a message and no argv, or the argv is one the
// tool reads as meant: its binary, --root and the server's root first, then only flags
// ("--name" or "--name=value", never a bare "--", never --help, --version, --format or a second
// --root), then one "--" and the operands; no
// argument holds a NUL byte (exec would cut it there, silently); --stdin exactly when the
// stdin property was given. A repair's argv read back into arguments never crashes either.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/built.h"
#include "mcp/catalog.h"
#include "mcp/json_in.h"

namespace {

using mcp::Built;

constexpr Built kBuilt[] = {
#include "mcp_catalog.inc"
};

const std::vector<mcp::ToolEntry>& tools() {
  static const std::vector<mcp::ToolEntry> all = [] {
    std::vector<mcp::ToolEntry> out;
    for (const Built& b : kBuilt) {
      mcp::ToolEntry t;
      if (mcp::describe_tool(std::string("/opt/tack/") + b.name, {b.introspect, b.introspect_size},
                             {b.skill, b.skill_size}, t))
        __builtin_trap();  // the build's own catalogue always reads
      out.push_back(std::move(t));
    }
    return out;
  }();
  return all;
}

const std::string kRoot = "/srv/root";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const mcp::ToolEntry& tool = tools()[data[0] % tools().size()];
  auto args = mcp::parse_json(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  if (!args || args->type() != contract::Json::Type::Object) return 0;
  std::string stdin_data;
  std::optional<mcp::ArgumentError> error;
  std::vector<std::string> argv = mcp::build_argv(tool, *args, kRoot, stdin_data, error);
  if (error) {
    if (!argv.empty()) __builtin_trap();
    return 0;
  }
  if (argv.empty() || argv[0] != tool.bin) __builtin_trap();
  size_t i = 1;
  if (tool.takes_root) {
    if (argv.size() < 3 || argv[1] != "--root" || argv[2] != kRoot) __builtin_trap();
    i = 3;
  }
  bool stdin_flag = false;
  for (; i < argv.size() && argv[i] != "--"; ++i) {
    const std::string& a = argv[i];
    if (a.size() <= 2 || a.compare(0, 2, "--") != 0) __builtin_trap();
    if (a == "--stdin") stdin_flag = true;
    // the flags the server keeps to itself
    std::string name = a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2);
    if (name == "help" || name == "version" || name == "format" || (name == "root" && tool.takes_root))
      __builtin_trap();
  }
  if (i == argv.size()) __builtin_trap();  // the separator is always there
  for (const std::string& a : argv)
    if (a.find('\0') != std::string::npos) __builtin_trap();
  // --stdin comes from a key "stdin": the tool's property (always), or an unknown key the
  // tool will refuse by name.
  const contract::Json* stdin_key = args->get("stdin");
  bool stdin_prop = false;
  for (auto& p : tool.props) stdin_prop = stdin_prop || p.kind == mcp::Prop::Kind::Stdin;
  if (stdin_flag && (!stdin_key || stdin_key->is_null())) __builtin_trap();
  if (stdin_prop && stdin_key && !stdin_key->is_null() && !stdin_flag) __builtin_trap();
  // The argv read back as a repair's would be.
  (void)mcp::argv_to_arguments(tool, argv, kRoot, kRoot, stdin_data);
  return 0;
}
