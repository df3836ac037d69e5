// text_diff_test.cpp — the structured line diff: hunks as diff -u writes them, the missing
// final newline, CRLF shown under the eol policy, caps that cut consistently, and on random
// inputs: applying the hunks gives back the new text exactly, and the script is minimal
// (checked against an LCS computed by dynamic programming).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "text/diff.h"

namespace {

std::string applied(std::string_view a, const text::Diff& d) {
  std::string out;
  EXPECT_TRUE(text::apply(a, d, out));
  return out;
}

std::string ops(const text::Hunk& h) {
  std::string s;
  for (auto& l : h.lines) s += l.op;
  return s;
}

std::vector<std::string> lines_of(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find('\n', i);
    if (j == std::string_view::npos) {
      out.emplace_back(std::string(s.substr(i)) + "<no-newline>");
      break;
    }
    out.emplace_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

size_t lcs(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<size_t>> t(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

TEST(Diff, IdenticalHasNoHunks) {
  auto d = text::diff_lines("a\nb\n", "a\nb\n");
  EXPECT_EQ(d.added, 0u);
  EXPECT_EQ(d.removed, 0u);
  EXPECT_TRUE(d.hunks.empty());
  EXPECT_FALSE(d.truncated);
  EXPECT_TRUE(text::diff_lines("", "").hunks.empty());
}

TEST(Diff, NewFileIsOneHunkFromZero) {
  auto d = text::diff_lines("", "x\ny\n");
  ASSERT_EQ(d.hunks.size(), 1u);
  const auto& h = d.hunks[0];
  EXPECT_EQ(h.old_start, 0u);
  EXPECT_EQ(h.old_lines, 0u);
  EXPECT_EQ(h.new_start, 1u);
  EXPECT_EQ(h.new_lines, 2u);
  EXPECT_EQ(ops(h), "++");
  EXPECT_EQ(d.added, 2u);
  EXPECT_EQ(d.old_eol, text::Eol::None);
  EXPECT_EQ(d.new_eol, text::Eol::Lf);
}

TEST(Diff, ChangeInTheMiddleHasThreeLinesOfContext) {
  std::string a, b;
  for (int i = 1; i <= 20; ++i) {
    a += std::to_string(i) + "\n";
    b += (i == 10 ? std::string("ten") : std::to_string(i)) + "\n";
  }
  auto d = text::diff_lines(a, b);
  ASSERT_EQ(d.hunks.size(), 1u);
  const auto& h = d.hunks[0];
  // diff -u: @@ -7,7 +7,7 @@
  EXPECT_EQ(h.old_start, 7u);
  EXPECT_EQ(h.old_lines, 7u);
  EXPECT_EQ(h.new_start, 7u);
  EXPECT_EQ(h.new_lines, 7u);
  EXPECT_EQ(ops(h), "   -+   ");
  EXPECT_EQ(h.lines[3].text, "10");
  EXPECT_EQ(h.lines[4].text, "ten");
  EXPECT_EQ(applied(a, d), b);
}

TEST(Diff, NearbyChangesShareAHunkFarOnesDoNot) {
  std::string a, near, far;
  for (int i = 1; i <= 40; ++i) {
    a += std::to_string(i) + "\n";
    near += (i == 10 || i == 16 ? "x" : std::to_string(i)) + std::string("\n");
    far += (i == 10 || i == 18 ? "x" : std::to_string(i)) + std::string("\n");
  }
  // 5 unchanged lines between: within 2 * 3 context, one hunk (as diff -u joins them).
  EXPECT_EQ(text::diff_lines(a, near).hunks.size(), 1u);
  // 7 between: two hunks.
  auto d = text::diff_lines(a, far);
  ASSERT_EQ(d.hunks.size(), 2u);
  EXPECT_EQ(d.hunks[0].old_start, 7u);
  EXPECT_EQ(d.hunks[1].old_start, 15u);
  EXPECT_EQ(applied(a, d), far);
}

TEST(Diff, PureInsertionStartsAfterTheLineBefore) {
  auto d = text::diff_lines("a\nb\n", "a\nb\nc\n");
  ASSERT_EQ(d.hunks.size(), 1u);
  // diff -u: @@ -1,2 +1,3 @@
  EXPECT_EQ(d.hunks[0].old_start, 1u);
  EXPECT_EQ(d.hunks[0].old_lines, 2u);
  EXPECT_EQ(d.hunks[0].new_lines, 3u);
  auto del = text::diff_lines("a\n", "");
  // diff -u: @@ -1 +0,0 @@
  EXPECT_EQ(del.hunks[0].old_start, 1u);
  EXPECT_EQ(del.hunks[0].new_start, 0u);
  EXPECT_EQ(del.hunks[0].new_lines, 0u);
}

TEST(Diff, MissingFinalNewlineIsALineThatDiffers) {
  auto d = text::diff_lines("a\nb", "a\nb\n");
  EXPECT_EQ(d.added, 1u);
  EXPECT_EQ(d.removed, 1u);
  ASSERT_EQ(d.hunks.size(), 1u);
  EXPECT_EQ(ops(d.hunks[0]), " -+");
  EXPECT_FALSE(d.hunks[0].lines[1].newline);
  EXPECT_TRUE(d.hunks[0].lines[2].newline);
  EXPECT_EQ(applied("a\nb", d), "a\nb\n");
  auto j = text::diff_json(d);
  const auto& lines = j.get("hunks")->items()[0].get("lines")->items();
  EXPECT_TRUE(lines[1].get("no_newline"));
  EXPECT_FALSE(lines[2].get("no_newline"));
}

TEST(Diff, CrlfLinesAreShownWithoutTheirCarriageReturn) {
  std::string a = "one\r\ntwo\r\nthree\r\n", b = "one\r\n2\r\nthree\r\n";
  auto d = text::diff_lines(a, b);
  EXPECT_EQ(d.old_eol, text::Eol::Crlf);
  EXPECT_EQ(d.hunks[0].lines[1].text, "two\r");  // raw: apply gives the bytes back
  EXPECT_EQ(applied(a, d), b);
  auto j = text::diff_json(d);
  const auto& lines = j.get("hunks")->items()[0].get("lines")->items();
  EXPECT_EQ(lines[1].get("text")->str(), "two");
  EXPECT_EQ(lines[2].get("text")->str(), "2");
  EXPECT_EQ(j.get("old_eol")->str(), "crlf");
  // A mixed file is raw: the stray '\r' stays visible.
  auto m = text::diff_json(text::diff_lines("a\r\nb\n", "a\r\nc\n"));
  EXPECT_EQ(m.get("hunks")->items()[0].get("lines")->items()[0].get("text")->str(), "a\r");
}

TEST(Diff, BomTabsAndBinaryBytesArePreserved) {
  std::string a = "\xEF\xBB\xBFhead\n\tx\n\xff\xfe\n", b = "\xEF\xBB\xBFhead\n\ty\n\xff\xfe\n";
  auto d = text::diff_lines(a, b);
  EXPECT_EQ(applied(a, d), b);
  EXPECT_EQ(d.hunks[0].lines[0].text, "\xEF\xBB\xBFhead");
  auto j = text::diff_json(d);
  // Not UTF-8: the line is {"b64":...}, never a replacement character.
  EXPECT_EQ(j.get("hunks")->items()[0].get("lines")->items()[3].get("text")->type(),
            contract::Json::Type::Bytes);
}

// The BOM is named, not shown as part of line 1 (as readers show it), so a BOM added or
// removed is line 1 changed with old_bom/new_bom saying why.
TEST(Diff, BomIsNamedAndNotShownInLine1) {
  const std::string bom = "\xEF\xBB\xBF";
  auto line_texts = [](const contract::Json& j) {
    std::vector<std::string> out;
    for (const auto& h : j.get("hunks")->items())
      for (const auto& l : h.get("lines")->items())
        out.push_back(l.get("op")->str() + l.get("text")->str());
    return out;
  };
  // Kept on both sides: line 1 is context, shown without it.
  auto kept = text::diff_json(text::diff_lines(bom + "a\nb\n", bom + "a\nc\n"));
  EXPECT_TRUE(kept.get("old_bom")->as_bool());
  EXPECT_TRUE(kept.get("new_bom")->as_bool());
  EXPECT_EQ(line_texts(kept), (std::vector<std::string>{" a", "-b", "+c"}));
  // Added: line 1 changed, its text the same, the fields say why.
  auto added = text::diff_json(text::diff_lines("a\nb\n", bom + "a\nb\n"));
  EXPECT_FALSE(added.get("old_bom")->as_bool());
  EXPECT_TRUE(added.get("new_bom")->as_bool());
  EXPECT_EQ(added.get("added")->as_uint(), 1u);
  EXPECT_EQ(added.get("removed")->as_uint(), 1u);
  EXPECT_EQ(line_texts(added), (std::vector<std::string>{"-a", "+a", " b"}));
  // Removed, in a CRLF file: both policies apply to line 1.
  auto removed = text::diff_json(text::diff_lines(bom + "a\r\n", "a\r\n"));
  EXPECT_TRUE(removed.get("old_bom")->as_bool());
  EXPECT_FALSE(removed.get("new_bom")->as_bool());
  EXPECT_EQ(line_texts(removed), (std::vector<std::string>{"-a", "+a"}));
  // Neither: the bytes of a BOM later in a file are text, shown as they are; and a line moved
  // off line 1 loses nothing.
  auto later = text::diff_json(text::diff_lines("x\n", "y\n" + bom + "x\n"));
  EXPECT_FALSE(later.get("old_bom")->as_bool());
  EXPECT_FALSE(later.get("new_bom")->as_bool());
  EXPECT_EQ(line_texts(later), (std::vector<std::string>{"-x", "+y", "+\ufeffx"}));
  // A file that is only a BOM: one line without newline, shown empty.
  auto only = text::diff_json(text::diff_lines(bom, bom + "z\n"));
  EXPECT_EQ(line_texts(only), (std::vector<std::string>{"-", "+z"}));
  // The builder takes them from its caller.
  text::DiffBuilder b;
  b.add(bom + "a\n", bom + "b\n", 0, 0);
  auto built = text::diff_json(std::move(b).finish(text::Eol::Lf, text::Eol::Lf, true, true));
  EXPECT_TRUE(built.get("new_bom")->as_bool());
  EXPECT_EQ(line_texts(built), (std::vector<std::string>{"-a", "+b"}));
}

TEST(Diff, MaxLinesCutsConsistentlyAndCountsStayWhole) {
  std::string a, b;
  for (int i = 0; i < 100; ++i) {
    a += "old" + std::to_string(i) + "\n";
    b += "new" + std::to_string(i) + "\n";
  }
  text::DiffOptions opt;
  opt.max_lines = 10;
  auto d = text::diff_lines(a, b, opt);
  EXPECT_TRUE(d.truncated);
  EXPECT_EQ(d.added, 100u);
  EXPECT_EQ(d.removed, 100u);
  ASSERT_EQ(d.hunks.size(), 1u);
  EXPECT_EQ(d.hunks[0].lines.size(), 10u);
  EXPECT_EQ(d.hunks[0].old_lines, 10u);  // the header counts what is listed
  EXPECT_EQ(d.hunks[0].new_lines, 0u);
  opt.max_lines = 0;
  auto none = text::diff_lines(a, b, opt);
  EXPECT_TRUE(none.truncated);
  EXPECT_TRUE(none.hunks.empty());
  EXPECT_EQ(none.added, 100u);
  opt.max_lines = UINT64_MAX;
  opt.max_bytes = 5;
  auto bytes = text::diff_lines(a, b, opt);
  EXPECT_TRUE(bytes.truncated);
  EXPECT_EQ(bytes.hunks.size(), 1u);
  EXPECT_EQ(bytes.hunks[0].lines.size(), 1u);
}

TEST(Diff, ExhaustedBudgetFallsBackToAnExactCoarseScript) {
  std::string a, b;
  for (int i = 0; i < 300; ++i) {
    a += std::to_string(i % 7) + "\n";
    b += std::to_string(i % 5) + "\n";
  }
  text::DiffOptions opt;
  opt.budget = 10;
  auto d = text::diff_lines(a, b, opt);
  EXPECT_EQ(applied(a, d), b);
  auto full = text::diff_lines(a, b);
  EXPECT_EQ(applied(a, full), b);
  EXPECT_LE(full.added + full.removed, d.added + d.removed);
}

std::string random_text(std::mt19937& rng, int max_lines, int alphabet) {
  std::uniform_int_distribution<int> len(0, max_lines), pick(0, alphabet - 1), coin(0, 3);
  std::string s;
  int n = len(rng);
  for (int i = 0; i < n; ++i) {
    s += "l" + std::to_string(pick(rng));
    if (coin(rng) == 0) s += '\r';
    s += '\n';
  }
  if (!s.empty() && coin(rng) == 0) s.pop_back();  // no final newline
  return s;
}

TEST(Diff, RandomInputsApplyExactlyAndAreMinimal) {
  std::mt19937 rng(20240611);
  for (int round = 0; round < 3000; ++round) {
    int alphabet = 1 + round % 6;
    std::string a = random_text(rng, 30, alphabet), b = random_text(rng, 30, alphabet);
    auto d = text::diff_lines(a, b);
    ASSERT_EQ(applied(a, d), b) << "round " << round;
    auto la = lines_of(a), lb = lines_of(b);
    size_t common = lcs(la, lb);
    ASSERT_EQ(d.removed, la.size() - common) << "round " << round;
    ASSERT_EQ(d.added, lb.size() - common) << "round " << round;
    // Every hunk header counts its lines, and hunks do not overlap.
    uint64_t last_end = 0;
    for (auto& h : d.hunks) {
      uint64_t old_n = 0, new_n = 0;
      for (auto& l : h.lines) {
        old_n += l.op != '+';
        new_n += l.op != '-';
      }
      ASSERT_EQ(old_n, h.old_lines);
      ASSERT_EQ(new_n, h.new_lines);
      uint64_t start = h.old_lines ? h.old_start - 1 : h.old_start;
      ASSERT_GE(start, last_end);
      last_end = start + h.old_lines;
    }
  }
}

// The edit an agent makes: a copy of the old text with a few lines changed, inserted, deleted
// or moved, lines repeated here and there, lines of every length (the line splitter reads 16
// bytes at a time: '\n' at every offset in a block, lines longer than a block). The new side
// is mostly the old side in order, the case its ids are found for without the table.
std::string edited_text(std::mt19937& rng, const std::string& a) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < a.size();) {
    size_t j = a.find('\n', i);
    if (j == std::string::npos) j = a.size() - 1;
    lines.push_back(a.substr(i, j + 1 - i));
    i = j + 1;
  }
  std::uniform_int_distribution<int> what(0, 5);
  std::uniform_int_distribution<size_t> where(0, lines.size());
  const int edits = std::uniform_int_distribution<int>(0, 6)(rng);
  for (int e = 0; e < edits && !lines.empty(); ++e) {
    const size_t at = where(rng) % lines.size();
    switch (what(rng)) {
      case 0: lines[at] = "changed " + std::to_string(e) + "\n"; break;
      case 1: lines.insert(lines.begin() + static_cast<long>(at), "inserted\n"); break;
      case 2: lines.erase(lines.begin() + static_cast<long>(at)); break;
      case 3: {
        const std::string copy = lines[(at * 7) % lines.size()];
        lines.insert(lines.begin() + static_cast<long>(at), copy);
        break;
      }
      case 4: std::swap(lines[at], lines[(at + 3) % lines.size()]); break;
      default: {
        const std::string copy = lines[at];
        lines.push_back(copy);
        break;
      }
    }
  }
  std::string b;
  for (auto& l : lines) b += l;
  if (!b.empty() && what(rng) == 0) b.pop_back();  // no final newline
  return b;
}

std::string long_lines_text(std::mt19937& rng, int max_lines) {
  std::uniform_int_distribution<int> n(0, max_lines), len(0, 40), pick(0, 9);
  std::string s;
  for (int i = n(rng); i > 0; --i) {
    const int k = pick(rng);
    s += std::string(static_cast<size_t>(len(rng) % (k + 1) * 3), static_cast<char>('a' + k));
    s += "l" + std::to_string(k) + "\n";
  }
  return s;
}

TEST(Diff, EditedCopiesApplyExactlyAndAreMinimal) {
  std::mt19937 rng(20261202);
  for (int round = 0; round < 3000; ++round) {
    const std::string a = long_lines_text(rng, 60);
    const std::string b = edited_text(rng, a);
    auto d = text::diff_lines(a, b);
    ASSERT_EQ(applied(a, d), b) << "round " << round;
    auto la = lines_of(a), lb = lines_of(b);
    const size_t common = lcs(la, lb);
    ASSERT_EQ(d.removed, la.size() - common) << "round " << round;
    ASSERT_EQ(d.added, lb.size() - common) << "round " << round;
    // And the other way round: the new side's lines are then looked up as the old side's.
    auto back = text::diff_lines(b, a);
    ASSERT_EQ(applied(b, back), a) << "round " << round;
    ASSERT_EQ(back.removed + back.added, d.removed + d.added) << "round " << round;
  }
}

TEST(Diff, KnownLineEndingsGiveTheSameDiff) {
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    const std::string a = random_text(rng, 30, 1 + round % 6), b = random_text(rng, 30, 3);
    const auto plain = text::diff_lines(a, b);
    text::EolTally ta, tb;
    ta.add(a);
    tb.add(b);
    const auto told = text::diff_lines(a, b, {}, ta.result(), tb.result());
    ASSERT_EQ(text::diff_json(told).dump(), text::diff_json(plain).dump()) << "round " << round;
  }
}

// Fast is counted in Myers steps (the budget), not time: past the budget the rest is reported
// removed-then-added whole, which these assertions would see. Lines without an equal on the
// other side are set aside before Myers runs, so scattered changes and unrelated files leave it
// (almost) nothing to do; without that, each would cost about N*D steps, past these budgets.
TEST(Diff, LargeFilesWithScatteredChangesStayFast) {
  std::string a, b;
  for (int i = 0; i < 200000; ++i) {
    a += "line " + std::to_string(i) + "\n";
    b += (i % 1000 == 0 ? "changed " : "line ") + std::to_string(i) + "\n";
  }
  text::DiffOptions opt;
  opt.budget = 10000;  // a twentieth of a step a line: 400 changes, each found without Myers
  opt.max_bytes = UINT64_MAX;
  auto d = text::diff_lines(a, b, opt);
  EXPECT_EQ(d.added, 200u);
  EXPECT_EQ(d.removed, 200u);
  EXPECT_EQ(d.hunks.size(), 200u);
  EXPECT_TRUE(applied(a, d) == b);
}

TEST(Diff, UnrelatedLargeFilesCostOnePass) {
  // Unrelated but for one line in the middle, which the minimal script keeps: found only if
  // the 200000 lines that have no equal cost no Myers steps (set aside in one pass).
  std::string a, b;
  for (int i = 0; i < 100000; ++i) {
    if (i == 50000) {
      a += "shared\n";
      b += "shared\n";
    }
    a += "old " + std::to_string(i) + "\n";
    b += "new " + std::to_string(i) + "\n";
  }
  text::DiffOptions opt;
  opt.budget = 1000;
  opt.max_bytes = UINT64_MAX;
  auto d = text::diff_lines(a, b, opt);
  EXPECT_EQ(d.added, 100000u);
  EXPECT_EQ(d.removed, 100000u);
  EXPECT_FALSE(d.truncated);
  EXPECT_TRUE(applied(a, d) == b);  // not EXPECT_EQ: a failure would print megabytes
}

TEST(Diff, ACarriageReturnEndingAFileIsShown) {
  // CRLF file whose last line has no '\n': its '\r' is a byte of the line, not an ending.
  auto d = text::diff_lines("a\r\nb\r\n", "a\r\nb\r");
  EXPECT_EQ(d.new_eol, text::Eol::Crlf);
  auto j = text::diff_json(d);
  const auto& lines = j.get("hunks")->items()[0].get("lines")->items();
  EXPECT_EQ(lines[1].get("text")->str(), "b");    // '-' b\r\n: shown without its ending
  EXPECT_EQ(lines[2].get("text")->str(), "b\r");  // '+' b\r, no newline: the \r shown
  EXPECT_TRUE(lines[2].get("no_newline"));
}

TEST(Diff, ARepeatedLineInsertedNextToItselfKeepsItsContext) {
  // The common head and tail, cut as bytes, overlap on the repeated line "e"; the tail is
  // measured against the head before the head gives back its context lines, so the hunk keeps
  // its three lines after the change (diff -u: @@ -1,5 +1,6 @@).
  auto d = text::diff_lines("x y\ne\nc\ne\na\n", "x y\ne\ne\nc\ne\na\n");
  ASSERT_EQ(d.hunks.size(), 1u);
  EXPECT_EQ(ops(d.hunks[0]), "  +   ");
  EXPECT_EQ(d.hunks[0].old_start, 1u);
  EXPECT_EQ(d.hunks[0].old_lines, 5u);
  EXPECT_EQ(d.hunks[0].new_lines, 6u);
}

TEST(Diff, AChangeDeepInALargeFileHasItsLineNumbersAndContext) {
  // Only the changed lines and their context are split; the numbers still count from the top.
  std::string a, b;
  for (int i = 1; i <= 100000; ++i) {
    a += "line " + std::to_string(i) + "\n";
    b += (i == 50000 ? "changed" : "line " + std::to_string(i)) + "\n";
  }
  auto d = text::diff_lines(a, b);
  ASSERT_EQ(d.hunks.size(), 1u);
  const auto& h = d.hunks[0];
  EXPECT_EQ(ops(h), "   -+   ");
  EXPECT_EQ(h.old_start, 49997u);
  EXPECT_EQ(h.new_start, 49997u);
  EXPECT_EQ(h.lines.front().text, "line 49997");
  EXPECT_EQ(h.lines.back().text, "line 50003");
  EXPECT_TRUE(applied(a, d) == b);
}

TEST(Diff, ChangesAtTheEdgesKeepTheContextThereIs) {
  auto d = text::diff_lines("1\n2\n3\n4\n5\n6\n7\n8\n9\n10", "0\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
  ASSERT_EQ(d.hunks.size(), 2u);
  EXPECT_EQ(ops(d.hunks[0]), "-+   ");
  EXPECT_EQ(ops(d.hunks[1]), "   -+");
  EXPECT_EQ(d.hunks[1].old_start, 7u);
  EXPECT_FALSE(d.hunks[1].lines[3].newline);
  EXPECT_TRUE(d.hunks[1].lines[4].newline);
}

TEST(Diff, ANewFileIsListedUpToTheCapAndCountedWhole) {
  std::string b;
  for (int i = 0; i < 10000; ++i) b += "l" + std::to_string(i) + "\n";
  text::DiffOptions opt;
  opt.max_lines = 5;
  auto d = text::diff_lines("", b, opt);
  EXPECT_EQ(d.added, 10000u);
  EXPECT_EQ(d.removed, 0u);
  EXPECT_TRUE(d.truncated);
  ASSERT_EQ(d.hunks.size(), 1u);
  EXPECT_EQ(d.hunks[0].lines.size(), 5u);
  EXPECT_EQ(d.hunks[0].new_start, 1u);
  EXPECT_EQ(d.hunks[0].new_lines, 5u);
}

TEST(Diff, RegionsGiveTheHunksOfTheWholeFiles) {
  // replace hands DiffBuilder only the lines around each change (with the context around
  // them, regions that touch joined); the hunks are those of the whole files.
  std::string a, b;
  std::vector<size_t> starts_a{0}, starts_b{0};
  const std::vector<int> changed{3, 40, 46, 200, 997};
  for (int i = 0; i < 1000; ++i) {
    std::string l = "line " + std::to_string(i) + "\n";
    a += l;
    bool c = std::find(changed.begin(), changed.end(), i) != changed.end();
    b += c ? "new " + std::to_string(i) + "\nmore\n" : l;
    starts_a.push_back(a.size());
    starts_b.push_back(b.size());
  }
  auto whole = text::diff_lines(a, b);
  // Regions: lines [c - 3, c + 4) of a, joined where they touch; b's lines are shifted by one
  // per change before them.
  text::DiffBuilder builder;
  size_t k = 0;
  while (k < changed.size()) {
    int lo = std::max(0, changed[k] - 3), hi = std::min(1000, changed[k] + 4);
    size_t first = k;
    while (k + 1 < changed.size() && changed[k + 1] - 3 <= hi) hi = std::min(1000, changed[++k] + 4);
    ++k;
    const size_t shift = first;  // changes before this region each added one line
    // Copies that die at the end of the loop: the builder copies what it lists.
    std::string ra = a.substr(starts_a[lo], starts_a[hi] - starts_a[lo]);
    std::string rb = b.substr(starts_b[lo], starts_b[hi] - starts_b[lo]);
    builder.add(ra, rb, static_cast<uint64_t>(lo), static_cast<uint64_t>(lo) + shift);
  }
  auto parts =
      std::move(builder).finish(whole.old_eol, whole.new_eol, whole.old_bom, whole.new_bom);
  EXPECT_EQ(parts.added, whole.added);
  EXPECT_EQ(parts.removed, whole.removed);
  ASSERT_EQ(parts.hunks.size(), whole.hunks.size());
  for (size_t h = 0; h < whole.hunks.size(); ++h) {
    EXPECT_EQ(parts.hunks[h].old_start, whole.hunks[h].old_start) << h;
    EXPECT_EQ(parts.hunks[h].new_start, whole.hunks[h].new_start) << h;
    EXPECT_EQ(ops(parts.hunks[h]), ops(whole.hunks[h])) << h;
    for (size_t l = 0; l < whole.hunks[h].lines.size(); ++l)
      EXPECT_EQ(parts.hunks[h].lines[l].text, whole.hunks[h].lines[l].text);
  }
  EXPECT_TRUE(applied(a, parts) == b);
}

TEST(Diff, EolTallyCountsALineEndingSplitAcrossPieces) {
  text::EolTally t;
  t.add("a\r");
  t.add("\nb\r");
  t.add("\n");
  EXPECT_EQ(t.result(), text::Eol::Crlf);
  t.add("c\n");
  EXPECT_EQ(t.result(), text::Eol::Mixed);
  text::EolTally none;
  none.add("no newline at all\r");
  EXPECT_EQ(none.result(), text::Eol::None);
}

TEST(Diff, RenderIsDiffUnifiedBody) {
  auto j = text::diff_json(text::diff_lines("a\nb", "a\nc\n"));
  std::string out;
  text::render_diff(j, out);
  EXPECT_EQ(out, "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n");
}

}  // namespace
