// witness.cpp — line witnesses: the definition in witness.h, computed two ways that must agree
// bit for bit: all_witnesses() for a file held in memory, WitnessFinder for a few lines of a
// file streamed twice in bounded memory.

#include "text/witness.h"

#include <algorithm>

#include "text/witness_mix.h"

namespace text {
namespace {

// Past the file's first and last lines a window sees this instead of a line hash. Any fixed
// value works; it is part of the definition (witness.h), so it never changes.
constexpr uint64_t kEdge = kWitnessEdge;
constexpr uint32_t kUnset = 0xffffffff;  // not a 24-bit value
using mix::kValueMask;
using mix::value_of;

// Counts how many lines share each 24-bit value at one radius, and settles the still-unsettled
// lines whose value is alone. Two strategies with one answer: sorting (value, index) pairs
// costs O(n log n) but no fixed memory, so it serves small files; a pair of bitsets over all
// 2^24 values (4 MiB, flat) costs O(n) and serves large ones.
class Settler {
 public:
  explicit Settler(size_t n) : n_(n) {
    if (n_ > kSortLimit) {
      seen_.resize(kWords);
      twice_.resize(kWords);
    }
  }

  // values[i] is line i's value_r; settles out[i] for each i in `open` whose value is unique,
  // and removes it from `open`.
  void settle(const std::vector<uint32_t>& values, std::vector<uint32_t>& open,
              std::vector<uint32_t>& out) {
    if (n_ > kSortLimit)
      settle_bitset(values, open, out);
    else
      settle_sorted(values, out);
    std::erase_if(open, [&](uint32_t i) { return out[i] != kUnset; });
  }

 private:
  static constexpr size_t kSortLimit = 8192;
  static constexpr size_t kWords = (size_t{1} << 24) / 64;

  void settle_sorted(const std::vector<uint32_t>& values, std::vector<uint32_t>& out) {
    pairs_.resize(n_);
    for (size_t i = 0; i < n_; ++i) pairs_[i] = uint64_t{values[i]} << 32 | i;
    std::sort(pairs_.begin(), pairs_.end());
    for (size_t a = 0; a < n_;) {
      size_t b = a + 1;
      while (b < n_ && (pairs_[b] >> 32) == (pairs_[a] >> 32)) ++b;
      if (b == a + 1) {
        auto i = static_cast<uint32_t>(pairs_[a]);
        if (out[i] == kUnset) out[i] = values[i];
      }
      a = b;
    }
  }

  void settle_bitset(const std::vector<uint32_t>& values, const std::vector<uint32_t>& open,
                     std::vector<uint32_t>& out) {
    std::fill(seen_.begin(), seen_.end(), 0);
    std::fill(twice_.begin(), twice_.end(), 0);
    for (uint32_t v : values) {
      uint64_t bit = uint64_t{1} << (v & 63);
      twice_[v >> 6] |= seen_[v >> 6] & bit;
      seen_[v >> 6] |= bit;
    }
    for (uint32_t i : open) {
      uint32_t v = values[i];
      if (!(twice_[v >> 6] >> (v & 63) & 1)) out[i] = v;
    }
  }

  size_t n_;
  std::vector<uint64_t> pairs_, seen_, twice_;
};

}  // namespace

uint64_t line_hash(std::string_view line) {
  size_t n = line.size();
  while (n > 0 && trailing_blank(line[n - 1])) --n;
  return XXH3_64bits(n ? line.data() : "", n);
}

uint64_t witness_mix(uint64_t acc, uint64_t left, uint64_t right, int64_t r) {
  return mix::mix(acc, left, right, r);
}

std::string witness_text(uint32_t value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(7, 'h');
  for (int i = 0; i < 6; ++i) out[6 - i] = kHex[(value >> (4 * i)) & 0xf];
  return out;
}

// Strict: lowercase 'h' and lowercase hex only, the one spelling witness_text() prints, so a
// witness has exactly one text and a mangled copy is refused rather than guessed at.
bool parse_witness(std::string_view text, uint32_t& value) {
  if (text.size() != 7 || text[0] != 'h') return false;
  uint32_t v = 0;
  for (char c : text.substr(1)) {
    if (c >= '0' && c <= '9')
      v = v << 4 | static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v = v << 4 | static_cast<uint32_t>(c - 'a' + 10);
    else
      return false;
  }
  value = v;
  return true;
}

std::vector<uint32_t> all_witnesses(std::span<const uint64_t> hashes) {
  const size_t n = hashes.size();
  std::vector<uint32_t> out(n, kUnset);
  if (n == 0) return out;

  // w[i] is w_r(i) for the current r, advanced in place one radius at a time: each step adds
  // only the two new neighbours, so the whole computation is O(n × kMaxRadius).
  std::vector<uint64_t> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = mix::mix(hashes[i], 0, 0, 0);

  std::vector<uint32_t> values(n);
  // 32-bit line indices: 2^32 lines would need some 80 GiB here; such a file goes through
  // WitnessFinder instead.
  std::vector<uint32_t> open(n);  // lines not yet settled, ascending
  for (size_t i = 0; i < n; ++i) open[i] = static_cast<uint32_t>(i);
  Settler settler(n);

  for (int r = 1; r <= kMaxRadius; ++r) {
    const auto ur = static_cast<size_t>(r);
    for (size_t i = 0; i < n; ++i) {
      uint64_t left = i >= ur ? hashes[i - ur] : kEdge;
      uint64_t right = i + ur < n ? hashes[i + ur] : kEdge;
      w[i] = mix::mix(w[i], left, right, r);
    }
    if (r < kMinRadius) continue;
    for (size_t i = 0; i < n; ++i) values[i] = value_of(w[i]);
    settler.settle(values, open, out);
    // Settled lines no longer need a larger window, but every line's value still counts
    // against the others, so w advances for all lines until no line is open.
    if (open.empty()) return out;
  }
  for (uint32_t i : open) out[i] = mix::fold(w[i], i);
  return out;
}

WitnessFinder::WitnessFinder(std::vector<uint64_t> chosen, int radii)
    : chosen_(std::move(chosen)), radii_(std::clamp(radii, 0, kRadii)) {
  std::sort(chosen_.begin(), chosen_.end());
  chosen_.erase(std::unique(chosen_.begin(), chosen_.end()), chosen_.end());
  near_.assign(chosen_.size() * kWidth, kEdge);
}

void WitnessFinder::add_context(uint64_t index, uint64_t hash) {
  if (index < seen_) cursor_ = 0;  // fed out of order: start the scan again, still correct
  seen_ = index + 1;
  // Windows of ascending chosen lines start in ascending order, so the cursor only moves on.
  const size_t c = chosen_.size();
  while (cursor_ < c && chosen_[cursor_] + kMaxRadius < index) ++cursor_;
  for (size_t k = cursor_; k < c && chosen_[k] <= index + kMaxRadius; ++k)
    near_[k * kWidth + (index + kMaxRadius - chosen_[k])] = hash;
}

void WitnessFinder::begin_count(uint64_t total_lines) {
  total_ = total_lines;
  seen_ = 0;
  counted_ = 0;
  const size_t c = chosen_.size();
  tally_.assign(c * kRadii, 0);
  fold_.assign(c, 0);
  for (size_t k = 0; k < c; ++k) {
    // Positions never fed (before line 0, past the last line) kept kEdge: the window is
    // exactly what all_witnesses sees for this line.
    const uint64_t* at = &near_[k * kWidth + kMaxRadius];
    uint64_t w = mix::mix(at[0], 0, 0, 0);
    for (int r = 1; r <= kMaxRadius; ++r) {
      w = mix::mix(w, at[-r], at[r], r);
      if (r < kMinRadius || r >= kMinRadius + radii_) continue;
      uint32_t key = static_cast<uint32_t>(r) << 24 | value_of(w);
      auto [it, added] = tally_of_.try_emplace(key, static_cast<uint32_t>(tallies_.size()));
      if (added) tallies_.push_back({key, 0});
      tally_[k * kRadii + static_cast<size_t>(r - kMinRadius)] = it->second;
    }
    fold_[k] = mix::fold(w, chosen_[k]);
  }
  near_.clear();
  near_.shrink_to_fit();
  open_ = tallies_.size();

  // A bit per value (of any radius) some chosen line holds, so the second pass can dismiss
  // almost every line's value with one load from a table that stays in cache, and consults
  // the hash map only for the few that may matter. About 64 bits per key keeps false hits
  // near 1.5%; capped at one bit per 24-bit value, where it is exact.
  size_t bits = 4096;
  while (bits < (size_t{1} << 24) && bits < tallies_.size() * 64) bits <<= 1;
  filter_.assign(bits / 64, 0);
  filter_mask_ = static_cast<uint32_t>(bits - 1);
  for (const Tally& t : tallies_) {
    uint32_t b = (t.key & kValueMask) & filter_mask_;
    filter_[b >> 6] |= uint64_t{1} << (b & 63);
  }
}

void WitnessFinder::count(uint64_t hash) {
  if (seen_ >= total_) return;
  ring_[seen_ & kRingMask] = hash;
  ++seen_;
  // Nothing chosen, or every value counted already seen twice: nothing left to count.
  if (open_ == 0) return;
  // Line seen_ - 1 completes the window of the line kMaxRadius before it; such lines are
  // counted kLanes at a time (mix::chains).
  while (seen_ > kMaxRadius && seen_ - kMaxRadius - counted_ >= kLanes) count_centers<kLanes>();
  // The last lines' windows run past the end: their right neighbours are kEdge.
  if (seen_ == total_)
    while (counted_ < total_) count_centers<1>();
}

template <int L>
void WitnessFinder::count_centers() {
  uint32_t values[L][kRadii], folds[L];
  mix::chains<L, false>(
      counted_, total_, [&](uint64_t i) { return ring_[i & kRingMask]; }, values, folds,
      kMinRadius + radii_ - 1);
  for (int l = 0; l < L; ++l)
    for (int k = 0; k < radii_; ++k) {
      const uint32_t v = values[l][k];
      const uint32_t b = v & filter_mask_;
      if (!(filter_[b >> 6] >> (b & 63) & 1)) continue;
      auto it = tally_of_.find(static_cast<uint32_t>(k + kMinRadius) << 24 | v);
      if (it == tally_of_.end() || tallies_[it->second].count >= 2) continue;
      if (++tallies_[it->second].count == 2) --open_;
    }
  counted_ += L;
}

bool WitnessFinder::shared(uint64_t index, int radii) const {
  auto pos = std::lower_bound(chosen_.begin(), chosen_.end(), index);
  if (pos == chosen_.end() || *pos != index || radii > radii_) return false;
  const auto k = static_cast<size_t>(pos - chosen_.begin());
  for (size_t j = 0; j < static_cast<size_t>(radii); ++j)
    if (tallies_[tally_[k * kRadii + j]].count < 2) return false;
  return true;
}

uint32_t WitnessFinder::result(uint64_t index) const {
  auto pos = std::lower_bound(chosen_.begin(), chosen_.end(), index);
  if (pos == chosen_.end() || *pos != index || tally_.empty() || radii_ < kRadii) return 0;
  const auto k = static_cast<size_t>(pos - chosen_.begin());
  // The count includes the line itself, so 1 means no other line shares the value.
  for (size_t j = 0; j < kRadii; ++j) {
    const Tally& t = tallies_[tally_[k * kRadii + j]];
    if (t.count == 1) return t.key & kValueMask;
  }
  return fold_[k];
}

}  // namespace text
