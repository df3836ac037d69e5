// os_place_test.cpp — a file's directory opened beneath the root following no link, --parents
// planned, made and undone, and the name looked at without following it.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "os/place.h"
#include "place_fixture.h"

namespace {

namespace fs = std::filesystem;

class OsPlace : public place_fixture::Tree {};

TEST_F(OsPlace, PlaceSplitsDirectoryAndName) {
  os::Place p = place("dir/new.txt");
  EXPECT_EQ(p.parent, "dir");
  EXPECT_EQ(p.name, "new.txt");
  EXPECT_TRUE(p.dir.valid());
  os::Place top = place("file.txt");
  EXPECT_EQ(top.parent, ".");
  EXPECT_EQ(top.name, "file.txt");
}

TEST_F(OsPlace, PlaceRefusesLinksAndMissingDirectories) {
  EXPECT_EQ(rule("link_dir/x.txt"), "path.symlink");
  EXPECT_EQ(rule("link_dir/x.txt", os::Parents::Make), "path.symlink");
  EXPECT_EQ(rule("nope/x.txt"), "io.not-found");
  EXPECT_EQ(rule("file.txt/x"), "io.not-a-directory");
  EXPECT_EQ(rule("."), "io.is-a-directory");
  EXPECT_EQ(rule(std::string(300, 'n')), "path.too-long");
  EXPECT_FALSE(fs::exists(base_ / "outside" / "x.txt"));
}

TEST_F(OsPlace, ParentsArePlannedMadeAndUndone) {
  os::Place plan = place("a/b/c.txt", os::Parents::Plan);
  EXPECT_TRUE(plan.planned_only());
  EXPECT_EQ(plan.missing, (std::vector<std::string>{"a", "a/b"}));
  EXPECT_FALSE(fs::exists(root_ / "a"));
  auto looked = os::look(plan);
  EXPECT_EQ(std::get<os::Entry>(looked).kind, os::Entry::Kind::Missing);

  os::Place made = place("dir/a/b/c.txt", os::Parents::Make);
  EXPECT_EQ(made.created, (std::vector<std::string>{"dir/a", "dir/a/b"}));
  EXPECT_TRUE(fs::is_directory(root_ / "dir" / "a" / "b"));
  os::undo_parents(made);
  EXPECT_FALSE(fs::exists(root_ / "dir" / "a"));
  EXPECT_TRUE(fs::exists(root_ / "dir"));
  // A link in the middle of the part that exists is refused before anything is made.
  EXPECT_EQ(rule("link_dir/new/x.txt", os::Parents::Make), "path.symlink");
  EXPECT_FALSE(fs::exists(base_ / "outside" / "new"));
}

TEST_F(OsPlace, LookNeverFollowsTheName) {
  using K = os::Entry::Kind;
  auto kind = [&](std::string_view path) {
    return std::get<os::Entry>(os::look(place(path))).kind;
  };
  EXPECT_EQ(kind("file.txt"), K::File);
  EXPECT_EQ(kind("link_file"), K::Link);
  EXPECT_EQ(kind("dir"), K::Directory);
  EXPECT_EQ(kind("missing"), K::Missing);
  os::Place link = place("link_file");
  auto opened = os::open_existing(link);
  ASSERT_TRUE(std::holds_alternative<contract::Error>(opened));
  EXPECT_EQ(std::get<contract::Error>(opened).rule, "path.symlink");
  ASSERT_EQ(mkfifo((root_ / "fifo").c_str(), 0644), 0);
  auto fifo = os::open_existing(place("fifo"));  // must not block
  EXPECT_EQ(std::get<contract::Error>(fifo).rule, "io.special-file");
}

}  // namespace
