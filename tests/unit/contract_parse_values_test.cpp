// contract_parse_values_test.cpp — the parser's typed values (Nat, Choice, Range), operands,
// all errors collected in argv order, remove_flag for repairs that change one flag, and the
// "did you mean" distance.

#include "parse_fixture.h"

namespace {

using namespace parse_fixture;

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
  return {name, contract::Role::PathRead, min, max, "h", false, ""};
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
  EXPECT_EQ(p.errors[0].detail.get("max")->as_uint(), 1u);  // how many the tool takes
  p = parse_ops({"t", "a"}, {});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.too-many-operands"});
  p = parse_ops({"t", "a", "b", "c"}, {op("A", 0, 1), op("B", 1, 1)});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.too-many-operands"});
  EXPECT_EQ(detail_str(p.errors[0], "operand"), "c");
  EXPECT_EQ(p.errors[0].detail.get("max")->as_uint(), 2u);
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

TEST(ContractParse, OperandNotTakenWhenItsFlagIsGiven) {
  // grep's `-e PATTERN`: with --exclude given, every operand is a PATH.
  contract::OperandInfo pattern = op("PATTERN", 1, 1);
  pattern.unless = "exclude";
  const std::vector<contract::OperandInfo> ops = {pattern, op("PATH", 0, kMany)};
  Parsed p = parse_ops({"t", "-x", "p", "a", "b"}, ops);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_TRUE(operand_values(p, 0).empty());
  EXPECT_EQ(operand_values(p, 1), (Argv{"a", "b"}));
  p = parse_ops({"t", "--exclude=p"}, ops);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_TRUE(p.operands.empty());
  // Without the flag the operand is taken, and required, as before.
  p = parse_ops({"t", "a", "b"}, ops);
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(operand_values(p, 0), Argv{"a"});
  p = parse_ops({"t"}, ops);
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.missing-operand"});
  EXPECT_EQ(detail_str(p.errors[0], "operand"), "PATTERN");
  // A required operand after it keeps its tokens when the slot is skipped.
  contract::OperandInfo first = op("A", 1, 1);
  first.unless = "word";
  p = parse_ops({"t", "-w", "x"}, {first, op("B", 1, 1)});
  ASSERT_TRUE(p.errors.empty()) << errors_dump(p);
  EXPECT_EQ(operand_values(p, 1), Argv{"x"});
  p = parse_ops({"t", "-w", "x", "y"}, {first, op("B", 1, 1)});
  ASSERT_EQ(rules(p), std::vector<std::string>{"args.too-many-operands"});
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

// ---------------------------------------------------------------- one operand's retry

// Context::argv_with_flag_for_operand: the flag set once, and of the operands only the k-th,
// wherever the others sat (before or after "--", next to flags and their values).
Argv for_operand(const Argv& argv, size_t k, std::string_view flag, std::string value) {
  Parsed p = parse(argv);
  EXPECT_TRUE(p.errors.empty()) << errors_dump(p);
  static constexpr contract::Tool kT{.name = "t"};
  contract::Out out(-1);
  contract::Context ctx(kT, out);
  ctx.argv_ = argv;
  ctx.flags_ = flags();
  for (auto& op : p.operands) ctx.operand_tokens_.push_back(op.token);
  return ctx.argv_with_flag_for_operand(k, flag, std::move(value));
}

TEST(ContractParse, ArgvForOneOperand) {
  Argv argv = {"t", "pat", "-n", "5", "a", "--word", "b", "c"};
  EXPECT_EQ(for_operand(argv, 2, "count", "9"), (Argv{"t", "--count=9", "--word", "b"}));
  EXPECT_EQ(for_operand(argv, 0, "count", "9"), (Argv{"t", "--count=9", "pat", "--word"}));
  // Operands after "--" that look like flags stay operands, and the "--" stays.
  argv = {"t", "--count", "5", "--", "pat", "--count", "b"};
  EXPECT_EQ(for_operand(argv, 1, "count", "9"), (Argv{"t", "--count=9", "--", "--count"}));
  EXPECT_EQ(for_operand(argv, 2, "count", "9"), (Argv{"t", "--count=9", "--", "b"}));
  // A flag's value that looks like an operand is not one.
  argv = {"t", "-o", "a", "pat", "b"};
  EXPECT_EQ(for_operand(argv, 1, "word", "x"), (Argv{"t", "--word=x", "-o", "a", "b"}));
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
