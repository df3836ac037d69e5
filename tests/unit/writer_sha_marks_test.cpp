// writer/replace_stream.h's ShaMarks and RewriteSink: a rewrite's hash resumed from a snapshot
// pass 1 took of the old file's is the hash of the new bytes, wherever the first change is
// (before the first snapshot, on one, between two, at the very end) and however the pieces
// fall across the snapshot's offset.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "os/hash.h"
#include "writer/replace_stream.h"

namespace {

constexpr uint64_t kStep = writer::ShaMarks::kMarkStep;

TEST(ShaMarks, ResumedHashesAreThoseOfTheNewBytes) {
  std::mt19937_64 rng(5);
  std::string old_bytes(3 * kStep + 12345, '\0');
  for (char& c : old_bytes) c = static_cast<char>('a' + rng() % 26);
  // Pass 1, in windows of odd sizes: the marks fall where the windows end.
  writer::ShaMarks marks;
  os::Sha sha;
  for (size_t pos = 0; pos < old_bytes.size();) {
    const size_t n = std::min<size_t>(old_bytes.size() - pos, 1000003);
    sha.update(std::string_view(old_bytes).substr(pos, n));
    pos += n;
    marks.mark(pos, sha);
  }
  EXPECT_EQ(sha.hex(), os::sha256_hex(old_bytes));
  for (uint64_t change : {uint64_t{0}, uint64_t{17}, kStep - 1, kStep + 1000003, 2 * kStep + 5,
                          uint64_t{old_bytes.size()}}) {
    std::string new_bytes = old_bytes.substr(0, change) + "CHANGED" +
                            old_bytes.substr(std::min<uint64_t>(change + 3, old_bytes.size()));
    for (size_t piece : {size_t{4096}, size_t{999983}, size_t{1} << 22}) {
      writer::RewriteSink sink(nullptr, &marks, change);
      for (size_t pos = 0; pos < new_bytes.size(); pos += piece)
        sink(std::string_view(new_bytes).substr(pos, piece));
      const writer::Rewritten r = sink.result();
      EXPECT_EQ(r.sha256, os::sha256_hex(new_bytes)) << change << " " << piece;
      EXPECT_EQ(r.size, new_bytes.size());
    }
  }
}

TEST(ShaMarks, NoSnapshotBelowTheChangeHashesFromTheStart) {
  writer::ShaMarks marks;  // none taken: a file smaller than a step
  os::Sha into;
  EXPECT_EQ(marks.resume(kStep * 10, into), 0u);
  EXPECT_EQ(into.hex(), os::sha256_hex(""));
}

}  // namespace
