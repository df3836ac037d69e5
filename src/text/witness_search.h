// witness_search.h — the lines whose witness (witness.h) is one of a few given values, in a
// file fed twice as a stream of line hashes, in memory set by the values asked for, never by
// the file's size: how edit resolves witnesses in a file it does not hold.
//
// A line's witness is v exactly when, at the smallest radius r in [kMinRadius, kMaxRadius]
// whose value is unique among all lines, its value is v, or (no radius unique) its index fold
// is v. So the first pass, which computes every line's value at every radius and its fold,
// needs to keep only: per value asked for and radius, how many lines have it there (0, 1, 2+)
// and the first of them, and the lines whose fold is it. Every line whose witness is v is
// among those (the candidates). Whether a candidate's smaller radii were unique, settling it
// on another value, depends on the whole file: a text::WitnessFinder over the candidates
// counts that in the second pass, the smallest radii first (see settle()). The witnesses of the
// lines around a candidate (which a refusal shows) take one more counting pass, asked for with
// around().
//
// Memory: per distinct value asked for, kRadii counters and its candidates (about one for a
// witness a reader printed; more only in a file crafted to collide), and per candidate the
// hashes and starting offsets of the lines within `around` + kMaxRadius of it (24 bytes a
// line) and the finder's tallies.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "mem/big_alloc.h"
#include "text/witness.h"

namespace text {

class WitnessSearch {
 public:
  // `wanted`: the values (duplicates allowed). `around`: the lines either side of a
  // candidate (and after line 0) whose extent is kept, and whose witnesses around() finds;
  // at most 16.
  WitnessSearch(const std::vector<uint32_t>& wanted, uint64_t around);

  // Pass 1: every line's line_hash in order, with the byte offset where the line starts.
  void add(uint64_t hash, uint64_t start);
  // The end of pass 1: `end` is the offset just past the last line (the file's size).
  void end_first(uint64_t end);
  // Pass 2 (and the pass after around()): every line's hash again, in order.
  void count(uint64_t hash) { finder_->count(hash); }
  // After pass 2: settles the candidates it counted. False when some need the larger radii
  // counted too: then one more pass of count() over every line, and settle() again.
  bool settle();

  uint64_t lines() const { return total_; }  // after pass 1

  // After pass 1. The line most likely named by `value`: a candidate that pass 1 saw must be
  // named so (its value unique at a radius, and each smaller radius's value held by another
  // line nearby too, as in a run of repeated lines), else the first line that has it at the
  // smallest radius where it is unique, else the one line whose fold it is. Whether no other
  // line is named so too is known after pass 2 only.
  std::optional<uint64_t> likely(uint32_t value) const;
  // After pass 1: the lines `value` names, when pass 1 already knows them all (every
  // candidate seen to be named so, as likely() tells; the usual case outside files of
  // repeated lines): then pass 2 need not count. Else nothing.
  std::optional<std::vector<uint64_t>> known(uint32_t value) const;
  // A line's bytes, [start, end): its '\n' included, the BOM not. For a line within `around`
  // of a candidate or of line 0.
  std::pair<uint64_t, uint64_t> extent(uint64_t line) const;

  // After settle() gave true, before around() (after pass 1 for a value known()). The lines whose
  // witness is `value`, ascending.
  std::vector<uint64_t> hits(uint32_t value) const;
  // Where a witness that names no line most likely pointed: the first line that has `value`
  // at some radius in [kMinRadius, kMaxRadius] (its neighbourhood intact but the radius that
  // makes it unique moved), or -1. It is a candidate.
  int64_t nearest(uint32_t value) const;

  // After pass 2: the lines within `around` of each of `centers` (candidates, or line 0) are
  // to have their witnesses found, by one more pass of count(). Then witness() gives them.
  void around(const std::vector<uint64_t>& centers);
  uint32_t witness(uint64_t line) const { return finder_->result(line); }

 private:
  static constexpr int kRadii = kMaxRadius - kMinRadius + 1;
  static constexpr int kLanes = 4;  // lines whose chains are computed side by side
  // Lines back from the last added that a candidate's capture may still need: around,
  // kMaxRadius, and the lanes not yet taken.
  static constexpr uint64_t kRing = 64;
  static_assert(kRing >= 16 + 2 * kMaxRadius + kLanes + 1);

  struct Wanted {
    uint32_t value;
    std::array<uint8_t, kRadii> count{};   // lines with the value at each radius, capped at 2
    std::array<uint64_t, kRadii> first{};  // the first of them
    std::array<bool, kRadii> shared{};     // its values below that radius seen on other lines
    std::vector<uint64_t> folds;           // lines whose index fold is the value
    std::vector<bool> folds_shared;        // their values at every radius seen on other lines
  };
  struct Captured {
    uint64_t line, hash, start;
  };
  Wanted* find(uint32_t value);
  const Wanted* find(uint32_t value) const;
  template <int L>
  void centers();  // the chains of the next L lines, whose windows are complete
  void keep(uint64_t c);
  bool shared_below(uint64_t c, int radii, uint64_t last) const;
  // How pass 1's exact counts (below) settle line c, kept, holding a value at radius index k
  // (kRadii: as its fold): not named by it when one of the smaller radii counted holds a
  // value of its own; named when every radius below k was counted and none does; else open.
  enum class Settled { Named, NotNamed, Open };
  Settled settled(uint64_t c, int k) const;
  void count_exact(uint64_t c, const uint32_t* values);  // the center's, at radius index 0..
  void capture(uint64_t line);
  const Captured* captured(uint64_t line) const;
  void start_finder(std::vector<uint64_t> chosen, int radii);
  struct Pending {
    uint64_t line;
    int radii;  // named when its values at this many radii from kMinRadius are all shared
    auto operator<=>(const Pending&) const = default;
  };
  static constexpr int kFirstRadii = 3;
  void next_round();
  bool named(uint64_t line, int radii) const;
  std::vector<Pending> pending_;  // candidates not yet settled
  std::vector<Pending> named_;    // candidates settled as named, sorted
  int rounds_ = 0;

  uint64_t around_;
  std::vector<Wanted> wanted_;    // by value, ascending, distinct
  std::vector<uint64_t> filter_;  // a bit per value (masked): could it be wanted?
  uint32_t filter_mask_ = 0;
  std::array<std::pair<uint64_t, uint64_t>, kRing> ring_{};   // (hash, start) by line
  std::array<std::array<uint32_t, kRadii>, kRing> values_{};  // the values of recent lines
  uint64_t n_ = 0, total_ = 0, end_ = 0;
  uint64_t centered_ = 0;             // pass 1: the lines whose chains are done
  uint64_t capture_until_ = 0;        // pass 1: lines up to this one are captured as they come
  std::vector<Captured> captured_;    // ascending by line, distinct
  std::vector<uint64_t> candidates_;  // every line kept in pass 1, for its neighbourhood
  // Pass 1 counts every line's values at the kExact smallest radii exactly (capped at 2) for
  // the kept lines: one that holds a wanted value at a larger radius, or as its fold, is named
  // by it only if its values at the smaller radii are all shared, so most are settled without
  // pass 2 (in a large file a wanted value is also some other line's at another radius more
  // often than not: 77% of values in 100 MiB of 56-byte lines). The lines before a kept one
  // are in exact_seen_ (a bit per 24-bit value and radius: 2 MiB each, made at kExactHeld
  // lines; below that exact_held_ keeps their values); the lines after it are compared with
  // the kept lines' values as they come. One radius leaves about one value in seven of those
  // open (its holder's value there shared too, 11% each in 100 MiB). Two would leave about
  // one in sixty, but measured they settled no more of the benchmark's edits and took peak
  // RSS from 6.2 to 6.9 MiB (8.3 with pass 1's windows in a huge page of their own).
  static constexpr int kExact = 1;
  static constexpr uint64_t kExactHeld = 8192;
  static constexpr size_t kExactWords = (size_t{1} << 24) / 64;  // one radius's bits
  using ExactValues = std::array<uint32_t, kExact>;
  struct Exact {
    uint64_t line;
    ExactValues value;
    std::array<bool, kExact> shared;  // another line holds the value there too
  };
  std::vector<Exact> exact_;                  // one per kept line, ascending
  std::vector<ExactValues> exact_held_;       // the first lines' values, until the bits are made
  mem::BigVector<uint64_t> exact_seen_;       // kExact tables: some line before holds the value
  std::array<uint64_t, 64> exact_filter_{};   // a bit per kept value, masked to 4096 bits
  ExactValues exact_now_{};                   // the center's own values, while it is kept,
  std::array<bool, kExact> exact_before_{};   // and whether a line before it holds each
  std::array<bool, kExact> held_before() const;
  std::optional<WitnessFinder> finder_;
};

}  // namespace text
