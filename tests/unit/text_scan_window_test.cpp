// text_scan_window_test.cpp — the window shown around the first occurrence in a long line:
// `side` bytes either side, clipped to the line, and never starting or ending inside a UTF-8
// character.

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "text/scan.h"

namespace {

text::ReadAt reader(const std::string& bytes) {
  return [&bytes](char* buf, size_t len, uint64_t off) -> long long {
    if (off >= bytes.size()) return 0;
    const size_t n = std::min<size_t>(len, bytes.size() - off);
    std::memcpy(buf, bytes.data() + off, n);
    return static_cast<long long>(n);
  };
}

text::ScanResult long_line(uint64_t first, uint64_t start, uint64_t end) {
  text::ScanResult r;
  r.long_offsets = {first};
  r.first_long_start = start;
  r.first_long_end = end;
  return r;
}

TEST(TextScanWindow, SideBytesEitherSideOfTheNeedle) {
  const std::string bytes(1000, 'a');
  const auto [from, to] = text::window_around(long_line(500, 0, 1000), 3, 10, reader(bytes));
  EXPECT_EQ(from, 490u);
  EXPECT_EQ(to, 513u);
}

TEST(TextScanWindow, ClippedToTheLine) {
  const std::string bytes(1000, 'a');
  const auto [from, to] = text::window_around(long_line(105, 100, 110), 2, 10, reader(bytes));
  EXPECT_EQ(from, 100u);
  EXPECT_EQ(to, 110u);
  const auto [f0, t0] = text::window_around(long_line(3, 0, 1000), 0, 10, reader(bytes));
  EXPECT_EQ(f0, 0u);
  EXPECT_EQ(t0, 13u);
}

TEST(TextScanWindow, NeverInsideAUtf8Character) {
  // "é" is C3 A9 and "€" E2 82 AC: a cut at 10 falls after C3, a cut at 30 inside the euro.
  std::string bytes(40, 'a');
  bytes.replace(9, 2, "\xc3\xa9");
  bytes.replace(29, 3, "\xe2\x82\xac");
  const auto [from, to] = text::window_around(long_line(20, 0, 40), 0, 10, reader(bytes));
  EXPECT_EQ(from, 11u);  // stepped past A9, the tail of "é"
  EXPECT_EQ(to, 29u);    // stepped back before 82 AC, to the start of "€"
}

}  // namespace
