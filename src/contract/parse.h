// parse.h — phase one of the parser: tokens against the table, no I/O. Every problem becomes
// an argument error; parsing goes on so that all of them are reported at once.
#pragma once

#include <string>
#include <vector>

#include "contract/context.h"
#include "contract/error.h"
#include "contract/table.h"

namespace contract {

struct ParsedOperand {
  size_t spec;  // index into the operand table
  std::string value;
  size_t token;
};

struct Parsed {
  std::vector<std::pair<size_t, Value>> values;  // (flag index, value) in argv order
  std::vector<ParsedOperand> operands;
  std::vector<Error> errors;
  bool help = false, version = false;
};

Parsed parse_argv(const std::vector<std::string>& argv, const std::vector<FlagInfo>& flags,
                  const std::vector<OperandInfo>& operands);

// Parses `text` as a value of flag `f`; on failure returns the reason (for args.bad-value).
std::optional<std::string> parse_value(const FlagInfo& f, std::string_view text, Value& out);

// The argv without any occurrence of flag `name` (and its value), up to a "--".
std::vector<std::string> remove_flag(const std::vector<std::string>& argv,
                                     const std::vector<FlagInfo>& flags, std::string_view name);

// Optimal-string-alignment distance, capped: returns cap+1 when larger.
size_t edit_distance(std::string_view a, std::string_view b, size_t cap);

}  // namespace contract
