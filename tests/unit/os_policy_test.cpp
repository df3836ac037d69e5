// os/policy: the deployer's grants beside the programs, and nothing else.
#include <gtest/gtest.h>

#include "os/policy.h"

namespace {

TEST(OsPolicy, GrantsNetworkAndWritableDirectories) {
  os::Policy p = os::parse_policy(
      "# comment\n"
      "curl network\n"
      "make write /var/cache/build   # trailing comment\n"
      "make\twrite\t/srv/out\n"
      "\n");
  ASSERT_NE(p.find("curl"), nullptr);
  EXPECT_TRUE(p.find("curl")->network);
  EXPECT_TRUE(p.find("curl")->write.empty());
  ASSERT_NE(p.find("make"), nullptr);
  EXPECT_FALSE(p.find("make")->network);
  EXPECT_EQ(p.find("make")->write, (std::vector<std::string>{"/var/cache/build", "/srv/out"}));
  EXPECT_EQ(p.find("other"), nullptr);
  EXPECT_TRUE(p.any_network());
  EXPECT_EQ(p.all_write().size(), 2u);
  EXPECT_TRUE(p.ignored.empty());
}

TEST(OsPolicy, OtherShapesGrantNothing) {
  os::Policy p = os::parse_policy(
      "a/b network\n"  // not a plain name
      ".. network\n"
      "x write relative/dir\n"  // not absolute
      "x write /a/../etc\n"     // a dot-dot component
      "x network please\n"      // extra word
      "x netwrok\n"
      "x write\n");
  EXPECT_TRUE(p.programs.empty());
  EXPECT_EQ(p.ignored, (std::vector<size_t>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_FALSE(p.any_network());
}

TEST(OsPolicy, NoFileIsAnEmptyPolicy) {
  os::Policy p = os::read_policy("/nonexistent/programs");
  EXPECT_TRUE(p.programs.empty() && p.ignored.empty());
}

}  // namespace
