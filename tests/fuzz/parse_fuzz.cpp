// fuzz-sources: src/contract/parse.cpp src/contract/error.cpp src/contract/json.cpp
// libFuzzer target: the flag parser. Any argv (split from the input at NUL bytes) must parse
// into values and tagged errors, never crash; every unknown-flag retry must parse without
// the error it repairs.
#include <cstdint>
#include <string>
#include <vector>

#include "contract/parse.h"

namespace {

using contract::FlagInfo;
using contract::Kind;
using contract::OperandInfo;
using contract::Role;

const std::vector<FlagInfo> kFlags = {
    {"lines", 'n', Kind::Range, Role::None, "A:B", "1:100", 0, 0, "", "bytes", "lines", false},
    {"bytes", 'c', Kind::Range, Role::None, "A:B", "", 0, 0, "", "lines", "bytes", false},
    {"max-bytes", 0, Kind::Nat, Role::None, "N", "65536", 16777216, 1, "", "", "cap", true},
    {"ignore-case", 'i', Kind::Bool, Role::None, "", "", 0, 0, "", "", "fold", false},
    {"word", 'w', Kind::Bool, Role::None, "", "", 0, 0, "", "", "word", false},
    {"glob", 'g', Kind::List, Role::None, "G", "", 0, 0, "", "", "glob", false},
    {"format", 0, Kind::Choice, Role::Format, "F", "json", 0, 0, "json|text", "", "format", false},
    {"root", 0, Kind::Path, Role::Root, "DIR", "", 0, 0, "", "", "root", false},
};
const std::vector<OperandInfo> kOperands = {
    {"PATTERN", Role::Pattern, 1, 1, "pattern", false},
    {"PATH", Role::PathRead, 0, contract::kMany, "paths", true},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> argv = {"t"};
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      argv.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(data[i]);
    }
  }
  argv.push_back(cur);
  contract::Parsed p = contract::parse_argv(argv, kFlags, kOperands);
  for (auto& e : p.errors) {
    if (!contract::find_rule(e.rule)) __builtin_trap();
    if (e.rule == "args.unknown-flag" && e.repair.kind == contract::Repair::Kind::Retry) {
      contract::Parsed again = contract::parse_argv(e.repair.argvs[0], kFlags, kOperands);
      if (again.errors.size() + 1 != p.errors.size()) __builtin_trap();
    }
  }
  for (auto& f : kFlags) (void)contract::remove_flag(argv, kFlags, f.name);
  return 0;
}
