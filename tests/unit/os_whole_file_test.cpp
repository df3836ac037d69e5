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

}  // namespace
