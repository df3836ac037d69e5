// os_path_test.cpp — the lexical checks of CONTRACT.md §5: hostile spellings first, then the
// normal forms, then properties over random paths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <string>

#include "contract/error.h"
#include "os/path.h"

namespace {

constexpr std::string_view kRoot = "/srv/root";

std::string rule_of(const os::CheckedPath& c) {
  return c.issue ? std::string(c.issue->rule) : std::string("ok");
}

std::string replacement_of(const os::CheckedPath& c) {
  if (!c.issue) return "<no issue>";
  return c.issue->replacement ? *c.issue->replacement : "<none>";
}

TEST(OsPath, EmptyIsRefusedWithAndWithoutRoot) {
  EXPECT_EQ(rule_of(os::check_path(kRoot, "")), "path.empty");
  EXPECT_EQ(rule_of(os::check_path("", "")), "path.empty");
}

TEST(OsPath, TooLongCountsBytes) {
  std::string at_limit(os::kPathMax, 'a');
  for (size_t i = 200; i < at_limit.size(); i += 201) at_limit[i] = '/';
  EXPECT_EQ(rule_of(os::check_path(kRoot, at_limit)), "ok");
  std::string past = at_limit + "b";
  EXPECT_EQ(rule_of(os::check_path(kRoot, past)), "path.too-long");
  EXPECT_EQ(rule_of(os::check_path("", past)), "path.too-long");
  // 5000 bytes of one name: still a lexical verdict, not a crash or an open.
  os::CheckedPath c = os::check_path(kRoot, std::string(5000, 'x'));
  EXPECT_EQ(rule_of(c), "path.too-long");
  EXPECT_NE(c.issue->message.find("5000"), std::string::npos);
  EXPECT_FALSE(c.issue->replacement);
}

TEST(OsPath, NulByteIsABadName) {
  std::string with_nul("a\0b", 3);
  EXPECT_EQ(rule_of(os::check_path(kRoot, with_nul)), "path.bad-name");
  EXPECT_EQ(rule_of(os::check_path("", with_nul)), "path.bad-name");
}

TEST(OsPath, DotdotThatLeavesTheRootHasNoReplacement) {
  for (std::string_view p : {"..", "../", "../x", "a/../..", "a/../../b", "./../etc/passwd",
                             "a/b/../../../c", "x/../../rootevil/f"}) {
    os::CheckedPath c = os::check_path(kRoot, p);
    EXPECT_EQ(rule_of(c), "path.dotdot") << p;
    EXPECT_EQ(replacement_of(c), "<none>") << p;
    EXPECT_NE(c.issue->message.find("leaves the root"), std::string::npos) << p;
  }
}

TEST(OsPath, DotdotThatStaysInsideOffersTheNormalForm) {
  struct Case {
    std::string_view in, want;
  };
  for (Case k :
       {Case{"a/../b", "b"}, Case{"a/..", "."}, Case{"a/../", "."}, Case{"./a/./../b/", "b"},
        Case{"a/b/../c", "a/c"}, Case{"a//b/..//c/.", "a/c"}, Case{"a/b/../../c/d", "c/d"}}) {
    os::CheckedPath c = os::check_path(kRoot, k.in);
    EXPECT_EQ(rule_of(c), "path.dotdot") << k.in;
    EXPECT_EQ(replacement_of(c), k.want) << k.in;
  }
}

TEST(OsPath, DotsThatAreNotDotdotAreNames) {
  for (std::string_view p : {"...", "..a", "a..", ".a", "a/.../b", "%2e%2e", "%2e%2e/x", "..."}) {
    os::CheckedPath c = os::check_path(kRoot, p);
    EXPECT_EQ(rule_of(c), "ok") << p;
    EXPECT_EQ(c.path, p) << p;
  }
}

TEST(OsPath, AbsoluteUnderTheRootOffersTheRelativeSpelling) {
  struct Case {
    std::string_view in, want;
  };
  for (Case k : {Case{"/srv/root", "."}, Case{"/srv/root/", "."}, Case{"/srv/root/.", "."},
                 Case{"/srv/root/a/b", "a/b"}, Case{"//srv//root//a/", "a"},
                 Case{"/srv/root/../root/a", "a"}, Case{"/srv/root/a/../b", "b"},
                 Case{"/srv/./root/x y", "x y"}}) {
    os::CheckedPath c = os::check_path(kRoot, k.in);
    EXPECT_EQ(rule_of(c), "path.absolute") << k.in;
    EXPECT_EQ(replacement_of(c), k.want) << k.in;
  }
}

TEST(OsPath, AbsoluteOutsideTheRootIsRefused) {
  // `/srv/rootevil` shares a string prefix with the root but not a component prefix.
  for (std::string_view p : {"/srv/rootevil", "/srv/rootevil/x", "/srv/roo", "/srv", "/",
                             "/etc/passwd", "/srv/root/../rootevil", "/srv/root/a/../../..",
                             "/srv/root/../../srv/rootx", "/../srv/root2"}) {
    os::CheckedPath c = os::check_path(kRoot, p);
    EXPECT_EQ(rule_of(c), "path.outside-root") << p;
    EXPECT_EQ(replacement_of(c), "<none>") << p;
  }
  // Climbing above `/` stays at `/`, so this one is back inside.
  EXPECT_EQ(rule_of(os::check_path(kRoot, "/../srv/root/z")), "path.absolute");
}

TEST(OsPath, RootAtSlashContainsEveryAbsolutePath) {
  EXPECT_EQ(replacement_of(os::check_path("/", "/")), ".");
  EXPECT_EQ(replacement_of(os::check_path("/", "/etc/passwd")), "etc/passwd");
  EXPECT_EQ(replacement_of(os::check_path("/", "//etc//")), "etc");
  EXPECT_EQ(rule_of(os::check_path("/", "etc/passwd")), "ok");
}

TEST(OsPath, CollapsesDotsSlashesAndTrailingSlashSilently) {
  struct Case {
    std::string_view in, want;
  };
  for (Case k : {Case{".", "."}, Case{"./", "."}, Case{"./.", "."}, Case{".//./", "."},
                 Case{"a//b/./c/", "a/b/c"}, Case{"a/", "a"}, Case{"./a", "a"}}) {
    os::CheckedPath c = os::check_path(kRoot, k.in);
    EXPECT_EQ(rule_of(c), "ok") << k.in;
    EXPECT_EQ(c.path, k.want) << k.in;
  }
}

TEST(OsPath, HostileNamesAreOrdinaryBytes) {
  for (std::string_view p :
       {"~", "~/x", "'q'", "\"dq\"", "a b", " lead", "trail ", "-rf", "--root=x", "a\nb",
        "$(rm -rf x)", "*", "\\", "a;b", "\xff\xfe", "\xc0\xae\xc0\xae", "\r"}) {
    os::CheckedPath c = os::check_path(kRoot, p);
    EXPECT_EQ(rule_of(c), "ok") << p;
    EXPECT_EQ(c.path, p) << p;
  }
}

TEST(OsPath, MessagesRenderInvalidBytesPrintably) {
  os::CheckedPath c = os::check_path(kRoot, "\xff/../..");
  ASSERT_EQ(rule_of(c), "path.dotdot");
  EXPECT_NE(c.issue->message.find("\\xff"), std::string::npos) << c.issue->message;
  EXPECT_TRUE(contract::valid_utf8(c.issue->message));
  os::CheckedPath a = os::check_path(kRoot, "/srv/root/\xfe");
  ASSERT_EQ(rule_of(a), "path.absolute");
  EXPECT_EQ(*a.issue->replacement, "\xfe");  // the replacement is bytes, not a rendering
  EXPECT_TRUE(contract::valid_utf8(a.issue->message));
}

TEST(OsPath, EveryRuleIsInTheCatalogue) {
  for (std::string_view p : {"", "../x", "a/../b", "/srv/root/a", "/etc"}) {
    os::CheckedPath c = os::check_path(kRoot, p);
    ASSERT_TRUE(c.issue) << p;
    EXPECT_NE(contract::find_rule(c.issue->rule), nullptr) << c.issue->rule;
  }
  EXPECT_NE(contract::find_rule(os::check_path(kRoot, std::string(5000, 'a')).issue->rule),
            nullptr);
  EXPECT_NE(contract::find_rule(os::check_path(kRoot, std::string("\0", 1)).issue->rule), nullptr);
}

TEST(OsPath, WithoutRootKeepsThePathAsGiven) {
  struct Case {
    std::string_view in, want;
  };
  for (Case k : {Case{"/etc/passwd", "/etc/passwd"}, Case{"../x", "../x"}, Case{"a/../b", "a/../b"},
                 Case{"//a//b/", "/a/b"}, Case{"/", "/"}, Case{"//", "/"}, Case{"./", "."},
                 Case{"/./a/.", "/a"}, Case{"-rf", "-rf"}, Case{"~", "~"}}) {
    os::CheckedPath c = os::check_path("", k.in);
    EXPECT_EQ(rule_of(c), "ok") << k.in;
    EXPECT_EQ(c.path, k.want) << k.in;
  }
}

TEST(OsPath, NormalizeResolvesDotdotOnlyWhenAsked) {
  EXPECT_EQ(os::normalize("a/../b", false), "a/../b");
  EXPECT_EQ(os::normalize("a/../b", true), "b");
  EXPECT_EQ(os::normalize("/..", true), "/");
  EXPECT_EQ(os::normalize("/../a/..", true), "/");
  EXPECT_EQ(os::normalize("../../a", true), "../../a");
  EXPECT_EQ(os::normalize("a/b/../../..", true), "..");
  EXPECT_EQ(os::normalize("a/../../b/../c", true), "../c");
  EXPECT_EQ(os::normalize("", true), ".");
  EXPECT_EQ(os::normalize("///", false), "/");
}

TEST(OsPath, AbsoluteRootJoinsTheWorkingDirectory) {
  char buf[8192];
  ASSERT_NE(getcwd(buf, sizeof buf), nullptr);
  std::string cwd = buf;
  EXPECT_EQ(os::absolute_root("/a/b/../c/"), "/a/c");
  EXPECT_EQ(os::absolute_root("x/y"), os::normalize(cwd + "/x/y", true));
  EXPECT_EQ(os::absolute_root("."), os::normalize(cwd, true));
  EXPECT_EQ(os::absolute_root("x/../.."), os::normalize(cwd + "/..", true));
  EXPECT_EQ(os::absolute_root("x/y")[0], '/');
}

// Properties over random spellings: every verdict is consistent with the normal form, and
// every replacement is itself accepted as it stands (a retry clears the error).
TEST(OsPath, RandomSpellingsKeepTheInvariants) {
  std::mt19937 rng(12345);
  const std::string_view parts[] = {"a", "b", ".", "..", "", "srv", "root", "rootevil", "~"};
  for (int iter = 0; iter < 20000; ++iter) {
    std::string p = (rng() % 3 == 0) ? "/" : "";
    int n = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < n; ++i) {
      if (i > 0) p += '/';
      p += parts[rng() % std::size(parts)];
    }
    if (p.empty()) continue;
    os::CheckedPath c = os::check_path(kRoot, p);
    std::string resolved = os::normalize(p[0] == '/' ? p : std::string(kRoot) + "/" + p, true);
    bool inside = resolved == kRoot || resolved.starts_with(std::string(kRoot) + "/");
    // A relative path that climbs above the root and comes back (`../root/a`) still leaves it:
    // its spelling depends on the root's own name, so it gets no replacement.
    std::string rel = os::normalize(p, true);
    if (p[0] != '/' && (rel == ".." || rel.starts_with("../"))) inside = false;
    if (!c.issue) {
      EXPECT_NE(p[0], '/') << p;
      EXPECT_EQ(c.path, os::normalize(c.path, true)) << p;  // no `..` left in it
      EXPECT_TRUE(inside) << p;
      continue;
    }
    if (c.issue->rule == "path.outside-root") {
      EXPECT_EQ(p[0], '/') << p;
      EXPECT_FALSE(inside) << p;
    } else {
      ASSERT_TRUE(c.issue->rule == "path.absolute" || c.issue->rule == "path.dotdot") << p;
      EXPECT_EQ(c.issue->replacement.has_value(), inside) << p;
    }
    if (c.issue->replacement) {
      os::CheckedPath again = os::check_path(kRoot, *c.issue->replacement);
      EXPECT_FALSE(again.issue) << p << " -> " << *c.issue->replacement;
      EXPECT_EQ(again.path, *c.issue->replacement) << p;
      EXPECT_EQ(os::normalize(std::string(kRoot) + "/" + again.path, true), resolved) << p;
    }
  }
}

}  // namespace

TEST(OsPath, JoinPutsOneSlashBetweenAndNoneBelowTheCurrentDirectory) {
  EXPECT_EQ(os::join("a/b", "c"), "a/b/c");
  EXPECT_EQ(os::join("a/", "c"), "a/c");
  EXPECT_EQ(os::join("/", "etc"), "/etc");
  EXPECT_EQ(os::join(".", "c"), "c");
  EXPECT_EQ(os::join("", "c"), "c");
  std::string out = "a much longer earlier value";
  os::join_into(out, "d", "e");  // the buffer reused: nothing of the earlier value is left
  EXPECT_EQ(out, "d/e");
  os::join_into(out, ".", "f");
  EXPECT_EQ(out, "f");
}
