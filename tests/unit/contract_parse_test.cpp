// contract_parse_test.cpp — phase one of the parser (parse.h): tokens against a table, every
// problem collected as a tagged argument error (CONTRACT.md §3), and repairs that run as they
// stand. Values, operands, remove_flag and the "did you mean" distance are in
// contract_parse_values_test.cpp.

#include "parse_fixture.h"

namespace {

using namespace parse_fixture;

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

TEST(ContractParse, ATypoOfAFlagThatWidensIsToldNotRetried) {
  // A repair never adds a flag that lets the call touch more (--create and its kind).
  std::vector<contract::FlagInfo> fl = {contract::info(kFlags[kIgnoreCase])};
  fl.push_back(
      {"create", 0, Kind::Bool, contract::Role::None, "", "", 0, 0, "", "", "h", false, true});
  Parsed p = contract::parse_argv({"t", "--creat", "pat"}, fl, operands());
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.unknown-flag"}) << errors_dump(p);
  EXPECT_EQ(p.errors[0].repair.kind, Repair::Kind::Null);
  ASSERT_NE(p.errors[0].detail.get("nearest"), nullptr);
  EXPECT_EQ(p.errors[0].detail.get("nearest")->str(), "--create");
  EXPECT_EQ(p.errors[0].hint.value_or(""), "did you mean --create?");
}

TEST(ContractParse, UnknownShortFlagInClusterGetsNoWholeTokenRetry) {
  // 'a' is one edit from the boolean long flag "ab", and "--ab pat" would parse cleanly: a
  // retry replacing the whole cluster "-iaw" by "--ab" would silently drop -i and -w.
  std::vector<contract::FlagInfo> fl = {contract::info(kFlags[kIgnoreCase]),
                                        contract::info(kFlags[kWord])};
  fl.push_back(
      {"ab", 0, Kind::Bool, contract::Role::None, "", "", 0, 0, "", "", "h", false, false});
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

}  // namespace

// An operand that starts with '-' but could be no flag (a space, no letter): the repair puts it
// after "--", keeping the flags and the operands' order.
TEST(ContractParse, DashedOperandGetsADoubleDashRepair) {
  for (const Argv& argv : {Argv{"t", "- [ ]", "-i", "notes.md"}, Argv{"t", "-i", "- [ ]", "notes.md"},
                           Argv{"t", "-i", "notes", "- [ ]"}, Argv{"t", "-1", "notes.md"},
                           Argv{"t", "--", "x", "-n", "3"}}) {
    Parsed p = parse(argv);
    if (argv[1] == "--") {
      EXPECT_TRUE(p.errors.empty()) << errors_dump(p);
      continue;
    }
    ASSERT_FALSE(p.errors.empty());
    EXPECT_EQ(p.errors[0].rule, "args.unknown-flag") << errors_dump(p);
    ASSERT_EQ(p.errors[0].repair.kind, Repair::Kind::Retry) << errors_dump(p);
    EXPECT_NE(p.errors[0].hint, std::nullopt);
    Parsed again = parse(p.errors[0].repair.argvs.at(0));
    EXPECT_TRUE(again.errors.empty()) << errors_dump(again);
  }
  Parsed p = parse({"t", "- [ ]", "-i", "notes.md"});
  Parsed again = parse(p.errors.at(0).repair.argvs.at(0));
  EXPECT_EQ(operand_values(again, 0), std::vector<std::string>{"- [ ]"});
  EXPECT_EQ(operand_values(again, 1), std::vector<std::string>{"notes.md"});
  EXPECT_NE(value_of(again, kIgnoreCase), nullptr);
  // A flag-shaped unknown token keeps the flag treatment: a near flag, no "--" repair.
  p = parse({"t", "--wrod", "pat"});
  ASSERT_EQ(p.errors.at(0).repair.kind, Repair::Kind::Retry);
  EXPECT_EQ(p.errors[0].repair.argvs[0], (Argv{"t", "--word", "pat"}));
}
