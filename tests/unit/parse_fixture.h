// parse_fixture.h — the table the parser's unit tests parse against, and their helpers
// (contract_parse_test.cpp, contract_parse_values_test.cpp).
#pragma once

#include "contract/parse.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace parse_fixture {

using contract::Kind;
using contract::kMany;
using contract::Parsed;
using contract::Repair;

struct TestArgs {
  bool ignore_case = false, word = false, mount = false, quiet = false, verbose = false,
       help = false;
  uint64_t count = 0;
  std::optional<uint64_t> max;
  std::string format;
  contract::Span lines, bytes;
  std::vector<std::string> exclude;
  std::optional<std::string> output;
  std::string pattern;
  std::vector<std::string> paths;
};

using F = contract::Flag<TestArgs>;
using O = contract::Operand<TestArgs>;

constexpr F kFlags[] = {
    {.name = "ignore-case", .short_name = 'i', .kind = Kind::Bool, .bind = &TestArgs::ignore_case,
     .help = "fold case"},
    {.name = "word", .short_name = 'w', .kind = Kind::Bool, .bind = &TestArgs::word,
     .help = "whole words"},
    {.name = "count", .short_name = 'n', .kind = Kind::Nat, .bind = &TestArgs::count,
     .value_name = "N", .fallback = "10", .ceiling = 1000, .floor = 1, .help = "how many",
     .limit = true},
    {.name = "max", .kind = Kind::Nat, .bind = &TestArgs::max, .value_name = "N",
     .help = "no ceiling"},
    {.name = "format", .kind = Kind::Choice, .bind = &TestArgs::format, .value_name = "FORMAT",
     .choices = "json|text", .help = "the format"},
    {.name = "lines", .short_name = 'l', .kind = Kind::Range, .bind = &TestArgs::lines,
     .value_name = "A:B", .excludes = "bytes", .help = "line range"},
    {.name = "bytes", .short_name = 'c', .kind = Kind::Range, .bind = &TestArgs::bytes,
     .value_name = "A:B", .excludes = "lines", .help = "byte range"},
    {.name = "exclude", .short_name = 'x', .kind = Kind::List, .bind = &TestArgs::exclude,
     .value_name = "GLOB", .help = "skip these"},
    {.name = "output", .short_name = 'o', .kind = Kind::Text, .bind = &TestArgs::output,
     .value_name = "TEXT", .help = "some text"},
    {.name = "quiet", .short_name = 'q', .kind = Kind::Bool, .bind = &TestArgs::quiet,
     .excludes = "verbose", .help = "say less"},
    {.name = "verbose", .short_name = 'v', .kind = Kind::Bool, .bind = &TestArgs::verbose,
     .help = "say more"},
    {.name = "mount", .kind = Kind::Bool, .bind = &TestArgs::mount, .help = "ties with count"},
    {.name = "help", .short_name = 'h', .kind = Kind::Bool, .bind = &TestArgs::help,
     .help = "print help"},
};

constexpr O kOperands[] = {
    {.name = "PATTERN", .role = contract::Role::Pattern, .bind = &TestArgs::pattern,
     .help = "what to look for"},
    {.name = "PATH", .min = 0, .max = kMany, .bind = &TestArgs::paths, .help = "where"},
};

static_assert(contract::valid<TestArgs>(kFlags, kOperands));

enum : size_t { kIgnoreCase, kWord, kCount, kMax, kFormat, kLines, kBytes, kExclude, kOutput,
                kQuiet, kVerbose, kMount, kHelp };

inline std::vector<contract::FlagInfo> flags() {
  std::vector<contract::FlagInfo> v;
  for (auto& f : kFlags) v.push_back(contract::info(f));
  return v;
}

inline std::vector<contract::OperandInfo> operands() {
  std::vector<contract::OperandInfo> v;
  for (auto& o : kOperands) v.push_back(contract::info(o));
  return v;
}

using Argv = std::vector<std::string>;

inline Parsed parse(const Argv& argv) { return contract::parse_argv(argv, flags(), operands()); }

inline Parsed parse_ops(const Argv& argv, std::vector<contract::OperandInfo> ops) {
  return contract::parse_argv(argv, flags(), ops);
}

inline std::vector<std::string> rules(const Parsed& p) {
  std::vector<std::string> r;
  for (auto& e : p.errors) r.emplace_back(e.rule);
  return r;
}

// The values recorded for flag `idx`, in argv order.
inline std::vector<const contract::Value*> values_of(const Parsed& p, size_t idx) {
  std::vector<const contract::Value*> out;
  for (auto& [i, v] : p.values)
    if (i == idx) out.push_back(&v);
  return out;
}

inline const contract::Value* value_of(const Parsed& p, size_t idx) {
  auto v = values_of(p, idx);
  return v.size() == 1 ? v[0] : nullptr;
}

inline std::vector<std::string> operand_values(const Parsed& p, size_t spec) {
  std::vector<std::string> out;
  for (auto& o : p.operands)
    if (o.spec == spec) out.push_back(o.value);
  return out;
}

inline std::string detail_str(const contract::Error& e, std::string_view key) {
  const contract::Json* j = e.detail.get(key);
  return j ? j->str() : std::string("<absent>");
}

inline std::string errors_dump(const Parsed& p) {
  std::string s;
  for (auto& e : p.errors) s += e.to_json().dump() + "\n";
  return s;
}

}  // namespace parse_fixture
