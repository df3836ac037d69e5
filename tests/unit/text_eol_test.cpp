// text_eol_test.cpp — the line-ending policy (TOOLS.md): classification of whole files fed
// line by line as the line reader splits them, and how a line is shown under each kind.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "text/eol.h"

namespace {

using text::Eol;

// Splits a file's bytes as os::LineReader does (text without '\n'; the '\r' kept) and
// classifies it.
Eol classify(std::string_view file) {
  text::EolCounter counter;
  while (!file.empty()) {
    size_t nl = file.find('\n');
    if (nl == std::string_view::npos) {
      counter.add(file, false);
      break;
    }
    counter.add(file.substr(0, nl), true);
    file.remove_prefix(nl + 1);
  }
  return counter.result();
}

TEST(TextEol, Names) {
  EXPECT_EQ(text::eol_name(Eol::None), "none");
  EXPECT_EQ(text::eol_name(Eol::Lf), "lf");
  EXPECT_EQ(text::eol_name(Eol::Crlf), "crlf");
  EXPECT_EQ(text::eol_name(Eol::Mixed), "mixed");
}

TEST(TextEol, Lf) {
  EXPECT_EQ(classify("a\nb\n"), Eol::Lf);
  EXPECT_EQ(classify("\n"), Eol::Lf);
  EXPECT_EQ(classify("\n\n\n"), Eol::Lf);
  EXPECT_EQ(classify("a\rb\n"), Eol::Lf);  // a '\r' inside a line is not a line ending
}

TEST(TextEol, Crlf) {
  EXPECT_EQ(classify("a\r\nb\r\n"), Eol::Crlf);
  EXPECT_EQ(classify("\r\n"), Eol::Crlf);
  EXPECT_EQ(classify("a\r\r\n"), Eol::Crlf);
}

TEST(TextEol, Mixed) {
  EXPECT_EQ(classify("a\r\nb\n"), Eol::Mixed);
  EXPECT_EQ(classify("a\nb\r\n"), Eol::Mixed);
  text::EolCounter counter;
  counter.add("a\r", true);
  EXPECT_FALSE(counter.mixed());
  counter.add("b", true);
  EXPECT_TRUE(counter.mixed());
  EXPECT_EQ(counter.result(), Eol::Mixed);
  text::EolCounter plain;
  plain.add("a", true);
  plain.add("b", true);
  EXPECT_FALSE(plain.mixed());
}

TEST(TextEol, None) {
  EXPECT_EQ(classify(""), Eol::None);
  EXPECT_EQ(classify("no newline at all"), Eol::None);
  // Old Mac endings are not line endings under the policy: one line, no '\n', taken raw.
  EXPECT_EQ(classify("a\rb\rc\r"), Eol::None);
  EXPECT_EQ(classify("\r"), Eol::None);
  EXPECT_EQ(text::EolCounter().result(), Eol::None);
}

TEST(TextEol, LastLineWithoutNewlineDoesNotCount) {
  EXPECT_EQ(classify("a\r\nb"), Eol::Crlf);
  EXPECT_EQ(classify("a\nb\r"), Eol::Lf);  // the final "b\r" has no '\n': not CRLF evidence
  EXPECT_EQ(classify("a\r\nb\r"), Eol::Crlf);
}

TEST(TextEol, ShownLine) {
  EXPECT_EQ(text::shown_line("a\r", Eol::Crlf), "a");
  EXPECT_EQ(text::shown_line("a\r\r", Eol::Crlf), "a\r");  // only the ending's '\r' goes
  EXPECT_EQ(text::shown_line("\r", Eol::Crlf), "");
  EXPECT_EQ(text::shown_line("", Eol::Crlf), "");
  EXPECT_EQ(text::shown_line("a", Eol::Crlf), "a");  // a last line without newline
  // Anything but CRLF is raw: a stray '\r' stays visible.
  EXPECT_EQ(text::shown_line("a\r", Eol::Lf), "a\r");
  EXPECT_EQ(text::shown_line("a\r", Eol::Mixed), "a\r");
  EXPECT_EQ(text::shown_line("a\r", Eol::None), "a\r");
}

TEST(TextEol, Bom) {
  EXPECT_TRUE(text::has_bom("\xEF\xBB\xBFhello"));
  EXPECT_TRUE(text::has_bom("\xEF\xBB\xBF"));
  EXPECT_FALSE(text::has_bom("\xEF\xBB"));
  EXPECT_FALSE(text::has_bom("hello"));
  EXPECT_FALSE(text::has_bom(""));
}

// --- The rewrite a writer applies to its content ---------------------------------------------

using text::BomWrite;
using text::EolWrite;

// rewritten() and rewritten_size() agree, and `changed` is whether the bytes differ.
std::string rw(std::string_view in, EolWrite eol, BomWrite bom = BomWrite::AsGiven) {
  const text::Rewrite r = text::rewritten_size(in, eol, bom);
  std::string out = text::rewritten(in, eol, bom);
  EXPECT_EQ(r.size, out.size()) << in;
  EXPECT_EQ(r.changed, out != in) << in;
  return out;
}

TEST(TextRewrite, CrlfConvertsOnlyBareNewlines) {
  EXPECT_EQ(rw("a\nb\n", EolWrite::Crlf), "a\r\nb\r\n");
  EXPECT_EQ(rw("a\r\nb\r\n", EolWrite::Crlf), "a\r\nb\r\n");  // not doubled
  EXPECT_EQ(rw("a\r\nb\nc", EolWrite::Crlf), "a\r\nb\r\nc");  // mixed: the bare one only
  EXPECT_EQ(rw("\n\n\n", EolWrite::Crlf), "\r\n\r\n\r\n");    // a '\n' first is bare
  EXPECT_EQ(rw("a\rb\r", EolWrite::Crlf), "a\rb\r");          // a lone '\r' is a byte
  EXPECT_EQ(rw("a\r\r\nb", EolWrite::Crlf), "a\r\r\nb");
  EXPECT_EQ(rw("", EolWrite::Crlf), "");
  EXPECT_EQ(rw("no newline", EolWrite::Crlf), "no newline");
  EXPECT_EQ(rw("\xff\xfe\n\x80", EolWrite::Crlf), "\xff\xfe\r\n\x80");  // bytes, not UTF-8
}

TEST(TextRewrite, LfTakesOneCrOutOfEachPair) {
  EXPECT_EQ(rw("a\r\nb\r\n", EolWrite::Lf), "a\nb\n");
  EXPECT_EQ(rw("a\nb\r\nc", EolWrite::Lf), "a\nb\nc");
  EXPECT_EQ(rw("\r\n", EolWrite::Lf), "\n");
  EXPECT_EQ(rw("a\rb\r", EolWrite::Lf), "a\rb\r");
  EXPECT_EQ(rw("a\r\r\n", EolWrite::Lf), "a\r\n");  // one pass, as documented
  EXPECT_EQ(rw("\r", EolWrite::Lf), "\r");
}

TEST(TextRewrite, AsGivenIsTheIdentity) {
  for (std::string_view s : {"", "a\r\nb\n", "\xEF\xBB\xBFx\r", "\n"})
    EXPECT_EQ(rw(s, EolWrite::AsGiven), s);
}

TEST(TextRewrite, BomAddIsNotDoubledAndRemoveTakesOne) {
  const std::string bom(text::kBom);
  EXPECT_EQ(rw("a\n", EolWrite::AsGiven, BomWrite::Add), bom + "a\n");
  EXPECT_EQ(rw(bom + "a\n", EolWrite::AsGiven, BomWrite::Add), bom + "a\n");
  EXPECT_EQ(rw("", EolWrite::AsGiven, BomWrite::Add), bom);
  EXPECT_EQ(rw(bom + "a\n", EolWrite::AsGiven, BomWrite::Remove), "a\n");
  EXPECT_EQ(rw(bom + bom, EolWrite::AsGiven, BomWrite::Remove), bom);
  EXPECT_EQ(rw("a\n", EolWrite::AsGiven, BomWrite::Remove), "a\n");
  EXPECT_EQ(rw("\xEF\xBB", EolWrite::Crlf, BomWrite::Remove), "\xEF\xBB");  // half a BOM
  // Both at once: the BOM is settled first, then the line endings.
  EXPECT_EQ(rw("\nx\n", EolWrite::Crlf, BomWrite::Add), bom + "\r\nx\r\n");
  EXPECT_EQ(rw(bom + "\r\n", EolWrite::Lf, BomWrite::Remove), "\n");
}

TEST(TextRewrite, GrowthIsBoundedByTwiceAndABom) {
  const std::string all(1000, '\n');
  const text::Rewrite r = text::rewritten_size(all, EolWrite::Crlf, BomWrite::Add);
  EXPECT_EQ(r.size, 2 * all.size() + 3);
  EXPECT_TRUE(r.changed);
  // Same size, other bytes: a BOM off and three '\r' on.
  const std::string bom(text::kBom);
  EXPECT_EQ(rw(bom + "\n\n\n", EolWrite::Crlf, BomWrite::Remove), "\r\n\r\n\r\n");
}

}  // namespace
