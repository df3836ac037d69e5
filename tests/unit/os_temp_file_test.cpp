// os_temp_file_test.cpp — the atomic replace through a temporary file: mode kept, no litter,
// a hard link broken rather than written through, stale temporary files removed (a link in
// their place refused), RENAME_NOREPLACE refusing a name that appeared, content in pieces.
#include <sys/stat.h>

#include <string>
#include <string_view>
#include <vector>

#include "os/dir_lock.h"
#include "os/place.h"
#include "os/temp_file.h"
#include "place_fixture.h"

namespace {

namespace fs = std::filesystem;

class OsTempFile : public place_fixture::Tree {};

// A TempFile in one piece: create, write `content`, commit.
std::optional<contract::Error> commit_file(const os::Place& place, std::string_view content,
                                           const os::CommitOptions& opt) {
  auto made = os::TempFile::create(place, opt);
  if (auto* e = std::get_if<contract::Error>(&made)) return std::move(*e);
  os::TempFile& tmp = std::get<os::TempFile>(made);
  if (auto e = tmp.write(content)) return e;
  return tmp.commit();
}

TEST_F(OsTempFile, ReplaceKeepsModeAndLeavesNoTemporaryFile) {
  ASSERT_EQ(chmod((root_ / "file.txt").c_str(), 0751), 0);
  os::Place p = place("file.txt");
  auto held = os::lock(p);
  ASSERT_TRUE(std::holds_alternative<os::DirLock>(held));
  os::CommitOptions opt;
  opt.mode = 0751;
  EXPECT_FALSE(commit_file(p, "new\ncontent", opt));
  EXPECT_EQ(get(root_ / "file.txt"), "new\ncontent");
  EXPECT_EQ(fs::status(root_ / "file.txt").permissions(), static_cast<fs::perms>(0751));
  EXPECT_EQ(names(root_), (std::vector<std::string>{"dir", "file.txt", "link_dir", "link_file"}));
}

TEST_F(OsTempFile, ReplaceBreaksAHardLinkInsteadOfWritingThroughIt) {
  ASSERT_EQ(link((base_ / "outside" / "secret.txt").c_str(), (root_ / "hard").c_str()), 0);
  os::Place p = place("hard");
  os::CommitOptions opt;
  opt.mode = 0644;
  EXPECT_FALSE(commit_file(p, "replaced\n", opt));
  EXPECT_EQ(get(root_ / "hard"), "replaced\n");
  EXPECT_EQ(get(base_ / "outside" / "secret.txt"), "secret\n");
}

TEST_F(OsTempFile, CreateNeverReplacesAndNewFilesFollowTheUmask) {
  os::Place p = place("dir/new.txt");
  os::CommitOptions opt;
  opt.replace = os::Replace::Never;
  mode_t old = umask(027);
  EXPECT_FALSE(commit_file(p, "first\n", opt));
  umask(old);
  EXPECT_EQ(fs::status(root_ / "dir" / "new.txt").permissions(), static_cast<fs::perms>(0640));
  auto again = commit_file(p, "second\n", opt);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->rule, "conflict.exists");
  EXPECT_EQ(get(root_ / "dir" / "new.txt"), "first\n");
  EXPECT_EQ(names(root_ / "dir"), (std::vector<std::string>{"new.txt"}));
}

TEST_F(OsTempFile, AStaleTemporaryFileIsRemovedAndALinkInItsPlaceIsNot) {
  put(root_ / os::temp_name("file.txt"), "half a write");
  os::Place p = place("file.txt");
  EXPECT_TRUE(os::has_stale_temp(p));
  os::CommitOptions opt;
  opt.mode = 0644;
  EXPECT_FALSE(commit_file(p, "whole\n", opt));
  EXPECT_FALSE(fs::exists(root_ / os::temp_name("file.txt")));
  EXPECT_EQ(get(root_ / "file.txt"), "whole\n");

  // A link at the temporary name is not ours: refused, left alone, the target unchanged.
  fs::create_symlink(base_ / "outside" / "secret.txt", root_ / os::temp_name("file.txt"));
  auto e = commit_file(p, "other\n", opt);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule, "io.write-failed");
  EXPECT_EQ(get(root_ / "file.txt"), "whole\n");
  EXPECT_EQ(get(base_ / "outside" / "secret.txt"), "secret\n");
  EXPECT_TRUE(fs::is_symlink(root_ / os::temp_name("file.txt")));
}

TEST_F(OsTempFile, TemporaryNameFitsAnyName) {
  EXPECT_EQ(os::temp_name("a.txt"), ".a.txt.tack-tmp");
  EXPECT_LE(os::temp_name(std::string(255, 'x')).size(), 255u);
  os::Place p = place(std::string(255, 'y'));
  os::CommitOptions opt;
  opt.replace = os::Replace::Never;
  EXPECT_FALSE(commit_file(p, "long name\n", opt));
  EXPECT_EQ(get(root_ / std::string(255, 'y')), "long name\n");
}

TEST_F(OsTempFile, TempFileWrittenInPiecesCommitsAndAnAbandonedOneLeavesNothing) {
  os::Place p = place("file.txt");
  os::CommitOptions opt;
  opt.mode = 0640;
  {
    auto made = os::TempFile::create(p, opt);
    ASSERT_TRUE(std::holds_alternative<os::TempFile>(made));
    auto& tmp = std::get<os::TempFile>(made);
    std::string big(300 * 1024, 'x');  // past the gathering size: written straight through
    for (std::string_view piece : {std::string_view("a"), std::string_view("bc\n"),
                                   std::string_view(big), std::string_view("end\n")})
      EXPECT_FALSE(tmp.write(piece).has_value());
    tmp.start_writeback();
    EXPECT_FALSE(tmp.commit().has_value());
    EXPECT_EQ(get(root_ / "file.txt"), "abc\n" + big + "end\n");
  }
  EXPECT_EQ(fs::status(root_ / "file.txt").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  {
    auto made = os::TempFile::create(p, opt);
    ASSERT_TRUE(std::holds_alternative<os::TempFile>(made));
    EXPECT_FALSE(std::get<os::TempFile>(made).write("never committed").has_value());
  }  // destroyed uncommitted: removed, the target untouched
  EXPECT_EQ(names(root_), (std::vector<std::string>{"dir", "file.txt", "link_dir", "link_file"}));
  EXPECT_EQ(get(root_ / "file.txt").substr(0, 4), "abc\n");
}

TEST_F(OsTempFile, SyncedAheadTheFileCommitsWhatWasLastWrittenWithItsMode) {
  os::Place p = place("file.txt");
  os::CommitOptions opt;
  opt.mode = 0640;
  const std::string big(600 * 1024, 'y');
  {
    // synced ahead, then more written: commit() must sync again, not trust the first answer
    auto made = os::TempFile::create(p, opt);
    ASSERT_TRUE(std::holds_alternative<os::TempFile>(made));
    auto& tmp = std::get<os::TempFile>(made);
    ASSERT_FALSE(tmp.write(big).has_value());
    tmp.sync_ahead();
    ASSERT_FALSE(tmp.write("tail\n").has_value());
    EXPECT_FALSE(tmp.commit().has_value());
  }
  EXPECT_EQ(get(root_ / "file.txt"), big + "tail\n");
  EXPECT_EQ(fs::status(root_ / "file.txt").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  {
    // written on a wrong guess, synced ahead, then written again from the start: only the
    // second bytes, however much shorter
    auto made = os::TempFile::create(p, opt);
    ASSERT_TRUE(std::holds_alternative<os::TempFile>(made));
    auto& tmp = std::get<os::TempFile>(made);
    ASSERT_FALSE(tmp.write(big).has_value());
    tmp.start_writeback();
    tmp.sync_ahead();
    ASSERT_FALSE(tmp.restart().has_value());
    ASSERT_FALSE(tmp.write("short\n").has_value());
    tmp.start_writeback();
    tmp.sync_ahead();
    EXPECT_FALSE(tmp.commit().has_value());
  }
  EXPECT_EQ(get(root_ / "file.txt"), "short\n");
  {
    // small pieces still gathered in memory: sync_ahead() writes them before its fsync
    auto made = os::TempFile::create(p, opt);
    ASSERT_TRUE(std::holds_alternative<os::TempFile>(made));
    auto& tmp = std::get<os::TempFile>(made);
    ASSERT_FALSE(tmp.write("gathered ").has_value());
    ASSERT_FALSE(tmp.write("pieces\n").has_value());
    tmp.sync_ahead();
    EXPECT_FALSE(tmp.commit().has_value());
  }
  EXPECT_EQ(get(root_ / "file.txt"), "gathered pieces\n");
  {
    // abandoned while its fsync may still run: removed, the target untouched
    auto made = os::TempFile::create(p, opt);
    ASSERT_TRUE(std::holds_alternative<os::TempFile>(made));
    auto& tmp = std::get<os::TempFile>(made);
    ASSERT_FALSE(tmp.write(big).has_value());
    tmp.start_writeback();
    tmp.sync_ahead();
  }
  EXPECT_EQ(names(root_), (std::vector<std::string>{"dir", "file.txt", "link_dir", "link_file"}));
  EXPECT_EQ(get(root_ / "file.txt"), "gathered pieces\n");
}

}  // namespace
