// os_atomic_test.cpp — the machinery under write, replace, edit and move: a file's directory
// opened beneath the root following no link, --parents made and undone, the directory lock,
// the atomic replace (mode kept, no litter, stale temporary files removed, RENAME_NOREPLACE
// refusing a name that appeared) and the rename that never replaces.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "os/atomic.h"

namespace {

namespace fs = std::filesystem;

class Atomic : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("tack-atomic-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    root_ = base_ / "root";
    fs::create_directories(root_ / "dir");
    fs::create_directories(base_ / "outside");
    put(base_ / "outside" / "secret.txt", "secret\n");
    put(root_ / "file.txt", "old\n");
    fs::create_directory_symlink(base_ / "outside", root_ / "link_dir");
    fs::create_symlink(base_ / "outside" / "secret.txt", root_ / "link_file");
    root_fd_ = open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(root_fd_, 0);
  }
  void TearDown() override {
    close(root_fd_);
    fs::remove_all(base_);
  }
  static void put(const fs::path& p, std::string_view s) {
    std::ofstream(p, std::ios::binary) << s;
  }
  static std::string get(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::vector<std::string> names(const fs::path& dir) {
    std::vector<std::string> out;
    for (auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  os::Place place(std::string_view path, os::Parents parents = os::Parents::Refuse) {
    auto r = os::open_place(root_fd_, path, parents);
    if (auto* e = std::get_if<contract::Error>(&r)) {
      ADD_FAILURE() << "open_place " << path << ": " << e->rule << " " << e->message;
      return {};
    }
    return std::move(std::get<os::Place>(r));
  }
  std::string rule(std::string_view path, os::Parents parents = os::Parents::Refuse) {
    auto r = os::open_place(root_fd_, path, parents);
    if (auto* e = std::get_if<contract::Error>(&r)) return std::string(e->rule);
    return "ok";
  }
  fs::path base_, root_;
  int root_fd_ = -1;
};

TEST_F(Atomic, PlaceSplitsDirectoryAndName) {
  os::Place p = place("dir/new.txt");
  EXPECT_EQ(p.parent, "dir");
  EXPECT_EQ(p.name, "new.txt");
  EXPECT_TRUE(p.dir.valid());
  os::Place top = place("file.txt");
  EXPECT_EQ(top.parent, ".");
  EXPECT_EQ(top.name, "file.txt");
}

TEST_F(Atomic, PlaceRefusesLinksAndMissingDirectories) {
  EXPECT_EQ(rule("link_dir/x.txt"), "path.symlink");
  EXPECT_EQ(rule("link_dir/x.txt", os::Parents::Make), "path.symlink");
  EXPECT_EQ(rule("nope/x.txt"), "io.not-found");
  EXPECT_EQ(rule("file.txt/x"), "io.not-a-directory");
  EXPECT_EQ(rule("."), "io.is-a-directory");
  EXPECT_EQ(rule(std::string(300, 'n')), "path.too-long");
  EXPECT_FALSE(fs::exists(base_ / "outside" / "x.txt"));
}

TEST_F(Atomic, ParentsArePlannedMadeAndUndone) {
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

TEST_F(Atomic, LookNeverFollowsTheName) {
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

TEST_F(Atomic, ReplaceKeepsModeAndLeavesNoTemporaryFile) {
  ASSERT_EQ(chmod((root_ / "file.txt").c_str(), 0751), 0);
  os::Place p = place("file.txt");
  auto held = os::lock(p);
  ASSERT_TRUE(std::holds_alternative<os::DirLock>(held));
  os::CommitOptions opt;
  opt.mode = 0751;
  EXPECT_FALSE(os::commit_file(p, "new\ncontent", opt));
  EXPECT_EQ(get(root_ / "file.txt"), "new\ncontent");
  EXPECT_EQ(fs::status(root_ / "file.txt").permissions(), static_cast<fs::perms>(0751));
  EXPECT_EQ(names(root_), (std::vector<std::string>{"dir", "file.txt", "link_dir", "link_file"}));
}

TEST_F(Atomic, ReplaceBreaksAHardLinkInsteadOfWritingThroughIt) {
  ASSERT_EQ(link((base_ / "outside" / "secret.txt").c_str(), (root_ / "hard").c_str()), 0);
  os::Place p = place("hard");
  os::CommitOptions opt;
  opt.mode = 0644;
  EXPECT_FALSE(os::commit_file(p, "replaced\n", opt));
  EXPECT_EQ(get(root_ / "hard"), "replaced\n");
  EXPECT_EQ(get(base_ / "outside" / "secret.txt"), "secret\n");
}

TEST_F(Atomic, CreateNeverReplacesAndNewFilesFollowTheUmask) {
  os::Place p = place("dir/new.txt");
  os::CommitOptions opt;
  opt.replace = os::Replace::Never;
  mode_t old = umask(027);
  EXPECT_FALSE(os::commit_file(p, "first\n", opt));
  umask(old);
  EXPECT_EQ(fs::status(root_ / "dir" / "new.txt").permissions(), static_cast<fs::perms>(0640));
  auto again = os::commit_file(p, "second\n", opt);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->rule, "conflict.exists");
  EXPECT_EQ(get(root_ / "dir" / "new.txt"), "first\n");
  EXPECT_EQ(names(root_ / "dir"), (std::vector<std::string>{"new.txt"}));
}

TEST_F(Atomic, AStaleTemporaryFileIsRemovedAndALinkInItsPlaceIsNot) {
  put(root_ / os::temp_name("file.txt"), "half a write");
  os::Place p = place("file.txt");
  EXPECT_TRUE(os::has_stale_temp(p));
  os::CommitOptions opt;
  opt.mode = 0644;
  EXPECT_FALSE(os::commit_file(p, "whole\n", opt));
  EXPECT_FALSE(fs::exists(root_ / os::temp_name("file.txt")));
  EXPECT_EQ(get(root_ / "file.txt"), "whole\n");

  // A link at the temporary name is not ours: refused, left alone, the target unchanged.
  fs::create_symlink(base_ / "outside" / "secret.txt", root_ / os::temp_name("file.txt"));
  auto e = os::commit_file(p, "other\n", opt);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule, "io.write-failed");
  EXPECT_EQ(get(root_ / "file.txt"), "whole\n");
  EXPECT_EQ(get(base_ / "outside" / "secret.txt"), "secret\n");
  EXPECT_TRUE(fs::is_symlink(root_ / os::temp_name("file.txt")));
}

TEST_F(Atomic, TemporaryNameFitsAnyName) {
  EXPECT_EQ(os::temp_name("a.txt"), ".a.txt.tack-tmp");
  EXPECT_LE(os::temp_name(std::string(255, 'x')).size(), 255u);
  os::Place p = place(std::string(255, 'y'));
  os::CommitOptions opt;
  opt.replace = os::Replace::Never;
  EXPECT_FALSE(os::commit_file(p, "long name\n", opt));
  EXPECT_EQ(get(root_ / std::string(255, 'y')), "long name\n");
}

TEST_F(Atomic, LockIsExclusiveAndBounded) {
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

TEST_F(Atomic, TwoPlacesInOneDirectoryAreLockedOnce) {
  os::Place a = place("file.txt"), b = place("other.txt");
  auto held = os::lock(a, &b);  // would wait on itself if it locked the directory twice
  EXPECT_TRUE(std::holds_alternative<os::DirLock>(held));
}

TEST_F(Atomic, RenameNeverReplacesAndMovesALinkAsItself) {
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

namespace {

TEST_F(Atomic, TempFileWrittenInPiecesCommitsAndAnAbandonedOneLeavesNothing) {
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

TEST_F(Atomic, ReadWholeKeepsTheFileAndHandsEveryPieceInOrder) {
  std::string content;
  for (int i = 0; content.size() < 700 * 1024; ++i) content += "line " + std::to_string(i) + "\n";
  put(root_ / "big.txt", content);
  int fd = open((root_ / "big.txt").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string seen;
  os::Bytes kept;
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

TEST(BigAlloc, LargeBuffersAreHugePageAlignedAndKeepTheirBytesAsTheyGrow) {
  const size_t n = 3 << 20;
  auto* p = static_cast<char*>(os::big_alloc(n));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2 << 20), 0u);
  p[0] = 1;
  p[n - 1] = 2;
  os::big_free(p, n);
  void* small = os::big_alloc(100);
  ASSERT_NE(small, nullptr);
  os::big_free(small, 100);

  os::Bytes b;
  std::string want;
  for (int i = 0; i < 20000; ++i) {
    std::string piece = std::to_string(i) + ",";
    ASSERT_TRUE(b.append(piece));
    want += piece;
  }
  EXPECT_TRUE(b.view() == want);
  os::Bytes moved = std::move(b);
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(moved.view() == want);

  os::BigVector<uint32_t> v(1 << 20, 7);
  EXPECT_EQ(v[12345], 7u);
}

}  // namespace
