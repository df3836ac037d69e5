// text_front_matter_test.cpp — the front matter reader: each kind of scalar, the keys passed
// over, and the causes it names for what it does not take.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>

#include "text/front_matter.h"

namespace {

constexpr std::string_view kKeys[] = {"name", "description"};

text::FrontMatter ok(std::string_view file) {
  auto r = text::parse_front_matter(file, kKeys);
  if (auto* cause = std::get_if<std::string>(&r)) ADD_FAILURE() << *cause;
  return std::holds_alternative<text::FrontMatter>(r) ? std::get<text::FrontMatter>(r)
                                                      : text::FrontMatter{};
}

std::string cause(std::string_view file) {
  auto r = text::parse_front_matter(file, kKeys);
  EXPECT_TRUE(std::holds_alternative<std::string>(r)) << "parsed: " << file;
  return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

TEST(TextFrontMatter, PlainScalarsAndTheBodyOffset) {
  const std::string file =
      "---\nname: pdf  # a comment\ndescription: Reads\n  PDF files.\n---\nBody\n";
  auto f = ok(file);
  EXPECT_EQ(f.values.at("name"), "pdf");
  EXPECT_EQ(f.values.at("description"), "Reads PDF files.");
  EXPECT_EQ(file.substr(f.body), "Body\n");
}

TEST(TextFrontMatter, QuotedScalars) {
  auto f = ok("---\nname: 'it''s'\ndescription: \"a\\tb \\u00e9 \\\"q\\\"\"\n---\n");
  EXPECT_EQ(f.values.at("name"), "it's");
  EXPECT_EQ(f.values.at("description"), "a\tb \xc3\xa9 \"q\"");
}

TEST(TextFrontMatter, BlockScalarsFoldAndChomp) {
  EXPECT_EQ(ok("---\ndescription: >\n  one\n  two\n\n  three\n---\n").values.at("description"),
            "one two\nthree\n");
  EXPECT_EQ(ok("---\ndescription: |-\n  one\n  two\n\n---\n").values.at("description"), "one\ntwo");
  EXPECT_EQ(ok("---\ndescription: |+\n  one\n\n---\n").values.at("description"), "one\n\n");
}

TEST(TextFrontMatter, KeysNotAskedForArePassedOver) {
  auto f = ok("---\nmetadata:\n  a: b\n- x\nname: n\nlicense: MIT\n---\n");
  EXPECT_EQ(f.values.size(), 1u);
  EXPECT_EQ(f.values.at("name"), "n");
}

TEST(TextFrontMatter, NamesWhatItDoesNotTake) {
  EXPECT_EQ(cause(""), "the file is empty (no front matter)");
  EXPECT_EQ(cause("name: x\n"), "the file does not start with a '---' line (no front matter)");
  EXPECT_EQ(cause("---\nname: x\n"), "the front matter has no closing '---' line");
  EXPECT_EQ(cause("---\nname: \xff\n---\n"), "the front matter is not UTF-8");
  EXPECT_EQ(cause("---\nname: a\nname: b\n---\n"), "line 3: the key 'name' appears twice");
  EXPECT_EQ(cause("---\nname:x\n---\n"), "line 2: not 'key: value'");
  EXPECT_EQ(cause("---\n  name: x\n---\n"), "line 2: an indented line outside any key");
  EXPECT_EQ(cause("---\nname: [a]\n---\n"),
            "line 2: name: a value starting with '[', which this parser does not take");
  EXPECT_EQ(cause("---\nname: a: b\n---\n"),
            "line 2: name: a plain scalar holding ': ' (quote it)");
  EXPECT_EQ(cause("---\nname: \"\\ud800\"\n---\n"), "line 2: name: a \\u escape names a surrogate");
  EXPECT_EQ(cause("---\nname: 'open\n---\n"),
            "line 2: name: a single-quoted scalar that does not end on its line");
}

TEST(TextFrontMatter, TrimBlanks) {
  EXPECT_EQ(text::trim_blanks(" \ta b\t\r"), "a b");
  EXPECT_EQ(text::trim_blanks(""), "");
}

}  // namespace
