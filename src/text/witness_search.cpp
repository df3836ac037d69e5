// witness_search.cpp — see witness_search.h.
#include "text/witness_search.h"

#include <algorithm>

#include "text/witness_mix.h"

namespace text {

WitnessSearch::WitnessSearch(const std::vector<uint32_t>& wanted, uint64_t around)
    : around_(std::min<uint64_t>(around, 16)) {
  std::vector<uint32_t> values;
  for (uint32_t v : wanted) values.push_back(v & mix::kValueMask);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (uint32_t v : values) {
    wanted_.emplace_back();
    wanted_.back().value = v;
  }
  // A bit per value some edit asks for, so that almost every line's value is dismissed with
  // one load from a table that stays in cache (as in WitnessFinder): about 64 bits a value.
  size_t bits = 4096;
  while (bits < (size_t{1} << 24) && bits < wanted_.size() * 64) bits <<= 1;
  filter_.assign(bits / 64, 0);
  filter_mask_ = static_cast<uint32_t>(bits - 1);
  for (const Wanted& w : wanted_) {
    const uint32_t b = w.value & filter_mask_;
    filter_[b >> 6] |= uint64_t{1} << (b & 63);
  }
  // The lines near line 0: where a witness that names nothing is shown to point.
  capture_until_ = around_ + kMaxRadius;
}

WitnessSearch::Wanted* WitnessSearch::find(uint32_t value) {
  auto it = std::lower_bound(wanted_.begin(), wanted_.end(), value,
                             [](const Wanted& w, uint32_t v) { return w.value < v; });
  return it != wanted_.end() && it->value == value ? &*it : nullptr;
}

const WitnessSearch::Wanted* WitnessSearch::find(uint32_t value) const {
  return const_cast<WitnessSearch*>(this)->find(value);
}

void WitnessSearch::add(uint64_t hash, uint64_t start) {
  const uint64_t j = n_++;
  ring_[j % kRing] = {hash, start};
  if (j <= capture_until_) capture(j);
  // Line j completes the window of the line kMaxRadius before it; such lines are taken
  // kLanes at a time (mix::chains).
  while (n_ > kMaxRadius && n_ - kMaxRadius - centered_ >= kLanes) centers<kLanes>();
}

void WitnessSearch::end_first(uint64_t end) {
  total_ = n_;
  end_ = end;
  // The last lines' windows run past the end: their right neighbours are the edge.
  while (centered_ < total_) centers<1>();
  // Every line is counted: the kept lines' flags say all the tables could (freed before
  // the next pass takes its own memory).
  mem::BigVector<uint64_t>().swap(exact_seen_);
  exact_held_ = {};
  // Pass 2 settles only the candidates hits() asks about, of the values pass 1 does not know:
  // one that holds its value first at radius index k (and nowhere else there) is named by it
  // when its values at the k smaller radii are each held by another line too, and a fold
  // when all of them are.
  for (const Wanted& w : wanted_) {
    if (known(w.value)) continue;
    for (int k = 0; k < kRadii; ++k) {
      const uint64_t c = w.first[static_cast<size_t>(k)];
      if (w.count[static_cast<size_t>(k)] == 1 && settled(c, k) != Settled::NotNamed)
        pending_.push_back({c, k});
    }
    for (uint64_t c : w.folds)
      if (settled(c, kRadii) != Settled::NotNamed) pending_.push_back({c, kRadii});
  }
  std::sort(pending_.begin(), pending_.end());
  pending_.erase(std::unique(pending_.begin(), pending_.end()), pending_.end());
  next_round();
}

// Counting a radius means hashing every line's window up to it, so a round counts only the
// radii up to the largest a pending candidate needs, and the first round only the smallest
// kFirstRadii: a candidate's smallest radius is unique (ruling it out) far more often than
// not, so one short round usually settles all, and a second round is rare.
void WitnessSearch::next_round() {
  int radii = 0;
  std::vector<uint64_t> chosen;
  for (const Pending& p : pending_) {
    radii = std::max(radii, p.radii);
    chosen.push_back(p.line);
  }
  if (rounds_++ == 0) radii = std::min(radii, kFirstRadii);
  start_finder(std::move(chosen), radii);
}

bool WitnessSearch::settle() {
  std::vector<Pending> still;
  for (const Pending& p : pending_) {
    const int counted = std::min(p.radii, finder_->radii());
    if (!finder_->shared(p.line, counted)) continue;  // a smaller radius is unique: not named
    if (counted == p.radii)
      named_.push_back(p);
    else
      still.push_back(p);
  }
  pending_ = std::move(still);
  std::sort(named_.begin(), named_.end());
  if (pending_.empty()) return true;
  next_round();
  return false;
}

bool WitnessSearch::named(uint64_t line, int radii) const {
  return std::binary_search(named_.begin(), named_.end(), Pending{line, radii});
}

void WitnessSearch::start_finder(std::vector<uint64_t> chosen, int radii) {
  finder_.emplace(std::move(chosen), radii);
  for (const Captured& c : captured_) finder_->add_context(c.line, c.hash);
  finder_->begin_count(total_);
}

void WitnessSearch::around(const std::vector<uint64_t>& centers) {
  std::vector<uint64_t> chosen;
  for (uint64_t c : centers)
    for (uint64_t i = c > around_ ? c - around_ : 0; i <= c + around_ && i < total_; ++i)
      chosen.push_back(i);
  start_finder(std::move(chosen), kRadii);
}

void WitnessSearch::capture(uint64_t line) {
  if (captured_.empty() || captured_.back().line < line)
    captured_.push_back({line, ring_[line % kRing].first, ring_[line % kRing].second});
}

const WitnessSearch::Captured* WitnessSearch::captured(uint64_t line) const {
  auto it = std::lower_bound(captured_.begin(), captured_.end(), line,
                             [](const Captured& c, uint64_t l) { return c.line < l; });
  return it != captured_.end() && it->line == line ? &*it : nullptr;
}

template <int L>
void WitnessSearch::centers() {
  uint32_t values[L][kRadii], folds[L];
  // The bits each line's values are counted in: fetched while the larger radii are hashed
  // (2 MiB a radius: most lookups would otherwise wait on memory).
  const uint64_t* seen = exact_seen_.empty() ? nullptr : exact_seen_.data();
  mix::chains<L, true>(
      centered_, n_, [&](uint64_t i) { return ring_[i % kRing].first; }, values, folds,
      kMaxRadius, [seen](int k, uint32_t v) {
        if (seen && k < kExact) __builtin_prefetch(seen + k * kExactWords + (v >> 6), 1);
      });
  for (int l = 0; l < L; ++l)
    std::copy(values[l], values[l] + kRadii,
              values_[(centered_ + static_cast<uint64_t>(l)) % kRing].begin());
  const uint64_t last = centered_ + L - 1;  // the last line whose values are in the ring
  for (int l = 0; l < L; ++l) {
    const uint64_t c = centered_ + static_cast<uint64_t>(l);
    count_exact(c, values[l]);
    for (int k = 0; k < kRadii; ++k) {
      const uint32_t v = values[l][k];
      const uint32_t b = v & filter_mask_;
      if (!(filter_[b >> 6] >> (b & 63) & 1)) continue;
      Wanted* want = find(v);
      if (!want) continue;
      if (want->count[k] == 0) {
        want->first[k] = c;
        want->shared[k] = shared_below(c, k, last);
        keep(c);
      }
      if (want->count[k] < 2) ++want->count[k];
    }
    const uint32_t f = folds[l];
    const uint32_t b = f & filter_mask_;
    if (!(filter_[b >> 6] >> (b & 63) & 1)) continue;
    if (Wanted* want = find(f)) {
      want->folds.push_back(c);
      want->folds_shared.push_back(shared_below(c, kRadii, last));
      keep(c);
    }
  }
  centered_ += L;
}

void WitnessSearch::keep(uint64_t c) {
  if (!candidates_.empty() && candidates_.back() == c) return;  // kept already, at another radius
  candidates_.push_back(c);
  exact_.push_back({c, exact_now_, exact_seen_.empty() ? held_before() : exact_before_});
  for (uint32_t v : exact_now_) exact_filter_[(v & 4095) >> 6] |= uint64_t{1} << (v & 63);
  // The lines around it, and their windows, which reach kMaxRadius further: what is still in
  // the ring now, the rest as it comes.
  const uint64_t reach = around_ + kMaxRadius;
  for (uint64_t i = c > reach ? c - reach : 0; i < n_; ++i) capture(i);
  capture_until_ = std::max(capture_until_, c + reach);
}

void WitnessSearch::count_exact(uint64_t c, const uint32_t* values) {
  // Every kept line is before c (a line is kept after its own count).
  for (int j = 0; j < kExact; ++j) {
    const uint32_t v = values[j];
    if (exact_filter_[(v & 4095) >> 6] >> (v & 63) & 1)
      for (Exact& e : exact_) e.shared[j] = e.shared[j] || e.value[j] == v;
    exact_now_[j] = v;
  }
  if (exact_seen_.empty()) {
    exact_held_.push_back(exact_now_);  // whether a line before holds them: asked in keep() only
    if (c + 1 < kExactHeld) return;
    // A large file: the values seen so far become bits, and every later line's too.
    exact_before_ = held_before();
    exact_seen_.assign(kExact * kExactWords, 0);
    for (const ExactValues& h : exact_held_)
      for (int j = 0; j < kExact; ++j)
        exact_seen_[j * kExactWords + (h[j] >> 6)] |= uint64_t{1} << (h[j] & 63);
    exact_held_ = {};
    return;
  }
  for (int j = 0; j < kExact; ++j) {
    uint64_t& word = exact_seen_[j * kExactWords + (values[j] >> 6)];
    const uint64_t bit = uint64_t{1} << (values[j] & 63);
    exact_before_[j] = (word & bit) != 0;
    word |= bit;
  }
}

// Whether a line before the last held holds the last held line's value, at each radius.
std::array<bool, WitnessSearch::kExact> WitnessSearch::held_before() const {
  std::array<bool, kExact> out{};
  const ExactValues& last = exact_held_.back();
  for (auto it = exact_held_.begin(); it + 1 != exact_held_.end(); ++it)
    for (int j = 0; j < kExact; ++j) out[j] = out[j] || (*it)[j] == last[j];
  return out;
}

WitnessSearch::Settled WitnessSearch::settled(uint64_t c, int k) const {
  auto it = std::lower_bound(exact_.begin(), exact_.end(), c,
                             [](const Exact& e, uint64_t l) { return e.line < l; });
  if (it == exact_.end() || it->line != c) return Settled::Open;
  for (int j = 0; j < std::min(k, kExact); ++j)
    if (!it->shared[j]) return Settled::NotNamed;
  return k <= kExact ? Settled::Named : Settled::Open;
}

// Whether line c's values at the radii below kMinRadius + radii are each held by another of
// the lines up to `last` whose values are still in the ring (then none of them is unique: c
// is not settled below). Cheap, and only ever asked of a candidate.
bool WitnessSearch::shared_below(uint64_t c, int radii, uint64_t last) const {
  const uint64_t from = last >= kRing ? last - kRing + 1 : 0;
  const auto& mine = values_[c % kRing];
  for (int k = 0; k < radii; ++k) {
    bool seen = false;
    for (uint64_t j = from; j <= last && !seen; ++j)
      seen = j != c && values_[j % kRing][k] == mine[k];
    if (!seen) return false;
  }
  return true;
}

std::optional<uint64_t> WitnessSearch::likely(uint32_t value) const {
  const Wanted* w = find(value);
  if (!w) return std::nullopt;
  // A line pass 1 saw must be named by the value, if any.
  for (size_t k = 0; k < kRadii; ++k)
    if (w->count[k] == 1 && w->shared[k]) return w->first[k];
  for (size_t i = 0; i < w->folds.size(); ++i)
    if (w->folds_shared[i]) return w->folds[i];
  for (size_t k = 0; k < kRadii; ++k)
    if (w->count[k] == 1) return w->first[k];
  if (w->folds.size() == 1) return w->folds[0];
  return std::nullopt;
}

std::pair<uint64_t, uint64_t> WitnessSearch::extent(uint64_t line) const {
  auto start = [&](uint64_t i) {
    const Captured* c = i < total_ ? captured(i) : nullptr;
    return c ? c->start : end_;
  };
  return {start(line), start(line + 1)};
}

std::optional<std::vector<uint64_t>> WitnessSearch::known(uint32_t value) const {
  std::vector<uint64_t> out;
  const Wanted* w = find(value);
  if (!w) return out;
  // Or as pass 1's exact counts of the smallest radii settle it (settled()).
  for (size_t k = 0; k < kRadii; ++k) {
    if (w->count[k] != 1) continue;
    const Settled how = w->shared[k] ? Settled::Named : settled(w->first[k], static_cast<int>(k));
    if (how == Settled::Open) return std::nullopt;
    if (how == Settled::Named) out.push_back(w->first[k]);
  }
  for (size_t i = 0; i < w->folds.size(); ++i) {
    const Settled how = w->folds_shared[i] ? Settled::Named : settled(w->folds[i], kRadii);
    if (how == Settled::Open) return std::nullopt;
    if (how == Settled::Named) out.push_back(w->folds[i]);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<uint64_t> WitnessSearch::hits(uint32_t value) const {
  if (auto sure = known(value)) return *sure;
  std::vector<uint64_t> out;
  const Wanted* w = find(value);
  if (!w) return out;
  // Its value at radius index k is unique (pass 1 counted every line's): it is the witness
  // when no smaller radius is unique, as the counting passes found.
  for (size_t k = 0; k < kRadii; ++k)
    if (w->count[k] == 1 && named(w->first[k], static_cast<int>(k))) out.push_back(w->first[k]);
  for (uint64_t c : w->folds)
    if (named(c, kRadii)) out.push_back(c);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int64_t WitnessSearch::nearest(uint32_t value) const {
  const Wanted* w = find(value);
  int64_t best = -1;
  if (!w) return best;
  for (size_t k = 0; k < kRadii; ++k)
    if (w->count[k] > 0 && (best < 0 || w->first[k] < static_cast<uint64_t>(best)))
      best = static_cast<int64_t>(w->first[k]);
  return best;
}

}  // namespace text
