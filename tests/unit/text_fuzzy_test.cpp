// text_fuzzy_test.cpp — the fzf-like ranking: subsequence or nothing, case folding for ASCII,
// and the bonuses in the order the ranking promises.
#include "text/fuzzy.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using text::fuzzy_score;

TEST(Fuzzy, SubsequenceOrNothing) {
  EXPECT_FALSE(fuzzy_score("abc", "acb"));
  EXPECT_FALSE(fuzzy_score("", "abc"));
  EXPECT_FALSE(fuzzy_score("abcd", "abc"));
  EXPECT_TRUE(fuzzy_score("abc", "a/b/c"));
  EXPECT_TRUE(fuzzy_score("ABC", "xaxbxc"));
}

TEST(Fuzzy, CaseFoldsOnlyAscii) {
  EXPECT_EQ(fuzzy_score("list", "src/LIST.md"), fuzzy_score("LIST", "src/list.md"));
  EXPECT_FALSE(fuzzy_score("\xc3\xa9", "\xc3\x89"));  // é is not É: no Unicode folding
}

TEST(Fuzzy, ConsecutiveBeatsScattered) {
  EXPECT_GT(*fuzzy_score("list", "x/list.c"), *fuzzy_score("list", "x/lxixsxt.c"));
}

TEST(Fuzzy, WordBoundaryBeatsMidWord) {
  EXPECT_GT(*fuzzy_score("ab", "x/foo_ab.c"), *fuzzy_score("ab", "x/fooab.c"));
  EXPECT_GT(*fuzzy_score("b", "x/fooBar"), *fuzzy_score("b", "x/foobar"));
}

TEST(Fuzzy, BasenameBeatsDirectory) {
  EXPECT_GT(*fuzzy_score("main", "src/main.cpp"), *fuzzy_score("main", "main/src.cpp"));
}

TEST(Fuzzy, LongInputsStayBounded) {
  std::string path(4096, 'a');
  std::string query(256, 'a');
  auto s = fuzzy_score(query, path);
  ASSERT_TRUE(s);
  EXPECT_GT(*s, 0);
}

}  // namespace
