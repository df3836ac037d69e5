// witness.h — line witnesses (TOOLS.md): `h` + 6 hex digits naming a line by the smallest
// symmetric window of neighbours (at least ±kMinRadius lines, trailing whitespace stripped)
// whose hash is unique in the file; past kMaxRadius the line's index is folded in. A witness
// stays valid while nothing near its line changes.
//
// Definition (shared by every tool, so it is written once, here):
//   L[i]     = XXH3_64(line i with trailing ' ', '\t', '\r', '\v', '\f' removed)
//   w_0(i)   = mix(L[i], 0, 0, 0)
//   w_r(i)   = mix(w_{r-1}(i), L[i-r] or kEdge, L[i+r] or kEdge, r)   (kEdge past the file)
//   value_r  = low 24 bits of w_r
//   mix(a, b, c, d) = XXH3_64 (no seed, default secret) of the 32 bytes a, b, c, d, each
//                     written as 64-bit little-endian (d in two's complement)
//   kEdge    = 0x7461636b65646765 (the ASCII bytes "tackedge")
//   witness(i) = value_r(i) for the smallest r in [kMinRadius, kMaxRadius] whose value is
//                unique among all lines' value_r; else low 24 bits of mix(w_kMax(i), i, 0, -1).
// Out-of-file neighbours are the kEdge sentinel, so the target's offset in a window clipped by
// the file's edge is folded in.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace text {

inline constexpr int kMinRadius = 5;
inline constexpr int kMaxRadius = 16;

// The bytes line_hash leaves off a line's end.
inline bool trailing_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
uint64_t line_hash(std::string_view line);
// line_hash of a line too long to hold, [offset, offset + length) of a file read through `read`
// (pread semantics: up to len bytes at an offset; the count, short only at the end, or
// -errno): its trailing whitespace is found from the end backwards and the rest is hashed in
// pieces, so memory stays one piece. A failed read ends the hashing where it stands. (In
// witness_read.cpp, so that only the tools that read lines back link the streaming hash.)
uint64_t line_hash_read(
    const std::function<long long(char* buf, size_t len, uint64_t offset)>& read, uint64_t offset,
    uint64_t length);
uint64_t witness_mix(uint64_t acc, uint64_t left, uint64_t right, int64_t r);
// kEdge of the definition above.
inline constexpr uint64_t kWitnessEdge = 0x7461636b65646765;  // "tackedge"
std::string witness_text(uint32_t value);                     // "h" + 6 lowercase hex digits
// Parses "h" + 6 hex digits; false otherwise.
bool parse_witness(std::string_view text, uint32_t& value);

// Every line's witness value, given every line's line_hash. Memory O(lines).
std::vector<uint32_t> all_witnesses(std::span<const uint64_t> hashes);

// Witnesses of a few chosen lines of a file too large to hold, in two passes:
//   1. the caller feeds every line's hash in order through add_context() — WitnessFinder keeps
//      only the hashes within kMaxRadius of a chosen line — then calls begin_count(n);
//   2. the caller feeds every line's hash again through count(); then result(i).
// The count() of line total_lines - 1 also settles the last lines (whose right neighbours are
// past the end), so there is no separate finaliser. Lines are fed in order, each exactly once
// per pass; count() calls past total_lines are ignored.
// Memory O(chosen lines × kMaxRadius). Gives exactly what all_witnesses gives.
// A finder told to count only the first `radii` radii (from kMinRadius) hashes each line's
// window only that far, and stops counting once every value it counts is seen twice: it
// answers shared(), not result() (the witness may lie at a radius it did not count).
class WitnessFinder {
 public:
  // 0-based line indices, ascending; radii in [0, kMaxRadius - kMinRadius + 1].
  explicit WitnessFinder(std::vector<uint64_t> chosen, int radii = kMaxRadius - kMinRadius + 1);
  void add_context(uint64_t index, uint64_t hash);
  void begin_count(uint64_t total_lines);
  void count(uint64_t hash);
  // Only for a chosen index, after the second pass, of a finder counting every radius.
  uint32_t result(uint64_t index) const;
  // Whether a chosen line's values at its first `radii` radii (at most the finder's) are each
  // held by another line too: none of them is unique, so none settles its witness.
  bool shared(uint64_t index, int radii) const;
  int radii() const { return radii_; }

 private:
  static constexpr int kWidth = 2 * kMaxRadius + 1;           // a window: offsets -R..R
  static constexpr int kRadii = kMaxRadius - kMinRadius + 1;  // radii that can settle a line
  static constexpr uint64_t kRingMask = 63;                   // ring size 64 >= kWidth + kLanes
  static constexpr int kLanes = 4;                            // lines counted side by side

  std::vector<uint64_t> chosen_;  // ascending, distinct
  int radii_;                     // the radii counted: kMinRadius .. kMinRadius + radii_ - 1
  size_t open_ = 0;               // pass 2: tallies still below 2; none left, counting stops
  size_t cursor_ = 0;             // pass 1: first chosen line whose window is not yet behind
  std::vector<uint64_t> near_;    // pass 1: chosen × kWidth hashes, kEdge where no line
  struct Tally {
    uint32_t key;    // r << 24 | value_r
    uint32_t count;  // lines of the file seen with this value_r at this r, capped at 2
  };
  std::vector<Tally> tallies_;                       // one per distinct (r, value_r) of chosen
  std::unordered_map<uint32_t, uint32_t> tally_of_;  // key -> index into tallies_
  std::vector<uint32_t> tally_;   // chosen × kRadii: index into tallies_ of its value_r
  std::vector<uint32_t> fold_;    // per chosen line: the index fold, if nothing settles it
  std::vector<uint64_t> filter_;  // bits by value_r: could this value be a chosen line's?
  uint32_t filter_mask_ = 0;
  std::array<uint64_t, kRingMask + 1> ring_{};  // pass 2: the last hashes, by index & mask
  uint64_t total_ = 0, seen_ = 0;
  uint64_t counted_ = 0;  // pass 2: the lines whose window has been counted
  template <int L>
  void count_centers();  // the next L lines' windows
};

}  // namespace text
