// os_whole_file_test.cpp — a file read whole: kept when it fits, read to the end and handed
// over piece by piece in order either way.
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <variant>

#include "mem/big_alloc.h"
#include "os/whole_file.h"
#include "place_fixture.h"

namespace {

namespace fs = std::filesystem;

class OsWholeFile : public place_fixture::Tree {};

TEST_F(OsWholeFile, ReadWholeKeepsTheFileAndHandsEveryPieceInOrder) {
  std::string content;
  for (int i = 0; content.size() < 700 * 1024; ++i) content += "line " + std::to_string(i) + "\n";
  put(root_ / "big.txt", content);
  int fd = open((root_ / "big.txt").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string seen;
  mem::Bytes kept;
  auto r = os::read_whole(fd, "big.txt", &kept, content.size(),
                          [&](std::string_view piece) { seen += piece; });
  ASSERT_TRUE(std::holds_alternative<os::WholeFile>(r));
  EXPECT_TRUE(std::get<os::WholeFile>(r).kept);
  EXPECT_EQ(std::get<os::WholeFile>(r).bytes, content.size());
  EXPECT_TRUE(seen == content);
  EXPECT_TRUE(kept.view() == content);
  // Larger than keep_max: not kept, but read (and handed over) to the end all the same.
  seen.clear();
  r = os::read_whole(fd, "big.txt", &kept, 1000, [&](std::string_view piece) { seen += piece; });
  ASSERT_TRUE(std::holds_alternative<os::WholeFile>(r));
  EXPECT_FALSE(std::get<os::WholeFile>(r).kept);
  EXPECT_EQ(std::get<os::WholeFile>(r).bytes, content.size());
  EXPECT_TRUE(kept.empty());
  EXPECT_TRUE(seen == content);
  // An empty file is kept, empty.
  put(root_ / "empty.txt", "");
  int efd = open((root_ / "empty.txt").c_str(), O_RDONLY | O_CLOEXEC);
  r = os::read_whole(efd, "empty.txt", &kept, 0, nullptr);
  ASSERT_TRUE(std::holds_alternative<os::WholeFile>(r));
  EXPECT_TRUE(std::get<os::WholeFile>(r).kept);
  EXPECT_EQ(std::get<os::WholeFile>(r).bytes, 0u);
  close(efd);
  close(fd);
}

// A file longer than its size says (a /proc file says 0; one may grow after fstat): read and
// kept whole through the probe past the size, at every limit around its true length.
TEST_F(OsWholeFile, AFileLongerThanItsSizeSaysIsReadWhole) {
  std::string want;
  {
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    char buf[65536];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) want.append(buf, static_cast<size_t>(n));
    close(fd);
  }
  ASSERT_GT(want.size(), 4096u);  // more than one probe
  for (uint64_t keep_max : {uint64_t{1} << 20, uint64_t{100}, uint64_t{4096}, uint64_t{5000}}) {
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    mem::Bytes kept;
    std::string seen;
    auto r = os::read_whole(fd, "maps", &kept, keep_max, [&](std::string_view p) { seen += p; });
    close(fd);
    ASSERT_TRUE(std::holds_alternative<os::WholeFile>(r));
    const auto& w = std::get<os::WholeFile>(r);
    // (this process's maps may change from one read to the next: the answer is held to the
    // pieces it handed over)
    EXPECT_EQ(w.bytes, seen.size());
    EXPECT_EQ(w.kept, seen.size() <= keep_max) << keep_max;
    if (w.kept) {
      EXPECT_TRUE(kept.view() == seen);
    }
    EXPECT_GT(seen.size(), 4096u);
  }
}

}  // namespace
