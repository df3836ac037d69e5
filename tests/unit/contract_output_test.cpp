// contract_output_test.cpp — the checked writer (output.h): a closed pipe and a full disk are
// detected (CONTRACT.md §1, "Output failures are detected"), nothing more is written after the
// first failure, and a large write through a pipe arrives whole and in order.

#include "contract/output.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <thread>

namespace {

using contract::Out;

// Ignores SIGPIPE for the scope of a test (as contract::run_main does), then restores it.
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, &old_);
  }
  ~IgnoreSigpipe() { sigaction(SIGPIPE, &old_, nullptr); }

 private:
  struct sigaction old_ {};
};

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int fds[2];
    if (::pipe(fds) == 0) {
      r = fds[0];
      w = fds[1];
    }
  }
  ~Pipe() {
    if (r >= 0) ::close(r);
    if (w >= 0) ::close(w);
  }
  void close_read() {
    ::close(r);
    r = -1;
  }
  void close_write() {
    ::close(w);
    w = -1;
  }
};

// Everything readable from a non-blocking read end right now.
std::string drain_now(int fd) {
  std::string got;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

TEST(ContractOutput, ClosedPipeIsEpipeAfterFlush) {
  IgnoreSigpipe guard;
  Pipe p;
  ASSERT_GE(p.r, 0);
  p.close_read();
  Out out(p.w);
  out.write("{\"type\":\"end\"}\n");
  EXPECT_FALSE(out.failed()) << "nothing is written before the flush";
  EXPECT_FALSE(out.flush());
  EXPECT_TRUE(out.failed());
  EXPECT_EQ(out.error(), EPIPE);
  // It stays failed; later writes are dropped, not retried, and the error is kept.
  out.write("more");
  EXPECT_FALSE(out.flush());
  EXPECT_TRUE(out.failed());
  EXPECT_EQ(out.error(), EPIPE);
  EXPECT_TRUE(out.buffer().empty());
}

TEST(ContractOutput, NothingIsWrittenAfterTheFirstFailure) {
  // The descriptor fails once (closed pipe), then is made to point at a working pipe: the
  // writer must stay failed and write nothing more (a stream cut short must stay cut short).
  IgnoreSigpipe guard;
  Pipe dead, live;
  ASSERT_GE(dead.r, 0);
  ASSERT_GE(live.r, 0);
  ASSERT_EQ(::fcntl(live.r, F_SETFL, O_NONBLOCK), 0);
  dead.close_read();
  Out out(dead.w);
  out.write("first");
  EXPECT_FALSE(out.flush());
  EXPECT_EQ(out.error(), EPIPE);
  ASSERT_EQ(::dup2(live.w, dead.w), dead.w);
  out.write("second");
  EXPECT_FALSE(out.flush());
  EXPECT_TRUE(out.failed());
  EXPECT_EQ(out.error(), EPIPE);
  EXPECT_EQ(drain_now(live.r), "");
}

TEST(ContractOutput, ClosedPipeDetectedByAutomaticFlush) {
  IgnoreSigpipe guard;
  Pipe p;
  ASSERT_GE(p.r, 0);
  p.close_read();
  Out out(p.w, 8);
  out.write("0123");
  EXPECT_FALSE(out.failed());
  out.write("4567");  // reaches flush_at: written now, and the write fails
  EXPECT_TRUE(out.failed());
  EXPECT_EQ(out.error(), EPIPE);
}

TEST(ContractOutput, FullDiskIsEnospc) {
  int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "/dev/full is not available";
  Out out(fd);
  out.write(std::string(100, 'x'));
  EXPECT_FALSE(out.failed());
  EXPECT_FALSE(out.flush());
  EXPECT_TRUE(out.failed());
  EXPECT_EQ(out.error(), ENOSPC);
  EXPECT_FALSE(out.flush());
  EXPECT_EQ(out.error(), ENOSPC);
  ::close(fd);
}

TEST(ContractOutput, BadDescriptorIsReported) {
  Out out(-1);
  out.write("x");
  EXPECT_FALSE(out.flush());
  EXPECT_EQ(out.error(), EBADF);
}

TEST(ContractOutput, BuffersUntilFlushAt) {
  Pipe p;
  ASSERT_GE(p.r, 0);
  ASSERT_EQ(::fcntl(p.r, F_SETFL, O_NONBLOCK), 0);
  Out out(p.w, 16);
  out.write("0123456789");
  EXPECT_EQ(drain_now(p.r), "") << "written before flush_at";
  out.buffer() += "abc";  // the hot path appends to the buffer directly
  out.maybe_flush();
  EXPECT_EQ(drain_now(p.r), "");
  out.write("def");  // 16 bytes: flushed
  EXPECT_EQ(drain_now(p.r), "0123456789abcdef");
  EXPECT_TRUE(out.buffer().empty());
  out.write("tail");
  EXPECT_EQ(drain_now(p.r), "");
  EXPECT_TRUE(out.flush());
  EXPECT_EQ(drain_now(p.r), "tail");
  EXPECT_TRUE(out.flush());  // an empty flush succeeds and writes nothing
  EXPECT_EQ(drain_now(p.r), "");
  EXPECT_FALSE(out.failed());
  EXPECT_EQ(out.error(), 0);
}

TEST(ContractOutput, BigWriteThroughAPipeArrivesIntact) {
  Pipe p;
  ASSERT_GE(p.r, 0);
  std::string got;
  std::thread reader([&] {
    char buf[3001];  // an odd size, so reads and writes never line up
    while (true) {
      ssize_t n = ::read(p.r, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
  });

  // About 6 MiB in pieces of many sizes, every byte value present, position-dependent.
  std::string expected;
  Out out(p.w);
  uint32_t x = 12345;
  size_t total = 0;
  while (total < 6u * 1024 * 1024) {
    x = x * 1103515245u + 12345u;
    size_t len = (x >> 8) % 70000;
    std::string piece(len, '\0');
    for (size_t i = 0; i < len; ++i) piece[i] = static_cast<char>((total + i) * 131 + (x >> 24));
    expected += piece;
    out.write(piece);
    total += len;
    if (out.failed()) break;
  }
  EXPECT_TRUE(out.flush());
  EXPECT_FALSE(out.failed());
  p.close_write();
  reader.join();
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected) << "the bytes differ";
}

// stdout may be a pipe whose file description is non-blocking (a parent such as a Node.js
// agent harness sets O_NONBLOCK on its end, which is the same description): a full pipe is
// EAGAIN, which means "wait", not "the output failed". The bytes must arrive, and flush()
// must succeed once the reader catches up.
TEST(ContractOutput, NonBlockingPipeThatFillsUpIsNotAFailure) {
  Pipe p;
  ASSERT_GE(p.r, 0);
  ASSERT_EQ(::fcntl(p.w, F_SETFL, ::fcntl(p.w, F_GETFL) | O_NONBLOCK), 0);
  std::string got;
  std::thread reader([&] {
    ::usleep(50 * 1000);  // let the pipe fill first
    char buf[4096];
    while (true) {
      ssize_t n = ::read(p.r, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
  });
  std::string expected;
  for (int i = 0; i < 1024 * 1024 / 16; ++i) expected += "0123456789abcde\n";
  Out out(p.w);
  out.write(expected);
  bool flushed = out.flush();
  EXPECT_TRUE(flushed) << "error " << out.error();
  EXPECT_FALSE(out.failed()) << "error " << out.error();
  p.close_write();
  reader.join();
  EXPECT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

TEST(ContractOutput, ReaderThatGoesAwayMidStream) {
  // The reader takes a little and closes: the writer must see EPIPE, not die, not succeed.
  IgnoreSigpipe guard;
  Pipe p;
  ASSERT_GE(p.r, 0);
  std::thread reader([&] {
    char buf[1000];
    ssize_t n = ::read(p.r, buf, sizeof buf);
    (void)n;
    p.close_read();
  });
  Out out(p.w);
  for (int i = 0; i < 1000 && !out.failed(); ++i) out.write(std::string(64 * 1024, 'y'));
  out.flush();
  reader.join();
  EXPECT_TRUE(out.failed());
  EXPECT_EQ(out.error(), EPIPE);
}

// Stable bytes (Out::stable) come out in order with what is buffered around them, through a
// pipe (handed over by vmsplice, the pipe non-blocking too), into a file (written), and small
// ones buffered; produced() counts them all.
TEST(ContractOutput, StableBytesArriveInOrder) {
  std::string big(3 * 1024 * 1024 + 17, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 + (i >> 12));
  const std::string expected = "head" + big + "mid" + std::string("tiny") + "tail";
  for (bool nonblocking : {false, true}) {
    Pipe p;
    ASSERT_GE(p.r, 0);
    if (nonblocking) {
      ASSERT_EQ(::fcntl(p.w, F_SETFL, ::fcntl(p.w, F_GETFL) | O_NONBLOCK), 0);
    }
    std::string got;
    std::thread reader([&] {
      char buf[3001];
      while (true) {
        ssize_t n = ::read(p.r, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got.append(buf, static_cast<size_t>(n));
      }
    });
    {
      Out out(p.w);
      out.write("head");
      out.stable(big);
      out.write("mid");
      out.stable("tiny");
      out.write("tail");
      EXPECT_EQ(out.produced(), expected.size());
      EXPECT_TRUE(out.flush());
    }
    p.close_write();
    reader.join();
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected) << "nonblocking " << nonblocking;
  }
  FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  Out out(fileno(f));
  out.write("head");
  out.stable(big);
  out.write("mid");
  out.stable("tiny");
  out.write("tail");
  EXPECT_TRUE(out.flush());
  std::string back(expected.size() + 1, '\0');
  EXPECT_EQ(::pread(fileno(f), back.data(), back.size(), 0), static_cast<ssize_t>(expected.size()));
  back.resize(expected.size());
  EXPECT_TRUE(back == expected);
  std::fclose(f);
}

TEST(ContractOutput, StableBytesToAClosedPipeFail) {
  IgnoreSigpipe guard;
  Pipe p;
  ASSERT_GE(p.r, 0);
  p.close_read();
  Out out(p.w);
  out.stable(std::string(256 * 1024, 'z'));
  EXPECT_TRUE(out.failed());
  EXPECT_EQ(out.error(), EPIPE);
  out.stable(std::string(256 * 1024, 'z'));  // nothing more is tried
  EXPECT_EQ(out.error(), EPIPE);
  EXPECT_EQ(out.produced(), 512u * 1024);
}

}  // namespace
