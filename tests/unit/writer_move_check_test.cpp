// writer_move_check_test.cpp — what move decides before it renames: the tombstone's name (cut
// to fit a long name), a source still as the caller read it, a retry that already landed, a
// source gone, a hash that does not match, a directory that has no hash.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "os/hash.h"
#include "place_fixture.h"
#include "writer/move_check.h"

namespace {

class WriterMoveCheck : public place_fixture::Tree {
 protected:
  std::string tomb(std::string_view path, const std::string& hex) {
    return writer::tombstone_of(place(path), hex);
  }
  // "landed", "free", "taken" or the rule refusing the move of `from` to `to`.
  std::string judged(std::string_view from, std::string_view to,
                     std::optional<std::string> expect = std::nullopt) {
    os::Place f = place(from), t = place(to);
    auto r = writer::judge(f, t, std::string(from), std::string(to), expect, false, "moved");
    if (auto* e = std::get_if<contract::Error>(&r)) return std::string(e->rule);
    const writer::Looked& l = std::get<writer::Looked>(r);
    if (l.landed) return "landed";
    return l.d.kind == os::Entry::Kind::Missing ? "free" : "taken";
  }
};

TEST_F(WriterMoveCheck, TombstoneBesideThePath) {
  const std::string hex = os::sha256_hex("old\n");
  EXPECT_EQ(tomb("file.txt", hex), ".file.txt.removed-" + hex.substr(0, 8));
  EXPECT_EQ(tomb("dir/x", hex), "dir/.x.removed-" + hex.substr(0, 8));
  // A name too long to keep whole in a tombstone is cut: the tombstone is 255 bytes.
  EXPECT_EQ(tomb(std::string(237, 'n'), hex),
            "." + std::string(237, 'n') + ".removed-" + hex.substr(0, 8));
  EXPECT_EQ(tomb(std::string(255, 'n'), hex),
            "." + std::string(237, 'n') + ".removed-" + hex.substr(0, 8));
}

TEST_F(WriterMoveCheck, SourceAndDestination) {
  put(root_ / "dir" / "taken", "t\n");
  EXPECT_EQ(judged("file.txt", "new.txt"), "free");
  EXPECT_EQ(judged("file.txt", "dir/taken"), "taken");
  EXPECT_EQ(judged("file.txt", "new.txt", os::sha256_hex("old\n")), "free");
  EXPECT_EQ(judged("file.txt", "new.txt", os::sha256_hex("other\n")), "precondition.hash-mismatch");
  EXPECT_EQ(judged("dir", "new", os::sha256_hex("x")), "io.is-a-directory");
}

TEST_F(WriterMoveCheck, ARetryThatLandedAndASourceGone) {
  // Without a hash nothing shows the destination is what was moved: PATH is not found.
  EXPECT_EQ(judged("gone.txt", "file.txt"), "io.not-found");
  EXPECT_EQ(judged("gone.txt", "file.txt", os::sha256_hex("old\n")), "landed");
  EXPECT_EQ(judged("gone.txt", "file.txt", os::sha256_hex("other\n")), "io.not-found");
  EXPECT_EQ(judged("gone.txt", "nothing.txt"), "io.not-found");
}

}  // namespace
