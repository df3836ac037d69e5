// os_hash_test.cpp — sha256_fd: the hash of every byte, and the bytes kept exactly when they
// fit, for files around the sizes where its reads change (empty, one byte, a chunk and either
// side of it) and for a file longer than its size says (a /proc file says 0).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <variant>

#include "os/hash.h"
#include "place_fixture.h"

namespace {

class OsHash : public place_fixture::Tree {};

TEST_F(OsHash, KeepsAndHashesEveryByteAtEverySize) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{42}, size_t{262143}, size_t{262144},
                      size_t{262145}, size_t{600000}}) {
    std::string content(size, 'x');
    for (size_t i = 0; i < size; i += 97) content[i] = static_cast<char>('a' + i % 26);
    put(root_ / "f", content);
    int fd = open((root_ / "f").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    std::string kept;
    auto r = os::sha256_fd(fd, "f", &kept, size);
    ASSERT_TRUE(std::holds_alternative<os::Hashed>(r)) << size;
    const auto& h = std::get<os::Hashed>(r);
    EXPECT_EQ(h.hex, os::sha256_hex(content)) << size;
    EXPECT_EQ(h.bytes, size);
    EXPECT_TRUE(h.kept);
    EXPECT_TRUE(kept == content) << size;
    // One byte under the size: not kept, hashed whole all the same.
    if (size > 0) {
      r = os::sha256_fd(fd, "f", &kept, size - 1);
      ASSERT_TRUE(std::holds_alternative<os::Hashed>(r));
      EXPECT_FALSE(std::get<os::Hashed>(r).kept);
      EXPECT_EQ(std::get<os::Hashed>(r).hex, os::sha256_hex(content));
    }
    close(fd);
  }
}

TEST_F(OsHash, AFileLongerThanItsSizeSaysIsKeptWhole) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string kept;
  auto r = os::sha256_fd(fd, "maps", &kept, 1 << 20);
  close(fd);
  ASSERT_TRUE(std::holds_alternative<os::Hashed>(r));
  const auto& h = std::get<os::Hashed>(r);
  EXPECT_TRUE(h.kept);
  EXPECT_GT(kept.size(), 1000u);
  EXPECT_EQ(h.bytes, kept.size());
  EXPECT_EQ(h.hex, os::sha256_hex(kept));
}

}  // namespace
