// os_dir_lock_test.cpp — the directory lock: exclusive, waited for a bounded while, released
// with the DirLock, one directory locked once, and a stale temporary file removed once held.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <variant>

#include "os/dir_lock.h"
#include "os/place.h"
#include "os/temp_file.h"
#include "place_fixture.h"

namespace {

namespace fs = std::filesystem;

class OsDirLock : public place_fixture::Tree {};

TEST_F(OsDirLock, LockIsExclusiveAndBounded) {
  os::Place p = place("file.txt");
  int other = open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(other, 0);
  ASSERT_EQ(flock(other, LOCK_EX | LOCK_NB), 0);
  auto busy = os::lock(p);
  ASSERT_TRUE(std::holds_alternative<contract::Error>(busy));
  const contract::Error& e = std::get<contract::Error>(busy);
  EXPECT_EQ(e.rule, "conflict.locked");
  EXPECT_EQ(e.repair.kind, contract::Repair::Kind::None);
  flock(other, LOCK_UN);
  {
    auto held = os::lock(p);
    ASSERT_TRUE(std::holds_alternative<os::DirLock>(held));
    EXPECT_NE(flock(other, LOCK_EX | LOCK_NB), 0);  // held now
  }
  EXPECT_EQ(flock(other, LOCK_EX | LOCK_NB), 0);  // released with the DirLock
  close(other);
}

TEST_F(OsDirLock, TwoPlacesInOneDirectoryAreLockedOnce) {
  os::Place a = place("file.txt"), b = place("other.txt");
  auto held = os::lock(a, &b);  // would wait on itself if it locked the directory twice
  EXPECT_TRUE(std::holds_alternative<os::DirLock>(held));
}

TEST_F(OsDirLock, TakingTheLockRemovesAStaleTemporaryFileAndLeavesALinkAlone) {
  put(root_ / os::temp_name("file.txt"), "half a write");
  fs::create_symlink(base_ / "outside" / "secret.txt", root_ / "dir" / os::temp_name("x.txt"));
  os::Place p = place("file.txt"), q = place("dir/x.txt");
  {
    auto held = os::lock(p, &q);
    ASSERT_TRUE(std::holds_alternative<os::DirLock>(held));
  }
  EXPECT_FALSE(fs::exists(root_ / os::temp_name("file.txt")));
  EXPECT_EQ(get(root_ / "file.txt"), "old\n");
  EXPECT_TRUE(fs::is_symlink(root_ / "dir" / os::temp_name("x.txt")));
  EXPECT_EQ(get(base_ / "outside" / "secret.txt"), "secret\n");
}

}  // namespace
