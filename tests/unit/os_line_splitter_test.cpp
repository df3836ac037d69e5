// os_line_splitter_test.cpp — lines read from a descriptor: whole in a chunk or carried across
// reads, a line past the cap measured but not held, its trailing '\r' still seen, the last line
// without '\n', and a stop asked by either callback.

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "os/line_splitter.h"

namespace {

struct Line {
  std::string text;
  size_t length;
  bool too_long, newline, cr;
  bool operator==(const Line&) const = default;
};

// Splits `bytes` written into a pipe (so reads come in pieces) with lines capped at `max`.
std::vector<Line> split(const std::string& bytes, size_t max, size_t stop_after = SIZE_MAX) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  std::thread writer([&] {
    size_t at = 0;
    while (at < bytes.size()) {
      ssize_t n = write(fds[1], bytes.data() + at, std::min<size_t>(bytes.size() - at, 70000));
      if (n <= 0) break;
      at += static_cast<size_t>(n);
    }
    close(fds[1]);
  });
  std::vector<Line> lines;
  os::LineSplitter s(max);
  int err = s.run(
      fds[0],
      [&](std::string_view text, size_t length, bool too_long, bool newline, bool cr) {
        lines.push_back({std::string(text), length, too_long, newline, cr});
        return lines.size() < stop_after;
      },
      [] { return true; });
  EXPECT_EQ(err, 0);
  char sink[4096];
  while (read(fds[0], sink, sizeof sink) > 0) {
  }
  writer.join();
  close(fds[0]);
  return lines;
}

TEST(OsLineSplitter, ShortLines) {
  auto lines = split("a\r\n\nbc", 16);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], (Line{"a\r", 2, false, true, true}));
  EXPECT_EQ(lines[1], (Line{"", 0, false, true, false}));
  EXPECT_EQ(lines[2], (Line{"bc", 2, false, false, false}));
}

TEST(OsLineSplitter, LinesCarriedAcrossReads) {
  const std::string a(300000, 'a'), b(600000, 'b');  // each spans read chunks
  auto lines = split(a + "\n" + b + "\r\nend\n", 1 << 20);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], (Line{a, a.size(), false, true, false}));
  EXPECT_EQ(lines[1], (Line{b + "\r", b.size() + 1, false, true, true}));
  EXPECT_EQ(lines[2], (Line{"end", 3, false, true, false}));
}

TEST(OsLineSplitter, ALineOverTheCapIsMeasuredNotHeld) {
  const std::string big(700000, 'x');
  auto lines = split("0123456789\n" + big + "\r\n" + big, 10);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], (Line{"0123456789", 10, false, true, false}));
  EXPECT_EQ(lines[1], (Line{"", big.size() + 1, true, true, true}));
  EXPECT_EQ(lines[2], (Line{"", big.size(), true, false, false}));
}

TEST(OsLineSplitter, StopsWhenAsked) {
  EXPECT_EQ(split("a\nb\nc\n", 8, 2).size(), 2u);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "a\nb\n", 4), 4);
  close(fds[1]);
  os::LineSplitter s(8);
  size_t seen = 0;
  s.run(
      fds[0], [&](std::string_view, size_t, bool, bool, bool) { return ++seen, true; },
      [] { return false; });
  EXPECT_EQ(seen, 0u);
  close(fds[0]);
}

}  // namespace
