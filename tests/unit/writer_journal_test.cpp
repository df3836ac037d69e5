// writer/journal.h — the entry's text form read back as written, and every damaged form
// refused as journal.damaged (never trusted): truncated, overlong, patches out of order or
// outside a patched file, a payload counted wrongly, an unknown kind, a path that is not hex.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>

#include "os/hash.h"
#include "writer/journal.h"

namespace {

using writer::Change;
using writer::Entry;

Entry sample() {
  Entry e;
  e.id = 42;
  e.tool = "edit";
  e.argv = {"edit", "--root", "/tmp/a b", "", "--stdin", "dir/f\nile"};  // an empty one too
  Change blob;
  blob.kind = "replace";
  blob.path = "small.txt";
  blob.before = std::string(64, 'a');
  blob.after = std::string(64, 'b');
  blob.mode = 0640;
  blob.restore = Change::Restore::Blob;
  blob.added = 2;
  blob.removed = 1;
  Change patched;
  patched.kind = "replace";
  patched.path = "big.txt";
  patched.before = std::string(64, 'c');
  patched.after = std::string(64, 'd');
  patched.mode = 0604;
  patched.restore = Change::Restore::Patch;
  patched.patches = {{10, 3, "old line\n", 9}, {100, 0, std::string("\0\r\n", 3), 3}};
  Change moved;
  moved.kind = "remove";
  moved.path = "gone.txt";
  moved.to = ".gone.txt.removed-aaaaaaaa";
  moved.before = moved.after = std::string(64, 'a');
  moved.mode = S_IFLNK | 0777;  // what it moved: a link
  e.changes = {blob, patched, moved};
  return e;
}

std::variant<Entry, contract::Error> parse(const std::string& text) {
  return writer::parse_header(42, text, text.size());
}

std::string rule_of(const std::string& text) {
  auto r = parse(text);
  if (auto* e = std::get_if<contract::Error>(&r)) return std::string(e->rule);
  return "ok";
}

TEST(WriterJournal, ReadsBackWhatItWrote) {
  const std::string text = writer::format_entry(sample());
  auto r = parse(text);
  ASSERT_TRUE(std::holds_alternative<Entry>(r)) << std::get<contract::Error>(r).message;
  const Entry& e = std::get<Entry>(r);
  EXPECT_EQ(e.tool, "edit");
  EXPECT_EQ(e.argv, sample().argv);
  ASSERT_EQ(e.changes.size(), 3u);
  EXPECT_EQ(e.changes[0].restore, Change::Restore::Blob);
  EXPECT_EQ(e.changes[0].mode, 0640u);
  EXPECT_EQ(e.changes[0].added, 2u);
  EXPECT_EQ(e.changes[1].patches.size(), 2u);
  EXPECT_EQ(e.changes[1].patches[0].at, 10u);
  EXPECT_EQ(e.changes[1].patches[0].old_len, 9u);
  EXPECT_EQ(e.changes[1].patches[1].old_len, 3u);
  EXPECT_EQ(e.changes[2].to, ".gone.txt.removed-aaaaaaaa");
  EXPECT_EQ(e.changes[2].mode, static_cast<mode_t>(S_IFLNK | 0777));
  EXPECT_EQ(e.payload_bytes, 12u);
  // The payload is the patches' bytes, in order, at the end.
  EXPECT_EQ(text.substr(e.payload_at), std::string("old line\n\0\r\n", 12));
}

TEST(WriterJournal, AnEmptyArgumentWrittenAsNothingReadsBack) {
  // Entries written before an empty argument was "-" hold "arg " and nothing after it.
  std::string text = writer::format_entry(sample());
  const size_t at = text.find("arg -\n");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "arg \n");
  auto r = parse(text);
  ASSERT_TRUE(std::holds_alternative<Entry>(r)) << std::get<contract::Error>(r).message;
  EXPECT_EQ(std::get<Entry>(r).argv, sample().argv);
}

TEST(WriterJournal, AMovedTypeOtherThanAFileALinkOrADirectoryIsDamaged) {
  Entry e = sample();
  e.changes[2].mode = S_IFIFO | 0644;
  EXPECT_EQ(rule_of(writer::format_entry(e)), "journal.damaged");
}

TEST(WriterJournal, EveryTruncationIsDamaged) {
  const std::string text = writer::format_entry(sample());
  for (size_t n = 0; n < text.size(); ++n)
    EXPECT_EQ(rule_of(text.substr(0, n)), "journal.damaged") << n;
  EXPECT_EQ(rule_of(text + "x"), "journal.damaged");
}

TEST(WriterJournal, MalformedLinesAreDamaged) {
  const std::string text = writer::format_entry(sample());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    return rule_of(t);
  };
  EXPECT_EQ(with("id 42", "id 43"), "journal.damaged");
  EXPECT_EQ(with("file replace", "file truncate"), "journal.damaged");
  EXPECT_EQ(with("patch 100 0 3", "patch 5 0 3"), "journal.damaged");  // out of order
  EXPECT_EQ(with("payload 12", "payload 11"), "journal.damaged");
  EXPECT_EQ(with("arg 65", "arg 6"), "journal.damaged");  // odd hex
  EXPECT_EQ(with(" 640 ", " 99999 "), "journal.damaged");
  EXPECT_EQ(with("tack-journal 1", "tack-journal 2"), "journal.damaged");
  EXPECT_EQ(with("tool edit\n", ""), "journal.damaged");
}

TEST(WriterJournal, APatchOutsideAPatchedFileIsDamaged) {
  Entry e = sample();
  e.changes[0].patches = {{0, 1, "x", 1}};  // a blob change carrying a patch
  EXPECT_EQ(rule_of(writer::format_entry(e)), "journal.damaged");
}

// The blob a writer compares on a second thread before it stages its change
// (writer::blob_holding, Change::blob_seen): the answer names the blob's inode only when it
// holds the bytes, and a blob replaced after that answer is compared again, not trusted.
class JournalBlobs : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/tack-journal-test.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    root = dir;
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
  }
  void TearDown() override {
    close(fd);
    std::filesystem::remove_all(root);
  }
  // One change of `path` from `old` to other bytes, staged and done: the blob of `old` copied
  // (no source descriptor to link) unless a blob of those bytes is kept already.
  void change(const std::string& old, uint64_t seen) {
    static const contract::Tool tool{.name = "write", .schema = "write.v1"};
    contract::Out out(-1, SIZE_MAX);
    contract::Context ctx(tool, out);
    ctx.argv_ = {"write", "f.txt"};
    auto opened = writer::Journal::open(fd);
    ASSERT_TRUE(std::holds_alternative<writer::Journal>(opened));
    writer::Journal& j = std::get<writer::Journal>(opened);
    const std::string_view bytes = old;
    Change c;
    c.kind = "replace";
    c.path = "f.txt";
    c.before = os::sha256_hex(old);
    c.after = std::string(64, 'b');
    c.mode = 0644;
    c.restore = Change::Restore::Blob;
    c.content = &bytes;
    c.blob_seen = seen;
    auto e = j.stage(ctx, std::move(c));
    ASSERT_FALSE(e) << e->message;
    (void)j.done();
  }
  std::string blob_path(const std::string& bytes) const {
    return root + "/.tack/journal/blobs/" + os::sha256_hex(bytes);
  }
  std::string read(const std::string& path) const {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  uint64_t ino(const std::string& path) const {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
  }
  std::string root;
  int fd = -1;
};

TEST_F(JournalBlobs, HoldingNamesTheBlobOnlyWhenItHoldsTheBytes) {
  const std::string x = "first version\n", y = "FIRST version\n";
  EXPECT_EQ(writer::blob_holding(fd, os::sha256_hex(x), x), 0u);  // no journal yet: none made
  EXPECT_FALSE(std::filesystem::exists(root + "/.tack"));
  change(x, 0);
  EXPECT_EQ(read(blob_path(x)), x);
  EXPECT_EQ(writer::blob_holding(fd, os::sha256_hex(x), x), ino(blob_path(x)));
  EXPECT_EQ(writer::blob_holding(fd, os::sha256_hex(x), y), 0u);  // same size, other bytes
  EXPECT_EQ(writer::blob_holding(fd, os::sha256_hex(y), y), 0u);  // no blob of that name
}

TEST_F(JournalBlobs, ABlobReplacedAfterTheAnswerIsComparedAgain) {
  const std::string x = "first version\n";
  change(x, 0);
  const uint64_t seen = writer::blob_holding(fd, os::sha256_hex(x), x);
  ASSERT_NE(seen, 0u);
  // Meanwhile the name comes to hold other bytes, as another file (a torn copy).
  const std::string torn = blob_path(x) + ".torn";
  std::ofstream(torn, std::ios::binary) << std::string(x.size(), '\0');
  ASSERT_EQ(rename(torn.c_str(), blob_path(x).c_str()), 0);
  ASSERT_NE(ino(blob_path(x)), seen);
  change(x, seen);
  EXPECT_EQ(read(blob_path(x)), x);  // written again, not trusted by the inode it no longer is
}

TEST_F(JournalBlobs, ABlobGrownInPlaceAfterTheAnswerIsComparedAgain) {
  // The same file, written through a descriptor held on it (as one held on a replaced file,
  // whose inode a linked blob is, can be).
  const std::string x = "first version\n";
  change(x, 0);
  const uint64_t seen = writer::blob_holding(fd, os::sha256_hex(x), x);
  ASSERT_NE(seen, 0u);
  std::ofstream(blob_path(x), std::ios::binary | std::ios::app) << "appended\n";
  ASSERT_EQ(ino(blob_path(x)), seen);
  change(x, seen);
  EXPECT_EQ(read(blob_path(x)), x);
}

}  // namespace
