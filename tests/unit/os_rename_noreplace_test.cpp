// os_rename_noreplace_test.cpp — the rename that never replaces a name, and moves a link as
// itself.
#include "os/place.h"
#include "os/rename_noreplace.h"
#include "place_fixture.h"

namespace {

namespace fs = std::filesystem;

class OsRenameNoreplace : public place_fixture::Tree {};

TEST_F(OsRenameNoreplace, RenameNeverReplacesAndMovesALinkAsItself) {
  put(root_ / "dir" / "taken", "taken\n");
  os::Place from = place("file.txt"), taken = place("dir/taken");
  auto e = os::rename_noreplace(from, taken);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule, "conflict.exists");
  EXPECT_EQ(get(root_ / "dir" / "taken"), "taken\n");
  os::Place to = place("dir/moved.txt");
  EXPECT_FALSE(os::rename_noreplace(from, to));
  EXPECT_EQ(get(root_ / "dir" / "moved.txt"), "old\n");
  EXPECT_FALSE(fs::exists(root_ / "file.txt"));

  os::Place link = place("link_file"), link_to = place("dir/link_moved");
  EXPECT_FALSE(os::rename_noreplace(link, link_to));
  EXPECT_TRUE(fs::is_symlink(root_ / "dir" / "link_moved"));
  EXPECT_EQ(get(base_ / "outside" / "secret.txt"), "secret\n");
  EXPECT_TRUE(fs::exists(base_ / "outside" / "secret.txt"));
}

}  // namespace
