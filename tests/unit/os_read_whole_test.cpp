// os_read_whole_test.cpp — a whole input into a padded buffer: a file by its size, a pipe by
// doubling, the cap refused unread for a file and counted past for a pipe, the ceiling, and the
// zero padding a reading-ahead parser relies on.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <thread>

#include "os/read_whole.h"

namespace {

using Kind = os::WholeRead::Kind;

// A pipe fed `bytes` by a thread; the read end is returned, closed by the caller.
struct Pipe {
  int fd[2];
  std::thread writer;
  explicit Pipe(std::string bytes) {
    EXPECT_EQ(pipe(fd), 0);
    writer = std::thread([this, b = std::move(bytes)] {
      size_t at = 0;
      while (at < b.size()) {
        ssize_t n = write(fd[1], b.data() + at, b.size() - at);
        if (n <= 0) break;
        at += static_cast<size_t>(n);
      }
      close(fd[1]);
    });
  }
  ~Pipe() {
    char sink[4096];  // what was left unread, so that the writer ends without SIGPIPE
    while (read(fd[0], sink, sizeof sink) > 0) {
    }
    close(fd[0]);
    writer.join();
  }
};

TEST(OsReadWhole, APipeGrowsByDoublingAndIsPadded) {
  const std::string bytes(300000, 'j');
  Pipe p(bytes);
  os::PaddedBuffer buf(64);
  const os::WholeRead r = os::read_whole(p.fd[0], nullptr, 1 << 20, 1 << 30, buf);
  EXPECT_EQ(r.kind, Kind::Done);
  EXPECT_EQ(std::string_view(buf.p, buf.size), bytes);
  EXPECT_GT(buf.cap, buf.size);
  for (size_t i = buf.size; i < buf.cap + buf.pad; ++i) ASSERT_EQ(buf.p[i], 0) << i;
}

TEST(OsReadWhole, AFileByItsSizeAndRefusedUnreadPastTheCap) {
  char path[] = "/tmp/read_whole_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(write(fd, "{\"a\":1}", 7), 7);
  ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
  struct stat st {};
  ASSERT_EQ(fstat(fd, &st), 0);
  os::PaddedBuffer small(8);
  const os::WholeRead refused = os::read_whole(fd, &st, 6, 100, small);
  EXPECT_EQ(refused.kind, Kind::TooLarge);
  EXPECT_EQ(refused.size, 7u);
  EXPECT_EQ(small.cap, 0u);  // nothing was read
  os::PaddedBuffer buf(8);
  EXPECT_EQ(os::read_whole(fd, &st, 7, 100, buf).kind, Kind::Done);
  EXPECT_EQ(std::string_view(buf.p, buf.size), "{\"a\":1}");
  EXPECT_EQ(buf.cap, 8u);  // the size and one byte to see the end
  close(fd);
}

TEST(OsReadWhole, APipePastTheCapIsCountedToItsSize) {
  Pipe p(std::string(200000, 'x'));
  os::PaddedBuffer buf(8);
  const os::WholeRead r = os::read_whole(p.fd[0], nullptr, 1000, 1 << 20, buf);
  EXPECT_EQ(r.kind, Kind::TooLarge);
  EXPECT_EQ(r.size, 200000u);
  EXPECT_LE(buf.cap, 1001u);  // never held past the cap
}

TEST(OsReadWhole, PastTheCeilingTheSizeIsUnknown) {
  Pipe p(std::string(300000, 'x'));
  os::PaddedBuffer buf(8);
  const os::WholeRead r = os::read_whole(p.fd[0], nullptr, 10, 100000, buf);
  EXPECT_EQ(r.kind, Kind::TooLarge);
  EXPECT_FALSE(r.size.has_value());
}

TEST(OsReadWhole, AReadErrorIsItsErrno) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  os::PaddedBuffer buf(8);
  const os::WholeRead r = os::read_whole(fds[1], nullptr, 10, 100, buf);  // the write end
  EXPECT_EQ(r.kind, Kind::Failed);
  EXPECT_EQ(r.error, EBADF);
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
