// os_line_reader_test.cpp — the chunked line reader against a naive splitter: tiny chunks to
// hit every boundary, random bytes (\n, \r, NUL, high bytes), lines past the cap, a 1 GiB
// line that must not be held in memory, and read errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <string>
#include <vector>

#include "os/line_reader.h"

namespace {

struct RefLine {
  std::string text;
  uint64_t offset, length;
  bool too_long, newline;
  bool operator==(const RefLine&) const = default;
};

std::ostream& operator<<(std::ostream& os, const RefLine& l) {
  return os << "{off=" << l.offset << " len=" << l.length << " too_long=" << l.too_long
            << " nl=" << l.newline << " text.size=" << l.text.size() << "}";
}

// The obvious splitter, holding everything in memory: the reference the reader must match.
std::vector<RefLine> reference(const std::string& data, uint64_t start, size_t max_line) {
  std::vector<RefLine> out;
  size_t i = start;
  while (i < data.size()) {
    size_t j = data.find('\n', i);
    bool nl = j != std::string::npos;
    if (!nl) j = data.size();
    size_t len = j - i;
    bool too_long = len > max_line;
    out.push_back({too_long ? "" : data.substr(i, len), i, len, too_long, nl});
    i = nl ? j + 1 : j;
  }
  return out;
}

class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    char tmpl[] = "/tmp/tack-os-lines-XXXXXX";
    fd_ = mkstemp(tmpl);
    path_ = tmpl;
    if (fd_ >= 0 && !content.empty()) {
      if (pwrite(fd_, content.data(), content.size(), 0) != static_cast<ssize_t>(content.size())) {
        close(fd_);
        fd_ = -1;
      }
    }
  }
  ~TempFile() {
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string path_;
};

std::vector<RefLine> read_lines(int fd, size_t max_line, uint64_t start, size_t chunk,
                                int* error = nullptr) {
  os::LineReader reader(fd, max_line, start, chunk);
  std::vector<RefLine> out;
  os::Line line;
  uint64_t expect_pos = start;
  while (reader.next(line)) {
    out.push_back({std::string(line.text), line.offset, line.length, line.too_long, line.newline});
    expect_pos = line.offset + line.length + (line.newline ? 1 : 0);
    EXPECT_EQ(reader.position(), expect_pos);
  }
  EXPECT_EQ(reader.position(), expect_pos);
  if (error) *error = reader.error();
  EXPECT_FALSE(reader.next(line));  // the end stays the end
  return out;
}

void expect_same(const std::string& data, size_t max_line, uint64_t start, size_t chunk) {
  TempFile f(data);
  ASSERT_GE(f.fd(), 0);
  int error = -1;
  std::vector<RefLine> got = read_lines(f.fd(), max_line, start, chunk, &error);
  EXPECT_EQ(error, 0);
  std::vector<RefLine> want = reference(data, start, max_line);
  ASSERT_EQ(got.size(), want.size()) << "chunk=" << chunk << " max=" << max_line;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i], want[i]) << "line " << i << " chunk=" << chunk << " max=" << max_line;
  }
}

constexpr size_t kChunks[] = {1, 2, 3, 7, 16, 256 * 1024};

TEST(OsLineReader, EmptyFileHasNoLines) {
  for (size_t chunk : kChunks) {
    TempFile f("");
    EXPECT_TRUE(read_lines(f.fd(), 100, 0, chunk).empty());
  }
}

TEST(OsLineReader, OneTerminatedLineIsExactlyOneLine) {
  for (size_t chunk : kChunks) {
    TempFile f("a\n");
    auto lines = read_lines(f.fd(), 100, 0, chunk);
    ASSERT_EQ(lines.size(), 1u) << chunk;
    EXPECT_EQ(lines[0], (RefLine{"a", 0, 1, false, true}));
  }
}

TEST(OsLineReader, LastLineWithoutNewline) {
  for (size_t chunk : kChunks) {
    TempFile f("ab\ncd");
    auto lines = read_lines(f.fd(), 100, 0, chunk);
    ASSERT_EQ(lines.size(), 2u) << chunk;
    EXPECT_EQ(lines[1], (RefLine{"cd", 3, 2, false, false}));
  }
}

TEST(OsLineReader, EmptyLinesAndCarriageReturnsAreKeptRaw) {
  for (size_t chunk : kChunks) {
    TempFile f("\n\r\n\r\nx\r");
    auto lines = read_lines(f.fd(), 100, 0, chunk);
    ASSERT_EQ(lines.size(), 4u) << chunk;
    EXPECT_EQ(lines[0], (RefLine{"", 0, 0, false, true}));
    EXPECT_EQ(lines[1], (RefLine{"\r", 1, 1, false, true}));
    EXPECT_EQ(lines[2], (RefLine{"\r", 3, 1, false, true}));
    EXPECT_EQ(lines[3], (RefLine{"x\r", 5, 2, false, false}));
  }
}

TEST(OsLineReader, TooLongLinesReportTheirFullLengthAndNoText) {
  for (size_t chunk : kChunks) {
    TempFile f("12345\n123456\n1234567");
    auto lines = read_lines(f.fd(), 6, 0, chunk);
    ASSERT_EQ(lines.size(), 3u) << chunk;
    EXPECT_EQ(lines[0], (RefLine{"12345", 0, 5, false, true}));
    EXPECT_EQ(lines[1], (RefLine{"123456", 6, 6, false, true}));  // the cap is inclusive
    EXPECT_EQ(lines[2], (RefLine{"", 13, 7, true, false}));
  }
}

TEST(OsLineReader, ZeroCapAllowsOnlyEmptyLines) {
  for (size_t chunk : kChunks) expect_same("\na\n\nbb", 0, 0, chunk);
}

TEST(OsLineReader, StartsAtAnOffset) {
  const std::string data = "first\nsecond\nthird";
  for (size_t chunk : kChunks) {
    for (uint64_t start : {0u, 3u, 6u, 12u, 13u, 18u, 19u, 50u})
      expect_same(data, 100, start, chunk);
  }
}

TEST(OsLineReader, LinesInsideTheChunkAreViewsIntoOneBuffer) {
  // No copy for a line wholly in the chunk: consecutive lines sit next to each other.
  TempFile f("abc\ndefg\nhi\n");
  os::LineReader reader(f.fd(), 100);
  os::Line a, b;
  ASSERT_TRUE(reader.next(a));
  const char* a_data = a.text.data();
  ASSERT_TRUE(reader.next(b));
  EXPECT_EQ(b.text, "defg");
  EXPECT_EQ(b.text.data(), a_data + 4);
}

TEST(OsLineReader, RandomInputsMatchTheReference) {
  std::mt19937 rng(20240611);
  const char alphabet[] = {'\n', '\n', '\n', '\r', '\0', 'a', 'b', '\xff', '\x80', '\xc3'};
  for (int iter = 0; iter < 300; ++iter) {
    std::string data;
    size_t size = rng() % 200;
    // Some inputs get a long run without '\n' so lines cross many chunks and the cap.
    if (iter % 5 == 0) size += 1000;
    for (size_t i = 0; i < size; ++i) {
      bool long_run = iter % 5 == 0 && i > 50 && i < 900;
      char c = alphabet[rng() % std::size(alphabet)];
      data += (long_run && c == '\n') ? 'x' : c;
    }
    size_t max_line = rng() % 12;
    if (iter % 3 == 0) max_line = 1000;
    uint64_t start = data.empty() || iter % 4 ? 0 : rng() % data.size();
    for (size_t chunk : kChunks) {
      expect_same(data, max_line, start, chunk);
      if (HasFailure()) return;  // one counterexample is enough to read
    }
  }
}

long max_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

TEST(OsLineReader, AGibibyteLineWithoutNewlineStaysInBoundedMemory) {
  // A sparse file: 1 GiB of NUL bytes costs no disk, and reading it is fast.
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  TempFile f("");
  ASSERT_GE(f.fd(), 0);
  ASSERT_EQ(ftruncate(f.fd(), static_cast<off_t>(kGiB)), 0);
  ASSERT_EQ(pwrite(f.fd(), "\nab\n", 4, static_cast<off_t>(kGiB)), 4);
  long before = max_rss_kib();
  os::LineReader reader(f.fd(), 1 << 20);
  os::Line line;
  ASSERT_TRUE(reader.next(line));
  EXPECT_TRUE(line.too_long);
  EXPECT_EQ(line.length, kGiB);
  EXPECT_EQ(line.offset, 0u);
  EXPECT_TRUE(line.text.empty());
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "ab");
  EXPECT_EQ(line.offset, kGiB + 1);
  EXPECT_FALSE(reader.next(line));
  EXPECT_EQ(reader.error(), 0);
  // Chunk (256 KiB) plus cap (1 MiB) plus slack; holding the line would add a gibibyte.
  EXPECT_LT(max_rss_kib() - before, 32 * 1024);
}

TEST(OsLineReader, ReadErrorsStopWithErrno) {
  int dir = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dir, 0);
  int error = 0;
  EXPECT_TRUE(read_lines(dir, 100, 0, 16, &error).empty());
  EXPECT_EQ(error, EISDIR);
  close(dir);
  EXPECT_TRUE(read_lines(-1, 100, 0, 16, &error).empty());
  EXPECT_EQ(error, EBADF);
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  EXPECT_TRUE(read_lines(pipefd[0], 100, 0, 16, &error).empty());
  EXPECT_EQ(error, ESPIPE);  // pread needs a seekable file; it never waits on a pipe
  close(pipefd[0]);
  close(pipefd[1]);
}

}  // namespace
