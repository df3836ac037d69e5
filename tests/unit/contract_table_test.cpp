// contract_table_test.cpp — the static table's invariants (table.h: contract::valid, checked at
// compile time by every tool) and the shared rule catalogue (error.h) against CONTRACT.md §2
// and §3.

#include "contract/error.h"
#include "contract/table.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>
#include <string>

namespace {

using contract::Exit;
using contract::Kind;
using contract::kMany;

// ---------------------------------------------------------------- table invariants

struct A {
  bool b = false;
  uint64_t n = 0;
  std::string s;
  std::vector<std::string> list;
  contract::Span span;
  std::string op1;
  std::vector<std::string> rest;
};

using F = contract::Flag<A>;
using O = contract::Operand<A>;
using Flags = std::array<F, 5>;
using Ops = std::array<O, 2>;

constexpr Flags kGoodFlags = {{
    {.name = "word", .short_name = 'w', .kind = Kind::Bool, .bind = &A::b, .help = "whole words"},
    {.name = "max-count", .short_name = 'm', .kind = Kind::Nat, .bind = &A::n, .value_name = "N",
     .fallback = "100", .ceiling = 1000, .floor = 1, .help = "stop after N", .limit = true},
    {.name = "format", .kind = Kind::Choice, .bind = &A::s, .value_name = "FORMAT",
     .choices = "json|text", .help = "the format"},
    {.name = "exclude", .short_name = 'x', .kind = Kind::List, .bind = &A::list,
     .value_name = "GLOB", .help = "skip"},
    {.name = "lines2", .short_name = 'n', .kind = Kind::Range, .bind = &A::span,
     .value_name = "A:B", .excludes = "word", .help = "a range"},
}};

constexpr Ops kGoodOps = {{
    {.name = "PATTERN", .role = contract::Role::Pattern, .bind = &A::op1, .help = "what"},
    {.name = "PATH", .min = 0, .max = kMany, .bind = &A::rest, .help = "where"},
}};

template <class Mutate>
constexpr bool valid_with(Mutate m) {
  Flags f = kGoodFlags;
  Ops o = kGoodOps;
  m(f, o);
  return contract::valid<A>(f, o);
}

constexpr bool kGood = contract::valid<A>(kGoodFlags, kGoodOps);
static_assert(kGood, "the reference table is valid");

// Each broken variant, at compile time.
constexpr auto kDuplicateName = [](Flags& f, Ops&) { f[2].name = "word"; };
constexpr auto kDuplicateShort = [](Flags& f, Ops&) { f[3].short_name = 'w'; };
constexpr auto kValueWithoutName = [](Flags& f, Ops&) { f[3].value_name = ""; };
constexpr auto kBoolWithValueName = [](Flags& f, Ops&) { f[0].value_name = "X"; };
constexpr auto kEmptyHelp = [](Flags& f, Ops&) { f[2].help = ""; };
constexpr auto kLimitWithoutCeiling = [](Flags& f, Ops&) { f[1].ceiling = 0; };
constexpr auto kLimitWithoutDefault = [](Flags& f, Ops&) { f[1].fallback = ""; };
constexpr auto kLimitNotNat = [](Flags& f, Ops&) { f[3].limit = true; };
constexpr auto kDefaultOverCeiling = [](Flags& f, Ops&) { f[1].fallback = "1001"; };
constexpr auto kDefaultUnderFloor = [](Flags& f, Ops&) { f[1].fallback = "0"; };
constexpr auto kDefaultNotANumber = [](Flags& f, Ops&) { f[1].fallback = "ten"; };
constexpr auto kCeilingUnderFloor = [](Flags& f, Ops&) {
  f[1].limit = false;
  f[1].fallback = "";
  f[1].floor = 10;
  f[1].ceiling = 5;
};
constexpr auto kUpperCase = [](Flags& f, Ops&) { f[2].name = "Format"; };
constexpr auto kUnderscore = [](Flags& f, Ops&) { f[1].name = "max_count"; };
constexpr auto kSpace = [](Flags& f, Ops&) { f[1].name = "max count"; };
constexpr auto kEmptyName = [](Flags& f, Ops&) { f[2].name = ""; };
constexpr auto kEqualsInName = [](Flags& f, Ops&) { f[2].name = "for=mat"; };
constexpr auto kChoiceWithoutChoices = [](Flags& f, Ops&) { f[2].choices = ""; };
constexpr auto kFlagUnbound = [](Flags& f, Ops&) { f[0].bind = {}; };
constexpr auto kUnboundedNotLast = [](Flags&, Ops& o) {
  o[0].max = kMany;
  o[0].bind = &A::rest;
};
constexpr auto kMaxUnderMin = [](Flags&, Ops& o) {
  o[1].min = 3;
  o[1].max = 2;
};
constexpr auto kOperandEmptyHelp = [](Flags&, Ops& o) { o[0].help = ""; };
constexpr auto kOperandEmptyName = [](Flags&, Ops& o) { o[1].name = ""; };
constexpr auto kOperandUnbound = [](Flags&, Ops& o) { o[0].bind = {}; };

static_assert(!valid_with(kDuplicateName));
static_assert(!valid_with(kDuplicateShort));
static_assert(!valid_with(kValueWithoutName));
static_assert(!valid_with(kBoolWithValueName));
static_assert(!valid_with(kEmptyHelp));
static_assert(!valid_with(kLimitWithoutCeiling));
static_assert(!valid_with(kLimitWithoutDefault));
static_assert(!valid_with(kLimitNotNat));
static_assert(!valid_with(kDefaultOverCeiling));
static_assert(!valid_with(kDefaultUnderFloor));
static_assert(!valid_with(kDefaultNotANumber));
static_assert(!valid_with(kCeilingUnderFloor));
static_assert(!valid_with(kUpperCase));
static_assert(!valid_with(kUnderscore));
static_assert(!valid_with(kSpace));
static_assert(!valid_with(kEmptyName));
static_assert(!valid_with(kEqualsInName));
static_assert(!valid_with(kChoiceWithoutChoices));
static_assert(!valid_with(kFlagUnbound));
static_assert(!valid_with(kUnboundedNotLast));
static_assert(!valid_with(kMaxUnderMin));
static_assert(!valid_with(kOperandEmptyHelp));
static_assert(!valid_with(kOperandEmptyName));
static_assert(!valid_with(kOperandUnbound));
static_assert(!valid_with([](Flags& f, Ops&) { f[1].name = "-max"; }));
static_assert(!valid_with([](Flags& f, Ops&) { f[1].name = "max-"; }));
static_assert(!valid_with([](Flags& f, Ops&) { f[1].name = "max--count"; }));
static_assert(!valid_with([](Flags& f, Ops&) { f[1].name = "9max"; }));
// An operand skipped when a flag is given must name a flag of the table.
static_assert(!valid_with([](Flags&, Ops& o) { o[0].unless = "no-such-flag"; }));
static_assert(valid_with([](Flags& f, Ops& o) { o[0].unless = f[0].name; }));

TEST(ContractTable, AcceptsAGoodTable) {
  EXPECT_TRUE(kGood);
  EXPECT_TRUE(contract::valid<A>(kGoodFlags, kGoodOps));
  // Harmless variations stay valid: no short names, no operands, a fixed operand count, a
  // default at the ceiling or the floor, a Nat without ceiling that is not a limit.
  EXPECT_TRUE(valid_with([](Flags& f, Ops&) {
    for (auto& x : f) x.short_name = 0;
  }));
  EXPECT_TRUE(contract::valid<A>(kGoodFlags, std::span<const O>()));
  EXPECT_TRUE(contract::valid<A>(std::span<const F>(), kGoodOps));
  EXPECT_TRUE(valid_with([](Flags&, Ops& o) {
    o[1].min = 2;
    o[1].max = 2;
  }));
  EXPECT_TRUE(valid_with([](Flags& f, Ops&) { f[1].fallback = "1000"; }));
  EXPECT_TRUE(valid_with([](Flags& f, Ops&) { f[1].fallback = "1"; }));
  EXPECT_TRUE(valid_with([](Flags& f, Ops&) {
    f[1].limit = false;
    f[1].ceiling = 0;
    f[1].fallback = "";
  }));
  EXPECT_TRUE(valid_with([](Flags& f, Ops&) { f[1].name = "max-count2"; }));
}

TEST(ContractTable, RejectsEachBrokenVariant) {
  EXPECT_FALSE(valid_with(kDuplicateName));
  EXPECT_FALSE(valid_with(kDuplicateShort));
  EXPECT_FALSE(valid_with(kValueWithoutName));
  EXPECT_FALSE(valid_with(kBoolWithValueName));
  EXPECT_FALSE(valid_with(kEmptyHelp));
  EXPECT_FALSE(valid_with(kLimitWithoutCeiling));
  EXPECT_FALSE(valid_with(kLimitWithoutDefault));
  EXPECT_FALSE(valid_with(kLimitNotNat));
  EXPECT_FALSE(valid_with(kDefaultOverCeiling));
  EXPECT_FALSE(valid_with(kDefaultUnderFloor));
  EXPECT_FALSE(valid_with(kDefaultNotANumber));
  EXPECT_FALSE(valid_with(kCeilingUnderFloor));
  EXPECT_FALSE(valid_with(kUpperCase));
  EXPECT_FALSE(valid_with(kUnderscore));
  EXPECT_FALSE(valid_with(kSpace));
  EXPECT_FALSE(valid_with(kEmptyName));
  EXPECT_FALSE(valid_with(kEqualsInName));
  EXPECT_FALSE(valid_with(kChoiceWithoutChoices));
  EXPECT_FALSE(valid_with(kFlagUnbound));
  EXPECT_FALSE(valid_with(kUnboundedNotLast));
  EXPECT_FALSE(valid_with(kMaxUnderMin));
  EXPECT_FALSE(valid_with(kOperandEmptyHelp));
  EXPECT_FALSE(valid_with(kOperandEmptyName));
  EXPECT_FALSE(valid_with(kOperandUnbound));
  // A duplicate that is not adjacent, and a duplicate short on the last flag.
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[4].name = "word"; }));
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[4].short_name = 'm'; }));
}

// Kebab-case is lowercase words joined by single hyphens: no leading, trailing or doubled
// hyphen ("--" + "-max" would be spelled "---max"; "a--b" is two hyphens between words).
TEST(ContractTable, RejectsNamesThatAreNotKebabCase) {
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[1].name = "-max"; }));
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[1].name = "max-"; }));
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[1].name = "max--count"; }));
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[1].name = "-"; }));
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[1].name = "9max"; }));
}

// A default past UINT64_MAX must not wrap around into the accepted range: main would apply it
// through parse_value, which refuses it, and the field would be left at 0, under the floor.
TEST(ContractTable, RejectsADefaultThatOverflows) {
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[1].fallback = "18446744073709551617"; }));
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[1].fallback = "18446744073709551716"; }));
}

// Tables that compile but cannot work as written: the check is the only place that sees them.
TEST(ContractTable, RejectsExcludesNamingNoFlag) {
  // "wrod" is a typo: the conflict would never be reported.
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[4].excludes = "wrod"; }));
}

TEST(ContractTable, RejectsAChoiceDefaultThatIsNotAChoice) {
  // main applies the default without looking at parse_value's answer.
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[2].fallback = "yaml"; }));
  EXPECT_TRUE(valid_with([](Flags& f, Ops&) { f[2].fallback = "text"; }));
}

TEST(ContractTable, RejectsARangeDefaultThatDoesNotParse) {
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[4].fallback = "1..5"; }));
  EXPECT_TRUE(valid_with([](Flags& f, Ops&) { f[4].fallback = "1:100"; }));
}

TEST(ContractTable, RejectsShortNamesTheParserCannotRead) {
  // "-" + '-' is "--", the end of the flags; '=' and ' ' are not flag letters.
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[0].short_name = '-'; }));
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[0].short_name = '='; }));
  EXPECT_FALSE(valid_with([](Flags& f, Ops&) { f[0].short_name = ' '; }));
  EXPECT_TRUE(valid_with([](Flags& f, Ops&) { f[0].short_name = 'W'; }));
  EXPECT_TRUE(valid_with([](Flags& f, Ops&) { f[0].short_name = '1'; }));
}

TEST(ContractTable, ValidFlagOnItsOwn) {
  contract::FlagInfo f = contract::info(kGoodFlags[1]);
  EXPECT_TRUE(contract::valid_flag(f));
  EXPECT_EQ(f.name, "max-count");
  EXPECT_EQ(f.short_name, 'm');
  EXPECT_EQ(f.ceiling, 1000u);
  EXPECT_EQ(f.floor, 1u);
  EXPECT_EQ(f.fallback, "100");
  EXPECT_TRUE(f.limit);
  auto broken = f;
  broken.fallback = "1a";
  EXPECT_FALSE(contract::valid_flag(broken));
  broken = f;
  broken.kind = Kind::Bool;
  broken.value_name = "";
  broken.limit = false;
  broken.fallback = "";
  broken.ceiling = 0;
  EXPECT_TRUE(contract::valid_flag(broken));
  contract::OperandInfo o = contract::info(kGoodOps[1]);
  EXPECT_EQ(o.name, "PATH");
  EXPECT_EQ(o.min, 0u);
  EXPECT_EQ(o.max, kMany);
}

// ---------------------------------------------------------------- the catalogue

bool is_kebab_word(std::string_view w) {
  if (w.empty() || w.front() == '-' || w.back() == '-') return false;
  for (size_t i = 0; i < w.size(); ++i) {
    char c = w[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
    if (c == '-' && w[i + 1] == '-') return false;
  }
  return true;
}

TEST(ContractTable, KebabCheckerSelfTest) {
  EXPECT_TRUE(is_kebab_word("unknown-flag"));
  EXPECT_TRUE(is_kebab_word("json"));
  EXPECT_FALSE(is_kebab_word("Unknown"));
  EXPECT_FALSE(is_kebab_word("a--b"));
  EXPECT_FALSE(is_kebab_word("a_b"));
  EXPECT_FALSE(is_kebab_word("-a"));
  EXPECT_FALSE(is_kebab_word(""));
}

TEST(ContractTable, CatalogueRulesAreKebabUniqueAndExplained) {
  auto cat = contract::catalogue();
  ASSERT_FALSE(cat.empty());
  std::set<std::string_view> seen;
  for (const auto& row : cat) {
    size_t dot = row.rule.find('.');
    ASSERT_NE(dot, std::string_view::npos) << row.rule;
    EXPECT_EQ(row.rule.find('.', dot + 1), std::string_view::npos) << row.rule;
    EXPECT_TRUE(is_kebab_word(row.rule.substr(0, dot))) << row.rule;
    EXPECT_TRUE(is_kebab_word(row.rule.substr(dot + 1))) << row.rule;
    EXPECT_TRUE(seen.insert(row.rule).second) << "duplicate " << row.rule;
    EXPECT_FALSE(row.when.empty()) << row.rule;
    EXPECT_EQ(row.when.find('\n'), std::string_view::npos) << row.rule;
    EXPECT_EQ(contract::find_rule(row.rule), &row) << row.rule;
    // No rule ends a run with success, the reserved timeout or a dry run.
    int code = static_cast<int>(row.exit);
    EXPECT_TRUE(code == 1 || code == 2 || code == 3 || code == 4 || code == 5 || code == 8)
        << row.rule << " " << code;
  }
  EXPECT_EQ(contract::find_rule("args.no-such-rule"), nullptr);
  EXPECT_EQ(contract::find_rule(""), nullptr);
  EXPECT_EQ(contract::find_rule("args"), nullptr);
}

// CONTRACT.md §3, "Shared catalogue", transcribed by hand.
const std::map<std::string, int> kContractCatalogue = {
    {"args.unknown-flag", 2},
    {"args.missing-value", 2},
    {"args.bad-value", 2},
    {"args.unexpected-value", 2},
    {"args.duplicate-flag", 2},
    {"args.conflict", 2},
    {"args.missing-operand", 2},
    {"args.required-flag", 2},
    {"args.too-many-operands", 2},
    {"path.empty", 2},
    {"path.dotdot", 2},
    {"path.absolute", 2},
    {"path.outside-root", 4},
    {"path.too-long", 2},
    {"path.symlink", 4},
    {"path.bad-name", 2},
    {"io.not-found", 3},
    {"io.not-a-directory", 3},
    {"io.is-a-directory", 2},
    {"io.special-file", 2},
    {"io.permission-denied", 4},
    {"io.read-failed", 1},
    {"io.write-failed", 1},
    {"io.rename-unsupported", 8},
    {"limit.line-too-long", 8},
    {"limit.input-too-large", 8},
    {"limit.too-many-keys", 8},
    {"precondition.required", 2},
    {"precondition.hash-mismatch", 5},
    {"precondition.content-mismatch", 5},
    {"precondition.count-mismatch", 5},
    {"precondition.no-match", 8},
    {"precondition.hash-failed", 8},
    {"precondition.stale-witness", 5},
    {"conflict.exists", 5},
    {"conflict.locked", 5},
    {"parse.json", 8},
    {"query.bad-pointer", 2},
    {"query.no-such-path", 3},
    {"query.wrong-kind", 8},
    {"query.unsupported-syntax", 2},
    {"query.bad-pattern", 2},
};

// Rows tools add to the catalogue beyond CONTRACT.md's list (§3 lets them).
const std::map<std::string, int> kToolRows = {
    {"query.duplicate-key", 8},  // jsonq
    {"parse.checksum-line", 8},  // digest --check
    // run (its reference page's rows; CONTRACT.md §2 names limit.timeout's exit 8)
    {"limit.timeout", 8},
    {"limit.output-too-large", 8},
    {"run.program-name", 2},
    {"run.program-not-found", 3},
    {"run.spawn-failed", 8},
    // the journal (the writers and undo)
    {"conflict.changed-since", 5},
    {"journal.damaged", 8},
    {"journal.no-entry", 3},
    // the walk's deepest level (list, skills)
    {"limit.too-deep", 8},
};

TEST(ContractTable, CatalogueMatchesContractExactly) {
  ASSERT_EQ(kContractCatalogue.size(), 42u);  // the transcription itself
  std::map<std::string, int> actual;
  for (const auto& row : contract::catalogue())
    if (!kToolRows.count(std::string(row.rule)))
      actual.emplace(std::string(row.rule), static_cast<int>(row.exit));
    else
      EXPECT_EQ(static_cast<int>(row.exit), kToolRows.at(std::string(row.rule))) << row.rule;
  for (const auto& [rule, code] : kContractCatalogue) {
    auto it = actual.find(rule);
    if (it == actual.end()) {
      ADD_FAILURE() << "CONTRACT.md lists " << rule << " but the catalogue does not";
      continue;
    }
    EXPECT_EQ(it->second, code) << rule;
  }
  for (const auto& [rule, code] : actual)
    EXPECT_TRUE(kContractCatalogue.count(rule)) << "the catalogue has " << rule
                                                << " which CONTRACT.md does not list";
  for (const auto& [rule, code] : kToolRows) EXPECT_TRUE(contract::find_rule(rule)) << rule;
  EXPECT_EQ(actual.size() + kToolRows.size(), contract::catalogue().size());
  EXPECT_EQ(actual, kContractCatalogue);
}

TEST(ContractTable, ExitCodesMatchContractSection2) {
  const std::pair<Exit, std::pair<int, std::string_view>> table[] = {
      {Exit::Success, {0, "SUCCESS"}},
      {Exit::GeneralError, {1, "GENERAL_ERROR"}},
      {Exit::InvalidArgs, {2, "INVALID_ARGS"}},
      {Exit::NotFound, {3, "NOT_FOUND"}},
      {Exit::PermissionDenied, {4, "PERMISSION_DENIED"}},
      {Exit::Conflict, {5, "CONFLICT"}},
      {Exit::Timeout, {6, "TIMEOUT"}},
      {Exit::PreconditionFailed, {8, "PRECONDITION_FAILED"}},
      {Exit::DryRun, {9, "DRY_RUN"}},
  };
  for (const auto& [e, want] : table) {
    EXPECT_EQ(static_cast<int>(e), want.first) << want.second;
    EXPECT_EQ(contract::exit_name(e), want.second);
    EXPECT_FALSE(contract::exit_meaning(e).empty()) << want.second;
  }
}

}  // namespace
