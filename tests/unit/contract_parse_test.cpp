// contract_parse_test.cpp — phase one of the parser (parse.h): tokens against a table, every
// problem collected as a tagged argument error (CONTRACT.md §3), repairs that run as they
// stand, remove_flag for repairs that change one flag, and the "did you mean" distance.

#include "contract/parse.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace {

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

std::vector<contract::FlagInfo> flags() {
  std::vector<contract::FlagInfo> v;
  for (auto& f : kFlags) v.push_back(contract::info(f));
  return v;
}

std::vector<contract::OperandInfo> operands() {
  std::vector<contract::OperandInfo> v;
  for (auto& o : kOperands) v.push_back(contract::info(o));
  return v;
}

using Argv = std::vector<std::string>;

Parsed parse(const Argv& argv) { return contract::parse_argv(argv, flags(), operands()); }

Parsed parse_ops(const Argv& argv, std::vector<contract::OperandInfo> ops) {
  return contract::parse_argv(argv, flags(), ops);
}

std::vector<std::string> rules(const Parsed& p) {
  std::vector<std::string> r;
  for (auto& e : p.errors) r.emplace_back(e.rule);
  return r;
}

// The values recorded for flag `idx`, in argv order.
std::vector<const contract::Value*> values_of(const Parsed& p, size_t idx) {
  std::vector<const contract::Value*> out;
  for (auto& [i, v] : p.values)
    if (i == idx) out.push_back(&v);
  return out;
}

const contract::Value* value_of(const Parsed& p, size_t idx) {
  auto v = values_of(p, idx);
  return v.size() == 1 ? v[0] : nullptr;
}

std::vector<std::string> operand_values(const Parsed& p, size_t spec) {
  std::vector<std::string> out;
  for (auto& o : p.operands)
    if (o.spec == spec) out.push_back(o.value);
  return out;
}

std::string detail_str(const contract::Error& e, std::string_view key) {
  const contract::Json* j = e.detail.get(key);
  return j ? j->str() : std::string("<absent>");
}

std::string errors_dump(const Parsed& p) {
  std::string s;
  for (auto& e : p.errors) s += e.to_json().dump() + "\n";
  return s;
}

// ---------------------------------------------------------------- value spellings

TEST(ContractParse, LongFlagWithEqualsAndSeparateValue) {
  Parsed p = parse({"t", "--count=5", "--output", "hello", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  auto* c = value_of(p, kCount);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->nat, 5u);
  EXPECT_EQ(c->text, "5");
  EXPECT_EQ(c->token, 1u);
  EXPECT_EQ(c->token_prefix, "--count=");
  auto* o = value_of(p, kOutput);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->text, "hello");
  EXPECT_EQ(o->token, 3u);  // the value's own token
  EXPECT_EQ(o->token_prefix, "");
  EXPECT_EQ(operand_values(p, 0), Argv{"pat"});
  EXPECT_TRUE(operand_values(p, 1).empty());
}

TEST(ContractParse, TextValueEdgeCases) {
  Parsed p = parse({"t", "--output", "--word", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  ASSERT_NE(value_of(p, kOutput), nullptr);
  EXPECT_EQ(value_of(p, kOutput)->text, "--word");
  EXPECT_TRUE(values_of(p, kWord).empty());

  p = parse({"t", "--output=", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  ASSERT_NE(value_of(p, kOutput), nullptr);
  EXPECT_EQ(value_of(p, kOutput)->text, "");

  p = parse({"t", "--output=a=b", "pat"});
  ASSERT_NE(value_of(p, kOutput), nullptr);
  EXPECT_EQ(value_of(p, kOutput)->text, "a=b");
}

TEST(ContractParse, ShortFlagAttachedAndSeparate) {
  Parsed p = parse({"t", "-n5", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  ASSERT_NE(value_of(p, kCount), nullptr);
  EXPECT_EQ(value_of(p, kCount)->nat, 5u);
  EXPECT_EQ(value_of(p, kCount)->token, 1u);
  EXPECT_EQ(value_of(p, kCount)->token_prefix, "-n");

  p = parse({"t", "-n", "5", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  ASSERT_NE(value_of(p, kCount), nullptr);
  EXPECT_EQ(value_of(p, kCount)->nat, 5u);
  EXPECT_EQ(value_of(p, kCount)->token, 2u);
  EXPECT_EQ(value_of(p, kCount)->token_prefix, "");
  EXPECT_EQ(operand_values(p, 0), Argv{"pat"});

  // A negative range as a separate value is a value, not a flag.
  p = parse({"t", "-l", "-10:", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  ASSERT_NE(value_of(p, kLines), nullptr);
  EXPECT_EQ(value_of(p, kLines)->span.from, -10);
  EXPECT_TRUE(value_of(p, kLines)->span.open_end);
}

TEST(ContractParse, BundledBooleans) {
  Parsed p = parse({"t", "-iw", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_NE(value_of(p, kIgnoreCase), nullptr);
  EXPECT_NE(value_of(p, kWord), nullptr);
  EXPECT_EQ(operand_values(p, 0), Argv{"pat"});

  // Booleans then a value flag: the rest of the token, or the next token, is its value.
  p = parse({"t", "-iwn7", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_NE(value_of(p, kIgnoreCase), nullptr);
  EXPECT_NE(value_of(p, kWord), nullptr);
  ASSERT_NE(value_of(p, kCount), nullptr);
  EXPECT_EQ(value_of(p, kCount)->nat, 7u);
  EXPECT_EQ(value_of(p, kCount)->token_prefix, "-iwn");

  p = parse({"t", "-in", "8", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  ASSERT_NE(value_of(p, kCount), nullptr);
  EXPECT_EQ(value_of(p, kCount)->nat, 8u);
  EXPECT_EQ(operand_values(p, 0), Argv{"pat"});

  // A value flag first swallows the rest of the cluster.
  p = parse({"t", "-oiw", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  ASSERT_NE(value_of(p, kOutput), nullptr);
  EXPECT_EQ(value_of(p, kOutput)->text, "iw");
  EXPECT_EQ(value_of(p, kIgnoreCase), nullptr);
}

TEST(ContractParse, DoubleDashEndsFlags) {
  Parsed p = parse({"t", "-i", "--", "--count", "-w", "--", "-"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_NE(value_of(p, kIgnoreCase), nullptr);
  EXPECT_EQ(value_of(p, kWord), nullptr);
  EXPECT_EQ(value_of(p, kCount), nullptr);
  EXPECT_EQ(operand_values(p, 0), Argv{"--count"});
  EXPECT_EQ(operand_values(p, 1), (Argv{"-w", "--", "-"}));
  ASSERT_EQ(p.operands.size(), 4u);
  EXPECT_EQ(p.operands[0].token, 3u);
  EXPECT_EQ(p.operands[3].token, 6u);
}

TEST(ContractParse, LoneDashIsAnOperand) {
  Parsed p = parse({"t", "-", "-i", "-"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(operand_values(p, 0), Argv{"-"});
  EXPECT_EQ(operand_values(p, 1), Argv{"-"});
  EXPECT_NE(value_of(p, kIgnoreCase), nullptr);
  // The empty string is an operand too, never a flag.
  p = parse({"t", ""});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(operand_values(p, 0), Argv{""});
}

TEST(ContractParse, HelpIsNoticed) {
  Parsed p = parse({"t", "-h"});
  EXPECT_TRUE(p.help);
  p = parse({"t", "--help"});
  EXPECT_TRUE(p.help);
  p = parse({"t", "pat"});
  EXPECT_FALSE(p.help);
}

// ---------------------------------------------------------------- unknown flags and retries

// Applies the error's retry and parses it: a retry must run as it stands (CONTRACT.md §3).
void expect_retry_clears(const contract::Error& e) {
  ASSERT_EQ(e.repair.kind, Repair::Kind::Retry);
  ASSERT_EQ(e.repair.argvs.size(), 1u);
  Parsed again = parse(e.repair.argvs[0]);
  EXPECT_TRUE(again.errors.empty()) << errors_dump(again);
}

// If the error offers a retry, that retry must clear it.
void expect_no_bad_retry(const Argv& argv) {
  Parsed p = parse(argv);
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  const auto& e = p.errors[0];
  if (e.repair.kind != Repair::Kind::Retry) return;
  ASSERT_EQ(e.repair.argvs.size(), 1u);
  Parsed again = parse(e.repair.argvs[0]);
  EXPECT_TRUE(again.errors.empty())
      << "the retry offered for an unknown flag does not run as it stands:\n"
      << e.repair.to_json().dump() << "\ngives\n"
      << errors_dump(again);
}

TEST(ContractParse, UnknownLongFlagUniqueNearestRetries) {
  Parsed p = parse({"t", "--cuont", "5", "pat"});  // transposition: distance 1
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  const auto& e = p.errors[0];
  EXPECT_EQ(e.exit(), contract::Exit::InvalidArgs);
  EXPECT_EQ(detail_str(e, "nearest"), "--count");
  ASSERT_TRUE(e.hint.has_value());
  EXPECT_NE(e.hint->find("--count"), std::string::npos);
  ASSERT_EQ(e.repair.kind, Repair::Kind::Retry);
  // Only that token changes.
  EXPECT_EQ(e.repair.argvs.at(0), (Argv{"t", "--count", "5", "pat"}));
  expect_retry_clears(e);
  // The value that followed was the unknown flag's, not an operand.
  EXPECT_EQ(operand_values(p, 0), Argv{"pat"});
  EXPECT_TRUE(operand_values(p, 1).empty());
}

TEST(ContractParse, UnknownLongFlagKeepsEqualsValue) {
  Parsed p = parse({"t", "-i", "--cuont=5", "pat", "a"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  ASSERT_EQ(p.errors[0].repair.kind, Repair::Kind::Retry);
  EXPECT_EQ(p.errors[0].repair.argvs.at(0), (Argv{"t", "-i", "--count=5", "pat", "a"}));
  expect_retry_clears(p.errors[0]);
  EXPECT_EQ(operand_values(p, 1), Argv{"a"});
}

TEST(ContractParse, UnknownLongFlagDistanceTwoRetries) {
  Parsed p = parse({"t", "--cxynt", "3", "pat"});  // two substitutions
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  ASSERT_EQ(p.errors[0].repair.kind, Repair::Kind::Retry);
  EXPECT_EQ(p.errors[0].repair.argvs.at(0), (Argv{"t", "--count", "3", "pat"}));
  expect_retry_clears(p.errors[0]);

  p = parse({"t", "--ignore-cas", "pat"});  // a boolean: the next token stays an operand
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  ASSERT_EQ(p.errors[0].repair.kind, Repair::Kind::Retry);
  EXPECT_EQ(p.errors[0].repair.argvs.at(0), (Argv{"t", "--ignore-case", "pat"}));
  EXPECT_EQ(operand_values(p, 0), Argv{"pat"});
  expect_retry_clears(p.errors[0]);
}

TEST(ContractParse, UnknownLongFlagTieHasNoRetry) {
  // "ount" is one edit from both "count" and "mount".
  Parsed p = parse({"t", "--ount", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  EXPECT_EQ(p.errors[0].repair.kind, Repair::Kind::Null);
  EXPECT_EQ(p.errors[0].detail.get("nearest"), nullptr);
  EXPECT_FALSE(p.errors[0].hint.has_value());
}

TEST(ContractParse, UnknownLongFlagDistanceThreeHasNoRetry) {
  Parsed p = parse({"t", "--cxyzt", "pat"});  // three substitutions from "count"
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  EXPECT_EQ(p.errors[0].repair.kind, Repair::Kind::Null);
  EXPECT_EQ(p.errors[0].detail.get("nearest"), nullptr);
  ASSERT_NE(p.errors[0].detail.get("flag"), nullptr);
  EXPECT_EQ(p.errors[0].detail.get("flag")->str(), "--cxyzt");
  // Without a nearest flag nothing is consumed: "pat" is still the pattern.
  EXPECT_EQ(operand_values(p, 0), Argv{"pat"});
}

TEST(ContractParse, UnknownLongFlagBeyondDistanceTwoAloneHasNoRetry) {
  // Distances past the cap all read as cap+1; with a single flag in the table there is no tie
  // to hide behind, so only the distance rule keeps "--cxyzt" from becoming "--count".
  std::vector<contract::FlagInfo> only = {contract::info(kFlags[kCount])};
  Parsed p = contract::parse_argv({"t", "--cxyzt", "pat"}, only, operands());
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  EXPECT_EQ(p.errors[0].repair.kind, Repair::Kind::Null);
  EXPECT_EQ(p.errors[0].detail.get("nearest"), nullptr);
  // ...while distance two still gets its retry.
  p = contract::parse_argv({"t", "--cxynt", "4", "pat"}, only, operands());
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  EXPECT_EQ(p.errors[0].repair.kind, Repair::Kind::Retry);
}

TEST(ContractParse, UnknownShortFlagInClusterGetsNoWholeTokenRetry) {
  // 'a' is one edit from the boolean long flag "ab", and "--ab pat" would parse cleanly: a
  // retry replacing the whole cluster "-iaw" by "--ab" would silently drop -i and -w.
  std::vector<contract::FlagInfo> fl = {contract::info(kFlags[kIgnoreCase]),
                                        contract::info(kFlags[kWord])};
  fl.push_back({"ab", 0, Kind::Bool, contract::Role::None, "", "", 0, 0, "", "", "h", false});
  Parsed p = contract::parse_argv({"t", "-iaw", "pat"}, fl, operands());
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  ASSERT_NE(p.errors[0].detail.get("flag"), nullptr);
  EXPECT_NE(p.errors[0].detail.get("flag")->str().find('a'), std::string::npos);
  if (p.errors[0].repair.kind == Repair::Kind::Retry) {
    Parsed again = contract::parse_argv(p.errors[0].repair.argvs.at(0), fl, operands());
    EXPECT_TRUE(again.errors.empty()) << errors_dump(again);
    EXPECT_NE(value_of(again, 0), nullptr) << "the retry dropped -i";
    EXPECT_NE(value_of(again, 1), nullptr) << "the retry dropped -w";
  }
}

TEST(ContractParse, UnknownShortFlag) {
  Parsed p = parse({"t", "-z", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  EXPECT_EQ(p.errors[0].exit(), contract::Exit::InvalidArgs);
  ASSERT_NE(p.errors[0].detail.get("flag"), nullptr);
  EXPECT_NE(p.errors[0].detail.get("flag")->str().find('z'), std::string::npos);

  p = parse({"t", "-izw", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
}

// A retry for an unknown flag must run as it stands and clear the error (CONTRACT.md §3).
TEST(ContractParse, UnknownFlagRetryWhenTheValueIsMissing) {
  expect_no_bad_retry({"t", "pat", "--cuont"});  // "--count" at the end has no value
}

TEST(ContractParse, UnknownFlagRetryWhenABooleanGetsAValue) {
  expect_no_bad_retry({"t", "--ignore-cas=yes", "pat"});  // "--ignore-case=yes"
}

TEST(ContractParse, UnknownFlagRetryWithABadValue) {
  expect_no_bad_retry({"t", "--cuont=abc", "pat"});  // "--count=abc"
}

TEST(ContractParse, UnknownFlagRetryThatWouldDuplicate) {
  expect_no_bad_retry({"t", "--count", "5", "--cuont", "6", "pat"});
}

TEST(ContractParse, UnknownShortFlagInClusterRetryKeepsTheCluster) {
  // 'a' is not a short flag; as a one-letter name it is within distance 2 of the long flag
  // "max". A retry that replaces the whole token "-iaw" by "--max" drops -i and -w and
  // makes "pat" the value of --max.
  Argv argv = {"t", "-iaw", "pat"};
  expect_no_bad_retry(argv);
  Parsed p = parse(argv);
  if (!p.errors.empty() && p.errors[0].repair.kind == Repair::Kind::Retry) {
    Parsed again = parse(p.errors[0].repair.argvs.at(0));
    EXPECT_NE(value_of(again, kIgnoreCase), nullptr) << "the retry dropped -i";
    EXPECT_NE(value_of(again, kWord), nullptr) << "the retry dropped -w";
  }
}

// ---------------------------------------------------------------- value errors

TEST(ContractParse, MissingValueAtTheEnd) {
  Parsed p = parse({"t", "pat", "--count"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.missing-value"}) << errors_dump(p);
  EXPECT_EQ(detail_str(p.errors[0], "flag"), "count");
  p = parse({"t", "pat", "-n"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.missing-value"}) << errors_dump(p);
  p = parse({"t", "pat", "-in"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.missing-value"}) << errors_dump(p);
  EXPECT_NE(value_of(p, kIgnoreCase), nullptr);
}

TEST(ContractParse, BooleanWithValueIsUnexpected) {
  Parsed p = parse({"t", "--word=yes", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unexpected-value"}) << errors_dump(p);
  EXPECT_EQ(detail_str(p.errors[0], "flag"), "word");
  EXPECT_EQ(value_of(p, kWord), nullptr);
  p = parse({"t", "--word=", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unexpected-value"}) << errors_dump(p);
}

TEST(ContractParse, DuplicateFlag) {
  Parsed p = parse({"t", "--count", "5", "-n6", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.duplicate-flag"}) << errors_dump(p);
  EXPECT_EQ(detail_str(p.errors[0], "flag"), "count");
  p = parse({"t", "-i", "--ignore-case", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.duplicate-flag"}) << errors_dump(p);
  p = parse({"t", "-ii", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.duplicate-flag"}) << errors_dump(p);
  p = parse({"t", "--output", "a", "--output=b", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.duplicate-flag"}) << errors_dump(p);
  // Three times: two duplicates.
  p = parse({"t", "-w", "-w", "-w", "pat"});
  EXPECT_EQ(rules(p), (std::vector<std::string>{"args.duplicate-flag", "args.duplicate-flag"}));
}

TEST(ContractParse, ListFlagIsRepeatable) {
  Parsed p = parse({"t", "-x", "a", "--exclude=b", "-xc", "--exclude", "d", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  auto v = values_of(p, kExclude);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0]->text, "a");
  EXPECT_EQ(v[1]->text, "b");
  EXPECT_EQ(v[2]->text, "c");
  EXPECT_EQ(v[3]->text, "d");
}

TEST(ContractParse, ConflictOncePerPair) {
  // quiet declares verbose: one error.
  Parsed p = parse({"t", "-q", "-v", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.conflict"}) << errors_dump(p);
  // Given the other way round: still one.
  p = parse({"t", "--verbose", "--quiet", "pat"});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.conflict"}) << errors_dump(p);
  // Only one of them: none.
  p = parse({"t", "-q", "pat"});
  EXPECT_TRUE(p.errors.empty()) << errors_dump(p);
}

TEST(ContractParse, ConflictOncePerPairWhenBothDeclareIt) {
  // lines and bytes declare each other (as peek's --lines and --bytes do): the pair is one
  // conflict, reported once.
  Parsed p = parse({"t", "--lines", "1:5", "--bytes", "0:9", "pat"});
  EXPECT_EQ(rules(p), std::vector<std::string>{"args.conflict"}) << errors_dump(p);
}

// ---------------------------------------------------------------- Nat

TEST(ContractParse, NatRejectsEverythingButDecimalDigitsInRange) {
  const std::vector<std::string> bad = {
      "+5", "-5", " 5", "5 ", "5\n", "0x10", "1e3", "5.0", "", "five", "٥",
      "99999999999999999999",   // 20 digits
      "18446744073709551616",   // UINT64_MAX + 1
      "100000000000000000000",  // 21 digits
      "1001",                   // over the ceiling (1000)
      "0",                      // under the floor (1)
  };
  for (const auto& v : bad) {
    Parsed p = parse({"t", "--count=" + v, "pat"});
    ASSERT_EQ(rules(p), std::vector<std::string>{"args.bad-value"}) << "value [" << v << "]";
    const auto& e = p.errors[0];
    EXPECT_EQ(detail_str(e, "flag"), "count");
    ASSERT_NE(e.detail.get("value"), nullptr);
    EXPECT_EQ(e.detail.get("value")->str(), v);
    ASSERT_NE(e.detail.get("expected"), nullptr);
    EXPECT_FALSE(e.detail.get("expected")->str().empty());
  }
  // The limits say the range.
  Parsed p = parse({"t", "--count=1001", "pat"});
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].detail.get("expected")->str().find("1000"), std::string::npos);
}

TEST(ContractParse, NatAcceptsTheRange) {
  for (auto [text, want] : std::vector<std::pair<std::string, uint64_t>>{
           {"1", 1}, {"1000", 1000}, {"999", 999}, {"007", 7}}) {
    Parsed p = parse({"t", "-n", text, "pat"});
    ASSERT_TRUE(p.errors.empty()) << text << "\n" << errors_dump(p);
    ASSERT_NE(value_of(p, kCount), nullptr);
    EXPECT_EQ(value_of(p, kCount)->nat, want) << text;
  }
  Parsed p = parse({"t", "--max", "0", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(value_of(p, kMax)->nat, 0u);
  p = parse({"t", "--max", "9999999999999999999", "pat"});  // 19 digits
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(value_of(p, kMax)->nat, 9999999999999999999ull);
  p = parse({"t", "--max", "18446744073709551616", "pat"});
  EXPECT_EQ(rules(p), std::vector<std::string>{"args.bad-value"});
}

TEST(ContractParse, NatWithoutCeilingAcceptsUint64Max) {
  // With no ceiling the error message itself says "a whole number from 0 to
  // 18446744073709551615", so that number must be accepted.
  Parsed p = parse({"t", "--max", "18446744073709551615", "pat"});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  ASSERT_NE(value_of(p, kMax), nullptr);
  EXPECT_EQ(value_of(p, kMax)->nat, UINT64_MAX);
  p = parse({"t", "--max", "10000000000000000000", "pat"});  // 20 digits, < UINT64_MAX
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(value_of(p, kMax)->nat, 10000000000000000000ull);
}

// ---------------------------------------------------------------- Choice

TEST(ContractParse, Choice) {
  for (std::string ok : {"json", "text"}) {
    Parsed p = parse({"t", "--format", ok, "pat"});
    ASSERT_TRUE(p.errors.empty()) << ok << errors_dump(p);
    EXPECT_EQ(value_of(p, kFormat)->text, ok);
  }
  for (std::string bad : {"JSON", "", "jso", "jsonx", "json|text", "|", "text ", "ndjson"}) {
    Parsed p = parse({"t", "--format=" + bad, "pat"});
    ASSERT_EQ(rules(p), std::vector<std::string>{"args.bad-value"}) << "[" << bad << "]";
    EXPECT_EQ(p.errors[0].detail.get("expected")->str(), "one of json,text");
  }
}

// ---------------------------------------------------------------- Range

TEST(ContractParse, RangeForms) {
  struct Case {
    std::string text;
    std::optional<int64_t> from, to;
    bool open_end;
  };
  const Case good[] = {
      {"5", 5, 5, false},   {"5:", 5, std::nullopt, true},  {":5", std::nullopt, 5, false},
      {"-3:", -3, std::nullopt, true}, {"2:9", 2, 9, false}, {"-10:-1", -10, -1, false},
      {"0:0", 0, 0, false}, {"-7", -7, -7, false},
  };
  for (const auto& c : good) {
    Parsed p = parse({"t", "--lines=" + c.text, "pat"});
    ASSERT_TRUE(p.errors.empty()) << c.text << "\n" << errors_dump(p);
    const contract::Value* v = value_of(p, kLines);
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(v->span.given) << c.text;
    EXPECT_EQ(v->span.from, c.from) << c.text;
    EXPECT_EQ(v->span.to, c.to) << c.text;
    EXPECT_EQ(v->span.open_end, c.open_end) << c.text;
  }
  for (std::string bad : {"a:b", ":", "", "1:2:3", "-", "--3", "+3", "3:x", "x", " 1", "1 :2",
                          "0x1", "99999999999999999999:"}) {
    Parsed p = parse({"t", "--lines=" + bad, "pat"});
    ASSERT_EQ(rules(p), std::vector<std::string>{"args.bad-value"}) << "[" << bad << "]";
    EXPECT_EQ(value_of(p, kLines), nullptr);
  }
}

// ---------------------------------------------------------------- operands

contract::OperandInfo op(std::string_view name, size_t min, size_t max) {
  return {name, contract::Role::PathRead, min, max, "h", false};
}

TEST(ContractParse, MissingOperand) {
  Parsed p = parse_ops({"t"}, {op("A", 1, 1)});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.missing-operand"});
  EXPECT_EQ(detail_str(p.errors[0], "operand"), "A");
  EXPECT_EQ(p.errors[0].exit(), contract::Exit::InvalidArgs);

  p = parse_ops({"t", "a"}, {op("A", 2, 3)});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.missing-operand"});
  EXPECT_EQ(detail_str(p.errors[0], "operand"), "A");

  p = parse_ops({"t"}, {op("A", 1, 1), op("B", 1, kMany)});
  ASSERT_FALSE(p.errors.empty());
  EXPECT_EQ(p.errors[0].rule, "args.missing-operand");
  EXPECT_EQ(detail_str(p.errors[0], "operand"), "A");
}

TEST(ContractParse, MissingOperandNamesTheOneNotGiven) {
  // `seek PATTERN PATH...` given only a pattern: the pattern is there, the PATH is missing.
  Parsed p = parse_ops({"t", "foo"}, {op("PATTERN", 1, 1), op("PATH", 1, kMany)});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.missing-operand"});
  EXPECT_EQ(detail_str(p.errors[0], "operand"), "PATH") << errors_dump(p);
}

TEST(ContractParse, TooManyOperands) {
  Parsed p = parse_ops({"t", "a", "b", "c"}, {op("A", 1, 1)});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.too-many-operands"});
  EXPECT_EQ(detail_str(p.errors[0], "operand"), "b");
  p = parse_ops({"t", "a"}, {});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.too-many-operands"});
  p = parse_ops({"t", "a", "b", "c"}, {op("A", 0, 1), op("B", 1, 1)});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.too-many-operands"});
  EXPECT_EQ(detail_str(p.errors[0], "operand"), "c");
}

TEST(ContractParse, OperandDistribution) {
  auto spread = [](const Parsed& p, size_t nspecs) {
    std::vector<Argv> out(nspecs);
    for (auto& o : p.operands) out.at(o.spec).push_back(o.value);
    return out;
  };
  // An optional operand before a required one is filled only when there is enough.
  std::vector<contract::OperandInfo> opt_req = {op("A", 0, 1), op("B", 1, 1)};
  Parsed p = parse_ops({"t", "x"}, opt_req);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(spread(p, 2), (std::vector<Argv>{{}, {"x"}}));
  p = parse_ops({"t", "x", "y"}, opt_req);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(spread(p, 2), (std::vector<Argv>{{"x"}, {"y"}}));

  // min/max with an unbounded last operand.
  std::vector<contract::OperandInfo> two_three_many = {op("A", 2, 3), op("B", 0, kMany)};
  p = parse_ops({"t", "a", "b"}, two_three_many);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(spread(p, 2), (std::vector<Argv>{{"a", "b"}, {}}));
  p = parse_ops({"t", "a", "b", "c"}, two_three_many);
  EXPECT_EQ(spread(p, 2), (std::vector<Argv>{{"a", "b", "c"}, {}}));
  p = parse_ops({"t", "a", "b", "c", "d", "e"}, two_three_many);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(spread(p, 2), (std::vector<Argv>{{"a", "b", "c"}, {"d", "e"}}));

  std::vector<contract::OperandInfo> one_one_many = {op("A", 1, 1), op("B", 1, 1),
                                                     op("C", 0, kMany)};
  p = parse_ops({"t", "a", "b"}, one_one_many);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(spread(p, 3), (std::vector<Argv>{{"a"}, {"b"}, {}}));
  p = parse_ops({"t", "a", "-i", "b", "c", "--", "-d"}, one_one_many);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(spread(p, 3), (std::vector<Argv>{{"a"}, {"b"}, {"c", "-d"}}));
  ASSERT_EQ(p.operands.size(), 4u);
  EXPECT_EQ(p.operands[1].token, 3u);
  EXPECT_EQ(p.operands[3].token, 6u);

  std::vector<contract::OperandInfo> one_many = {op("A", 1, 1), op("B", 1, kMany)};
  p = parse_ops({"t", "a", "b", "c", "d"}, one_many);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(spread(p, 2), (std::vector<Argv>{{"a"}, {"b", "c", "d"}}));
}

// ---------------------------------------------------------------- all errors collected

TEST(ContractParse, AllErrorsCollectedInArgvOrder) {
  Parsed p = parse({"t", "--lines=x", "--count", "0", "--format", "yaml", "pat"});
  ASSERT_EQ(rules(p), (std::vector<std::string>{"args.bad-value", "args.bad-value",
                                                 "args.bad-value"}))
      << errors_dump(p);
  EXPECT_EQ(detail_str(p.errors[0], "flag"), "lines");
  EXPECT_EQ(detail_str(p.errors[1], "flag"), "count");
  EXPECT_EQ(detail_str(p.errors[2], "flag"), "format");

  p = parse({"t", "--bogus", "--word=1", "-n", "x", "-z", "-i", "-i", "pat", "--output"});
  EXPECT_EQ(rules(p), (std::vector<std::string>{"args.unknown-flag", "args.unexpected-value",
                                                 "args.bad-value", "args.unknown-flag",
                                                 "args.duplicate-flag", "args.missing-value"}))
      << errors_dump(p);

  // Flag errors and a missing operand together.
  p = parse({"t", "--count=abc"});
  EXPECT_EQ(rules(p), (std::vector<std::string>{"args.bad-value", "args.missing-operand"}))
      << errors_dump(p);
}

// Too many operands is independent of a bad flag value (nothing is consumed differently), so
// both are reported (CONTRACT.md §3: "All independent errors are reported").
TEST(ContractParse, TooManyOperandsReportedAlongsideABadValue) {
  Parsed p = parse_ops({"t", "--count=0", "a", "b"}, {op("A", 1, 1)});
  EXPECT_EQ(rules(p), (std::vector<std::string>{"args.bad-value", "args.too-many-operands"}))
      << errors_dump(p);
}

// ---------------------------------------------------------------- remove_flag

Argv removed(const Argv& argv, std::string_view name) {
  return contract::remove_flag(argv, flags(), name);
}

TEST(ContractParse, RemoveFlagEverySpelling) {
  EXPECT_EQ(removed({"t", "--count", "5", "p"}, "count"), (Argv{"t", "p"}));
  EXPECT_EQ(removed({"t", "--count=5", "p"}, "count"), (Argv{"t", "p"}));
  EXPECT_EQ(removed({"t", "-n", "5", "p"}, "count"), (Argv{"t", "p"}));
  EXPECT_EQ(removed({"t", "-n5", "p"}, "count"), (Argv{"t", "p"}));
  EXPECT_EQ(removed({"t", "p", "--word"}, "word"), (Argv{"t", "p"}));
  EXPECT_EQ(removed({"t", "-w", "p"}, "word"), (Argv{"t", "p"}));
  // Every occurrence of a repeatable flag.
  EXPECT_EQ(removed({"t", "-x", "a", "p", "--exclude=b", "-xc", "--exclude", "d"}, "exclude"),
            (Argv{"t", "p"}));
  // A value flag at the very end with no value.
  EXPECT_EQ(removed({"t", "p", "--count"}, "count"), (Argv{"t", "p"}));
  EXPECT_EQ(removed({"t"}, "count"), (Argv{"t"}));
  EXPECT_EQ(removed({}, "count"), (Argv{}));
}

TEST(ContractParse, RemoveFlagKeepsEverythingAfterDoubleDash) {
  EXPECT_EQ(removed({"t", "--count", "5", "--", "--count", "6", "-n7"}, "count"),
            (Argv{"t", "--", "--count", "6", "-n7"}));
  EXPECT_EQ(removed({"t", "--", "--count=5"}, "count"), (Argv{"t", "--", "--count=5"}));
  // A "--" that is a flag's value does not end the flags.
  EXPECT_EQ(removed({"t", "--output", "--", "--count", "5", "p"}, "count"),
            (Argv{"t", "--output", "--", "p"}));
}

TEST(ContractParse, RemoveFlagKeepsOtherFlagsAndTheirValues) {
  EXPECT_EQ(removed({"t", "--lines", "1:5", "-i", "--count", "5", "--format", "json", "-o", "x",
                     "-", "p"},
                    "count"),
            (Argv{"t", "--lines", "1:5", "-i", "--format", "json", "-o", "x", "-", "p"}));
  // A value that spells the removed flag belongs to the flag before it.
  EXPECT_EQ(removed({"t", "--output", "--count", "p"}, "count"),
            (Argv{"t", "--output", "--count", "p"}));
  EXPECT_EQ(removed({"t", "-o", "-n5", "p"}, "count"), (Argv{"t", "-o", "-n5", "p"}));
  // Unknown flags are left alone.
  EXPECT_EQ(removed({"t", "--bogus", "p", "--count=1"}, "count"), (Argv{"t", "--bogus", "p"}));
  // Removing a flag that is not there changes nothing.
  EXPECT_EQ(removed({"t", "-iw", "-n", "5", "p"}, "format"), (Argv{"t", "-iw", "-n", "5", "p"}));
}

TEST(ContractParse, RemoveFlagReadsClustersAsTheParserDoes) {
  // "-io" is -i then -o, whose value is the next token "--count": nothing to remove.
  Argv argv = {"t", "-io", "--count", "p"};
  Parsed p = parse(argv);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  ASSERT_EQ(value_of(p, kCount), nullptr);
  EXPECT_EQ(removed(argv, "count"), argv);
}

TEST(ContractParse, RemoveFlagInsideACluster) {
  // remove_flag promises an argv without any occurrence of the flag; -n5 inside "-in5" is one.
  Argv out = removed({"t", "-in5", "p"}, "count");
  Parsed p = parse(out);
  EXPECT_EQ(value_of(p, kCount), nullptr) << "still there: " << ::testing::PrintToString(out);
  EXPECT_NE(value_of(p, kIgnoreCase), nullptr) << ::testing::PrintToString(out);
}

// ---------------------------------------------------------------- edit_distance

TEST(ContractParse, EditDistance) {
  using contract::edit_distance;
  EXPECT_EQ(edit_distance("", "", 2), 0u);
  EXPECT_EQ(edit_distance("count", "count", 2), 0u);
  EXPECT_EQ(edit_distance("count", "cont", 2), 1u);     // deletion
  EXPECT_EQ(edit_distance("cont", "count", 2), 1u);     // insertion
  EXPECT_EQ(edit_distance("count", "cxunt", 2), 1u);    // substitution
  EXPECT_EQ(edit_distance("count", "cuont", 2), 1u);    // transposition
  EXPECT_EQ(edit_distance("ab", "ba", 2), 1u);
  EXPECT_EQ(edit_distance("count", "ocunt", 2), 1u);    // transposition at the start
  EXPECT_EQ(edit_distance("count", "coutn", 2), 1u);    // transposition at the end
  EXPECT_EQ(edit_distance("count", "ocutn", 5), 2u);    // two transpositions
  EXPECT_EQ(edit_distance("kitten", "sitting", 5), 3u);
  EXPECT_EQ(edit_distance("", "abc", 5), 3u);
  EXPECT_EQ(edit_distance("abc", "", 5), 3u);
  EXPECT_EQ(edit_distance("ca", "abc", 5), 3u);  // optimal string alignment, not full D-L
  // Capped: anything past the cap is cap+1.
  EXPECT_EQ(edit_distance("count", "cxyzt", 2), 3u);
  EXPECT_EQ(edit_distance("a", "abcdef", 2), 3u);
  EXPECT_EQ(edit_distance("abcdef", "ghijkl", 2), 3u);
  EXPECT_EQ(edit_distance("abcdef", "ghijkl", 10), 6u);
  EXPECT_EQ(edit_distance("abc", "abd", 0), 1u);
  // Symmetric.
  for (auto [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"ignore-case", "ingore-case"}, {"max-count", "maxcount"}, {"x", "yz"}}) {
    EXPECT_EQ(edit_distance(a, b, 4), edit_distance(b, a, 4)) << a << " " << b;
  }
}

}  // namespace
