// text_ignore_test.cpp — gitignore rules: wildmatch cases from git's own test suite (t3070),
// the line rules of gitignore(5), and a differential run against `git check-ignore` over a
// generated tree with tricky patterns (same seed every run).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "text/ignore.h"

namespace {

using text::IgnoreList;
using text::Verdict;
using text::wildmatch;

TEST(Wildmatch, GitCases) {
  struct Case {
    const char* text;
    const char* pattern;
    bool pathname;  // result with WM_PATHNAME
  };
  const Case cases[] = {
      {"foo", "foo", true},
      {"foo", "bar", false},
      {"", "", true},
      {"foo", "???", true},
      {"foo", "??", false},
      {"foo", "*", true},
      {"foo", "f*", true},
      {"foo", "*f", false},
      {"foo", "*foo*", true},
      {"foobar", "*ob*a*r*", true},
      {"aaaaaaabababab", "*ab", true},
      {"foo*", "foo\\*", true},
      {"foobar", "foo\\*bar", false},
      {"f\\oo", "f\\\\oo", true},
      {"ball", "*[al]?", true},
      {"ten", "[ten]", false},
      {"ten", "**[!te]", true},
      {"ten", "**[!ten]", false},
      {"ten", "t[a-g]n", true},
      {"ten", "t[!a-g]n", false},
      {"ton", "t[!a-g]n", true},
      {"ton", "t[^a-g]n", true},
      {"a]b", "a[]]b", true},
      {"a-b", "a[]-]b", true},
      {"a]b", "a[]-]b", true},
      {"aab", "a[]-]b", false},
      {"aab", "a[]a-]b", true},
      {"]", "]", true},
      {"foo/baz/bar", "foo*bar", false},
      {"foo/baz/bar", "foo**bar", false},
      {"foobazbar", "foo**bar", true},
      {"foo/baz/bar", "foo/**/bar", true},
      {"foo/baz/bar", "foo/**/**/bar", true},
      {"foo/b/a/z/bar", "foo/**/bar", true},
      {"foo/bar", "foo/**/bar", true},
      {"foo/bar", "foo/**/**/bar", true},
      {"foo/bar", "foo?bar", false},
      {"foo/bar", "foo[/]bar", false},
      {"foo/bar", "foo[^a-z]bar", false},
      {"foo/bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", false},
      {"foo-bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", true},
      {"foo", "**/foo", true},
      {"XXX/foo", "**/foo", true},
      {"bar/baz/foo", "**/foo", true},
      {"bar/baz/foo", "*/foo", false},
      {"foo/bar/baz", "**/bar*", false},
      {"deep/foo/bar/baz", "**/bar/*", true},
      {"deep/foo/bar/baz/", "**/bar/*", false},
      {"deep/foo/bar/baz/", "**/bar/**", true},
      {"deep/foo/bar", "**/bar/*", false},
      {"deep/foo/bar/", "**/bar/**", true},
      {"foo/bar/baz", "**/bar**", false},
      {"foo/bar/baz/x", "*/bar/**", true},
      {"deep/foo/bar/baz/x", "*/bar/**", false},
      {"deep/foo/bar/baz/x", "**/bar/*/*", true},
      {"acrt", "a[c-c]st", false},
      {"acrt", "a[c-c]rt", true},
      {"[", "[!]-]", true},  // ']' and '-' are the members; '[' is neither
      {"a", "[!]-]", true},
      {"", "\\", false},
      {"\\", "\\", false},
      {"XXX/\\", "*/\\", false},
      {"XXX/\\", "*/\\\\", true},
      {"foo", "foo", true},
      {"@foo", "@foo", true},
      {"foo", "@foo", false},
      {"[ab]", "\\[ab]", true},
      {"[ab]", "[[]ab]", true},
      {"[ab]", "[[:]ab]", true},
      {"[ab]", "[[::]ab]", false},
      {"[ab]", "[[:digit]ab]", true},
      {"[ab]", "[\\[:]ab]", true},
      {"?a?b", "\\??\\?b", true},
      {"abc", "\\a\\b\\c", true},
      {"foo", "", false},
      {"foo/bar/baz/to", "**/t[o]", true},
      {"a1B", "[[:alpha:]][[:digit:]][[:upper:]]", true},
      {"a", "[[:digit:][:upper:][:space:]]", false},
      {"A", "[[:digit:][:upper:][:space:]]", true},
      {"1", "[[:digit:][:upper:][:space:]]", true},
      {"1", "[[:digit:][:upper:][:spaci:]]", false},
      {" ", "[[:digit:][:upper:][:space:]]", true},
      {".", "[[:digit:][:upper:][:space:]]", false},
      {".", "[[:digit:][:punct:][:space:]]", true},
      {"5", "[[:xdigit:]]", true},
      {"f", "[[:xdigit:]]", true},
      {"D", "[[:xdigit:]]", true},
      {"_",
       "[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:]"
       "[:upper:][:xdigit:]]",
       true},
      {".", "[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]",
       true},
      {"5", "[a-c[:digit:]x-z]", true},
      {"b", "[a-c[:digit:]x-z]", true},
      {"y", "[a-c[:digit:]x-z]", true},
      {"q", "[a-c[:digit:]x-z]", false},
      {"]", "[\\\\-^]", true},
      {"[", "[\\\\-^]", false},
      {"-", "[\\-_]", true},
      {"]", "[\\]]", true},
      {"\\]", "[\\]]", false},
      {"\\", "[\\]]", false},
      {"ab", "a[]b", false},
      {"a[]b", "a[]b", false},
      {"ab[", "ab[", false},
      {"ab", "[!", false},
      {"ab", "[-", false},
      {"-", "[-]", true},
      {"-", "[a-", false},
      {"-", "[!a-", false},
      {"-", "[--A]", true},
      {"5", "[--A]", true},
      {" ", "[ --]", true},
      {"$", "[ --]", true},
      {"-", "[ --]", true},
      {"0", "[ --]", false},
      {"-", "[---]", true},
      {"-", "[------]", true},
      {"j", "[a-e-n]", false},
      {"-", "[a-e-n]", true},
      {"a", "[!------]", true},
      {"[", "[]-a]", false},
      {"^", "[]-a]", true},
      {"^", "[!]-a]", false},
      {"[", "[!]-a]", true},
      {"^", "[a^bc]", true},
      {"-b]", "[a-]b]", true},
      {"\\", "[\\]", false},
      {"[", "[\\]", false},
      {"\\", "[!\\]", false},
      {"G", "[A-\\\\]", true},
      {"G", "[A-\\]", false},  // "\\]" escapes the bracket: the class never closes
      {"aaabbb", "b*a", false},
      {"aabcaa", "*ba*", false},
      {",", "[,]", true},
      {",", "[\\,]", true},
      {"\\", "[\\,]", false},
      {"-", "[,-.]", true},
      {"+", "[,-.]", false},
      {"-.]", "[,-.]", false},
      {"foo/bba/arr", "foo*/**", true},  // the star takes nothing, "/**" the rest
      {"foox/bba/arr", "foo?/**", true},
      {"fo/bba/arr", "foo*/**", false},
      {"-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*",
       true},
      {"-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*",
       false},
      {"/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", "/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
       true},
      {"abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", "**/*a*b*g*n*t", true},
      {"abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", "**/*a*b*g*n*t", false},
      {"foo", "*/*/*", false},
      {"foo/bar", "*/*/*", false},
      {"foo/bba/arr", "*/*/*", true},
      {"foo/bb/aa/rr", "*/*/*", false},
      {"foo/bb/aa/rr", "**/**/**", true},
      {"abcXdefXghi", "*X*i", true},
      {"ab/cXd/efXg/hi", "*X*i", false},
      {"ab/cXd/efXg/hi", "*/*X*/*/*i", true},
      {"ab/cXd/efXg/hi", "**/*X*/**/*i", true},
  };
  for (const Case& c : cases)
    EXPECT_EQ(wildmatch(c.pattern, c.text, true), c.pathname) << c.pattern << " on " << c.text;
}

TEST(Wildmatch, WithoutPathnameStarsCrossSlashes) {
  EXPECT_TRUE(wildmatch("foo*bar", "foo/baz/bar", false));
  EXPECT_FALSE(wildmatch("foo*bar", "foo/baz/bar", true));
  EXPECT_TRUE(wildmatch("foo?bar", "foo/bar", false));
}

// Each "**/" is tried twice (no directory, then any), so plain recursion doubles per "**/";
// remembered results keep these to polynomial work. The answers are git's.
TEST(Wildmatch, ManyDoubleStarsStayPolynomial) {
  std::string pattern, text;
  for (int i = 0; i < 40; ++i) pattern += "**/a/";
  for (int i = 0; i < 60; ++i) text += "a/";
  EXPECT_FALSE(wildmatch(pattern + "c", text + "b", true));
  EXPECT_TRUE(wildmatch(pattern + "c", text + "c", true));
  EXPECT_FALSE(wildmatch(pattern + "c", "a/a/c", true));  // too few directories
  std::string stars;
  for (int i = 0; i < 40; ++i) stars += "**a";
  EXPECT_FALSE(wildmatch(stars + "c", std::string(200, 'a') + "b", false));
  EXPECT_TRUE(wildmatch(stars + "c", std::string(200, 'a') + "c", false));
}

Verdict v(const char* file, const char* path, bool dir = false) {
  IgnoreList l;
  l.add_file(file);
  return l.match(path, dir);
}

TEST(IgnoreList, LineRules) {
  EXPECT_EQ(v("# comment\n\n", "# comment"), Verdict::None);
  EXPECT_EQ(v("\\#hash\n", "#hash"), Verdict::Ignore);
  EXPECT_EQ(v("\\!bang\n", "!bang"), Verdict::Ignore);
  EXPECT_EQ(v("trail   \n", "trail"), Verdict::Ignore);
  EXPECT_EQ(v("trail\\ \n", "trail "), Verdict::Ignore);
  EXPECT_EQ(v("trail\\ \n", "trail"), Verdict::None);
  EXPECT_EQ(v("crlf\r\n", "crlf"), Verdict::Ignore);
  EXPECT_EQ(v("\xEF\xBB\xBF"
              "bom\n",
              "bom"),
            Verdict::Ignore);
  EXPECT_EQ(v("last-no-newline", "last-no-newline"), Verdict::Ignore);
  EXPECT_EQ(v("   \n", "   "), Verdict::None);  // all spaces: an empty pattern
  EXPECT_EQ(v("!\n/\n", "x"), Verdict::None);
  IgnoreList l;
  l.add_file(std::string_view("cut\0here\n", 9));
  EXPECT_EQ(l.match("cut", false), Verdict::Ignore);
}

TEST(IgnoreList, NegationAndOrder) {
  EXPECT_EQ(v("*.log\n!keep.log\n", "keep.log"), Verdict::Include);
  EXPECT_EQ(v("*.log\n!keep.log\n", "drop.log"), Verdict::Ignore);
  EXPECT_EQ(v("!keep.log\n*.log\n", "keep.log"), Verdict::Ignore);  // the last rule wins
}

TEST(IgnoreList, Anchoring) {
  EXPECT_EQ(v("/top\n", "top"), Verdict::Ignore);
  EXPECT_EQ(v("/top\n", "a/top"), Verdict::None);
  EXPECT_EQ(v("any\n", "a/b/any"), Verdict::Ignore);
  EXPECT_EQ(v("a/b\n", "a/b"), Verdict::Ignore);
  EXPECT_EQ(v("a/b\n", "x/a/b"), Verdict::None);  // a middle slash anchors too
  EXPECT_EQ(v("a/*.c\n", "a/x.c"), Verdict::Ignore);
  EXPECT_EQ(v("a/*.c\n", "a/b/x.c"), Verdict::None);
}

TEST(IgnoreList, DirectoryOnly) {
  EXPECT_EQ(v("build/\n", "build", true), Verdict::Ignore);
  EXPECT_EQ(v("build/\n", "build", false), Verdict::None);
  EXPECT_EQ(v("build/\n", "x/build", true), Verdict::Ignore);
  EXPECT_EQ(v("/build/\n", "x/build", true), Verdict::None);
}

TEST(IgnoreList, DoubleStar) {
  EXPECT_EQ(v("**/foo\n", "foo"), Verdict::Ignore);
  EXPECT_EQ(v("**/foo\n", "a/b/foo"), Verdict::Ignore);
  EXPECT_EQ(v("abc/**\n", "abc/x/y"), Verdict::Ignore);
  EXPECT_EQ(v("abc/**\n", "abc"), Verdict::None);
  EXPECT_EQ(v("a/**/b\n", "a/b"), Verdict::Ignore);
  EXPECT_EQ(v("a/**/b\n", "a/x/y/b"), Verdict::Ignore);
  EXPECT_EQ(v("a**b\n", "axxb"), Verdict::Ignore);
  // git compares the literal prefix apart, so "**" right after it starts a component.
  EXPECT_EQ(v("foo**/bar\n", "foox/y/bar"), Verdict::Ignore);
  EXPECT_FALSE(wildmatch("foo**/bar", "foox/y/bar", true));
}

// --- differential: the same questions to git ----------------------------------------------

namespace fs = std::filesystem;

std::string run_capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(IgnoreList, AgreesWithGitCheckIgnore) {
  if (system("git --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "git is not installed";
  const std::vector<std::string> pool = {
      "*.o",          "!keep.o",     "/root.txt",  "build/",   "!build/keep/", "doc/**",
      "!doc/**/*.md", "**/tmp",      "a/**/z",     "[abc]*.c", "[!x-z]?.h",    "x\\*y",
      "name\\ ",      "sp ace  ",    "#not",       "\\#lit",   "*.[oa]",       "deep/*/file",
      "**/cache/",    "*~",          "!*.keep~",   "f?o",      "[[:digit:]]*", "a**b",
      "foo**/bar",    "src/*/gen",   "!src/x/gen", "**",       "!**/",         "*/",
      "!*/",          "lib/**/*.so", "[]]x",       "[a-]y",    "q\\",          "t\\[x]",
  };
  const std::vector<std::string> names = {
      "a.o",  "keep.o", "root.txt", "build", "keep",  "doc",  "x.md",    "y.txt", "tmp",
      "z",    "a",      "b.c",      "d.c",   "q.h",   "xy.h", "x*y",     "name ", "sp ace",
      "#not", "#lit",   "ab.a",     "file",  "cache", "f~",   "g.keep~", "foo",   "fxo",
      "1x",   "axxb",   "foox",     "bar",   "src",   "gen",  "lib",     "m.so",  "]x",
      "-y",   "ay",     "q\\",      "t[x]",  "sub",
  };
  std::mt19937 rng(20240601);
  const int kRounds = getenv("TACK_IGNORE_ROUNDS") ? atoi(getenv("TACK_IGNORE_ROUNDS")) : 8;
  size_t ignored_total = 0, kept_total = 0;
  for (int round = 0; round < kRounds; ++round) {
    fs::path dir = fs::temp_directory_path() /
                   ("tack-ignore-diff-" + std::to_string(getpid()) + "-" + std::to_string(round));
    fs::remove_all(dir);
    fs::create_directories(dir);
    // A tree three levels deep from the name pool; every level a mix of files and dirs.
    std::vector<std::pair<std::string, bool>> paths;  // relative path, is_dir
    std::function<void(const std::string&, int)> grow = [&](const std::string& at, int depth) {
      std::vector<std::string> pick = names;
      std::shuffle(pick.begin(), pick.end(), rng);
      size_t n = depth == 0 ? 18 : 6;
      for (size_t i = 0; i < n && i < pick.size(); ++i) {
        std::string rel = at.empty() ? pick[i] : at + "/" + pick[i];
        bool is_dir = depth < 2 && (rng() % 3 == 0 || pick[i] == "build" || pick[i] == "doc" ||
                                    pick[i] == "src" || pick[i] == "lib" || pick[i] == "sub");
        if (is_dir) {
          fs::create_directories(dir / rel);
          paths.push_back({rel, true});
          grow(rel, depth + 1);
        } else {
          std::ofstream(dir / rel) << "x";
          paths.push_back({rel, false});
        }
      }
    };
    grow("", 0);
    std::string rules;
    std::vector<std::string> chosen = pool;
    std::shuffle(chosen.begin(), chosen.end(), rng);
    chosen.resize(14);
    for (auto& r : chosen) rules += r + "\n";
    std::ofstream(dir / ".gitignore") << rules;
    IgnoreList list;
    list.add_file(rules);

    std::string input;
    for (auto& [p, d] : paths) input += p + '\0';
    std::ofstream(dir / ".paths") << input;
    const std::string cmd = "cd '" + dir.string() +
                            "' && git init -q . && HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 "
                            "git -c core.excludesFile=/dev/null check-ignore --no-index -z -v -n "
                            "--stdin < .paths";
    std::string out = run_capture(cmd);
    // -z -v -n: source NUL linenum NUL pattern NUL path NUL; source and pattern are empty
    // when nothing matched, and a pattern starting with '!' is a negation that matched.
    std::vector<std::string> fields;
    for (size_t at = 0; at < out.size();) {
      size_t nul = out.find('\0', at);
      if (nul == std::string::npos) nul = out.size();
      fields.push_back(out.substr(at, nul - at));
      at = nul + 1;
    }
    ASSERT_EQ(fields.size() % 4, 0u) << out;
    std::map<std::string, bool> git_ignored;
    for (size_t i = 0; i + 3 < fields.size(); i += 4)
      git_ignored[fields[i + 3]] = !fields[i + 2].empty() && fields[i + 2][0] != '!';
    ASSERT_EQ(git_ignored.size(), paths.size()) << out;
    for (auto& [p, is_dir] : paths) {
      // git never looks inside an excluded directory: a parent's exclusion decides.
      bool ignored = false;
      for (size_t slash = p.find('/'); slash != std::string::npos && !ignored;
           slash = p.find('/', slash + 1))
        ignored = list.match(p.substr(0, slash), true) == Verdict::Ignore;
      if (!ignored) ignored = list.match(p, is_dir) == Verdict::Ignore;
      (ignored ? ignored_total : kept_total) += 1;
      EXPECT_EQ(ignored, git_ignored[p])
          << "path '" << p << "' (dir " << is_dir << ") with rules:\n"
          << rules;
    }
    fs::remove_all(dir);
  }
  // Both answers occur, so the comparison could have failed either way.
  EXPECT_GT(ignored_total, 50u);
  EXPECT_GT(kept_total, 50u);
}

}  // namespace
