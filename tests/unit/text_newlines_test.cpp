// text/newlines.h against a byte loop: every length around the vector widths, every
// alignment, runs of '\r' and '\n', and a "\r\n" split at the start of the range.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "text/newlines.h"

namespace {

TEST(TextNewlines, CountsAsAByteLoopDoes) {
  std::mt19937_64 rng(1);
  const char alphabet[] = {'\n', '\r', 'a', '\n', ' '};
  for (int round = 0; round < 3000; ++round) {
    std::string s(static_cast<size_t>(rng() % 300), 'x');
    for (char& c : s) c = alphabet[rng() % sizeof alphabet];
    const size_t from = s.empty() ? 0 : rng() % s.size();
    const char* p = s.data() + from;
    const size_t n = s.size() - from;
    uint64_t lf = 0, crlf = 0;
    for (size_t i = 0; i < n; ++i) {
      lf += p[i] == '\n';
      crlf += i > 0 && p[i] == '\n' && p[i - 1] == '\r';
    }
    ASSERT_EQ(text::count_newlines(p, n), lf) << round;
    ASSERT_EQ(text::count_crlf(p, n), crlf) << round;
  }
  EXPECT_EQ(text::count_crlf("\n", 1), 0u);  // the '\r' before p is not looked at
  EXPECT_EQ(text::count_newlines("", 0), 0u);
}

}  // namespace
