// text_witness_search_test.cpp — WitnessSearch (text/witness_search.h) against what the whole
// file gives: the lines whose witness is a value (all_witnesses), the line a stale witness
// most likely named (every line's chain by hand), the witnesses and extents of the lines it
// keeps. Hostile shapes first: identical lines (every interior line folds), repeated blocks,
// empty and one-line files, witnesses of the first and last lines, values no line has.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/witness.h"
#include "text/witness_search.h"

namespace {

using text::kMaxRadius;
using text::kMinRadius;

std::vector<uint64_t> hashes_of(const std::vector<std::string>& lines) {
  std::vector<uint64_t> out;
  for (const auto& l : lines) out.push_back(text::line_hash(l));
  return out;
}

// value_r of line i at every radius in [kMinRadius, kMaxRadius], by hand from the definition.
std::vector<uint32_t> values_of(const std::vector<uint64_t>& h, size_t i) {
  auto at = [&](int64_t p) {
    return p < 0 || p >= static_cast<int64_t>(h.size()) ? text::kWitnessEdge
                                                        : h[static_cast<size_t>(p)];
  };
  std::vector<uint32_t> out;
  uint64_t w = text::witness_mix(h[i], 0, 0, 0);
  for (int r = 1; r <= kMaxRadius; ++r) {
    w = text::witness_mix(w, at(static_cast<int64_t>(i) - r), at(static_cast<int64_t>(i) + r), r);
    if (r >= kMinRadius) out.push_back(static_cast<uint32_t>(w & 0xffffff));
  }
  return out;
}

// The first line holding `value` at some radius, or -1: where a stale witness most likely
// pointed.
int64_t nearest_by_hand(const std::vector<uint64_t>& h, uint32_t value) {
  for (size_t i = 0; i < h.size(); ++i) {
    auto v = values_of(h, i);
    if (std::find(v.begin(), v.end(), value) != v.end()) return static_cast<int64_t>(i);
  }
  return -1;
}

// The counting passes over h after pass 1, as many as settle() asks for; how many.
int count_passes(text::WitnessSearch& s, const std::vector<uint64_t>& h) {
  int passes = 0;
  do {
    for (uint64_t x : h) s.count(x);
    ++passes;
  } while (!s.settle());
  return passes;
}
int max_passes = 0;  // the most any search of check() took

// Both passes over h; line i starts at byte 10 * i (an arbitrary layout to check extents).
text::WitnessSearch searched(const std::vector<uint64_t>& h, const std::vector<uint32_t>& wanted,
                             uint64_t around = 5) {
  text::WitnessSearch s(wanted, around);
  for (size_t i = 0; i < h.size(); ++i) s.add(h[i], 10 * i);
  s.end_first(10 * h.size());
  count_passes(s, h);
  return s;
}

// Checks every answer of the search for `wanted` against the whole file: what pass 1 knows
// already, and the rest after pass 2.
void check(const std::vector<uint64_t>& h, const std::vector<uint32_t>& wanted,
           const std::string& what) {
  const auto all = text::all_witnesses(h);
  text::WitnessSearch s(wanted, 5);
  for (size_t i = 0; i < h.size(); ++i) s.add(h[i], 10 * i);
  s.end_first(10 * h.size());
  for (uint32_t v : wanted) {
    std::vector<uint64_t> want;
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i] == v) want.push_back(i);
    if (auto sure = s.known(v)) {
      ASSERT_EQ(*sure, want) << what << ", value " << v;
    }
  }
  max_passes = std::max(max_passes, count_passes(s, h));
  ASSERT_EQ(s.lines(), h.size()) << what;
  std::vector<uint64_t> centers = {0};  // the lines a refusal shows: around each hit, each
                                        // nearest line, and line 0
  for (uint32_t v : wanted) {
    std::vector<uint64_t> want;
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i] == v) want.push_back(i);
    ASSERT_EQ(s.hits(v), want) << what << ", value " << v;
    const int64_t near = nearest_by_hand(h, v);
    ASSERT_EQ(s.nearest(v), near) << what << ", value " << v;
    centers.insert(centers.end(), want.begin(), want.end());
    if (near >= 0) centers.push_back(static_cast<uint64_t>(near));
  }
  s.around(centers);
  for (uint64_t x : h) s.count(x);
  for (uint64_t c : centers) {
    for (uint64_t i = c > 5 ? c - 5 : 0; i <= c + 5 && i < h.size(); ++i) {
      ASSERT_EQ(s.witness(i), all[i]) << what << ", line " << i;
      ASSERT_EQ(s.extent(i), std::make_pair(10 * i, 10 * i + 10)) << what << ", line " << i;
    }
  }
}

std::vector<uint32_t> some_values(std::mt19937_64& rng, const std::vector<uint64_t>& h) {
  std::vector<uint32_t> out = {0, 0xffffff, static_cast<uint32_t>(rng() & 0xffffff)};
  if (h.empty()) return out;
  const auto all = text::all_witnesses(h);
  out.push_back(all.front());  // the first line's and the last line's
  out.push_back(all.back());
  for (int k = 0; k < 4; ++k) out.push_back(all[rng() % all.size()]);
  // Values lines hold at a radius that is not their witness: no-match, with a nearest line.
  for (int k = 0; k < 3; ++k) {
    auto v = values_of(h, rng() % h.size());
    out.push_back(v[rng() % v.size()]);
  }
  return out;
}

TEST(TextWitnessSearch, IdenticalLinesFoldAndStillResolve) {
  // Every interior line's windows are alike: each line's witness is its index fold, and each
  // radius value is shared by all of them (the counters stop at two, the candidates do not
  // grow with the file).
  const auto h = hashes_of(std::vector<std::string>(3000, "same"));
  const auto all = text::all_witnesses(h);
  check(h, {all[0], all[15], all[16], all[1500], all[2999], values_of(h, 1500)[0]}, "identical");
}

TEST(TextWitnessSearch, RepeatedBlocks) {
  std::vector<std::string> lines;
  for (int b = 0; b < 300; ++b)
    for (int k = 0; k < 7; ++k) lines.push_back("block line " + std::to_string(k));
  lines[1000] = "a mutation";
  const auto h = hashes_of(lines);
  std::mt19937_64 rng(7);
  check(h, some_values(rng, h), "blocks");
}

TEST(TextWitnessSearch, EmptyAndOneLineFiles) {
  check({}, {0, 123}, "empty");
  const auto one = hashes_of({"only"});
  check(one, {text::all_witnesses(one)[0], 5}, "one line");
  const auto s = searched({}, {7});
  EXPECT_EQ(s.nearest(7), -1);
  EXPECT_TRUE(s.hits(7).empty());
  EXPECT_FALSE(s.likely(7));
}

TEST(TextWitnessSearch, MatchesTheWholeFileOnRandomFiles) {
  std::mt19937_64 rng(42);
  for (int file = 0; file < 200; ++file) {
    const size_t n = file < 40 ? static_cast<size_t>(file) : rng() % 2500;
    std::vector<std::string> lines;
    const size_t alphabet = std::vector<size_t>{1, 2, 3, 20, 100000}[rng() % 5];
    for (size_t i = 0; i < n; ++i) lines.push_back("x" + std::to_string(rng() % alphabet));
    const auto h = hashes_of(lines);
    check(h, some_values(rng, h), "file " + std::to_string(file));
  }
}

TEST(TextWitnessSearch, ValuesSharedAcrossRadiiResolveAsTheWholeFileSays) {
  // A file long enough that 24-bit values collide across lines and radii: a witness also held
  // by other lines at other radii (the case pass 1 cannot settle alone), a fold that is also
  // some line's radius value, a value held only at radii that settle nothing. Runs of
  // repeated lines and blocks make lines whose smaller radii are shared, so candidates are
  // settled at every radius, not only the smallest.
  std::mt19937_64 rng(2024);
  std::vector<std::string> lines;
  while (lines.size() < 60000) {
    const uint64_t kind = rng() % 4;
    const size_t run = 1 + rng() % 60;
    for (size_t k = 0; k < run; ++k) {
      if (kind == 0)
        lines.push_back("same");
      else if (kind == 1)
        lines.push_back("block " + std::to_string(k % 5));
      else
        lines.push_back("x" + std::to_string(rng() % (kind == 2 ? 7 : 1000000)));
    }
  }
  const auto h = hashes_of(lines);
  const auto all = text::all_witnesses(h);
  // Every (line, radius) holding each value, to pick values held elsewhere too.
  std::unordered_map<uint32_t, std::vector<uint64_t>> holders;
  for (size_t i = 0; i < h.size(); ++i)
    for (uint32_t v : values_of(h, i)) holders[v].push_back(i);
  std::vector<uint32_t> shared, folded, loose;
  for (size_t i = 0; i < all.size(); ++i) {
    auto it = holders.find(all[i]);
    const auto v = values_of(h, i);
    const bool fold = std::find(v.begin(), v.end(), all[i]) == v.end();
    if (fold && folded.size() < 6) folded.push_back(all[i]);
    if (it != holders.end() &&
        std::any_of(it->second.begin(), it->second.end(), [&](uint64_t j) { return j != i; }) &&
        shared.size() < 24 && rng() % 8 == 0)
      shared.push_back(all[i]);
  }
  std::set<uint32_t> witnesses(all.begin(), all.end());
  for (const auto& [v, at] : holders)
    if (!witnesses.count(v) && loose.size() < 4) loose.push_back(v);
  ASSERT_GE(shared.size(), 12u);  // the file is long enough to hold the hostile case
  ASSERT_GE(folded.size(), 3u);
  std::vector<uint32_t> wanted = shared;
  wanted.insert(wanted.end(), folded.begin(), folded.end());
  wanted.insert(wanted.end(), loose.begin(), loose.end());
  {
    // The hostile case is really there: pass 1 alone leaves some of them open.
    text::WitnessSearch s(wanted, 5);
    for (size_t i = 0; i < h.size(); ++i) s.add(h[i], 10 * i);
    s.end_first(10 * h.size());
    EXPECT_GE(std::count_if(wanted.begin(), wanted.end(), [&](uint32_t v) { return !s.known(v); }),
              6);
  }
  max_passes = 0;
  check(h, wanted, "collisions");
  // Some candidate's two smallest radii were shared: a second counting pass settled it.
  EXPECT_EQ(max_passes, 2);
  // One value at a time too: each search's candidates are then only its own.
  for (size_t k = 0; k < wanted.size(); k += 5)
    check(h, {wanted[k]}, "collision " + std::to_string(k));
}

TEST(TextWitnessSearch, TheLikelyLineIsTheOneAReaderNamed) {
  // In an ordinary file the line a witness names is found in pass 1 already, and known to be
  // the only one (edit's second pass then only writes).
  std::vector<std::string> lines;
  for (int i = 0; i < 5000; ++i) lines.push_back("line " + std::to_string(i));
  const auto h = hashes_of(lines);
  const auto all = text::all_witnesses(h);
  std::vector<uint32_t> wanted;
  for (size_t i = 0; i < all.size(); i += 97) wanted.push_back(all[i]);
  const auto s = searched(h, wanted);
  for (size_t i = 0; i < all.size(); i += 97) {
    EXPECT_EQ(s.likely(all[i]), i);
    EXPECT_EQ(s.known(all[i]), std::vector<uint64_t>{i});
    EXPECT_EQ(s.hits(all[i]), std::vector<uint64_t>{i});
  }
}

TEST(TextWitnessSearch, ALargeFilesOtherHoldersAreRuledOutInPassOne) {
  // In a large file a reader's witness is often also some other line's value at a larger
  // radius, or its fold (24-bit values, a dozen a line). Such a line is named by it only if its
  // values at the smaller radii are all shared; pass 1 counts the smallest for every line, so
  // the value is known after pass 1 alone unless a line holds it past the next radius whose
  // value at the smallest is shared.
  std::vector<std::string> lines;
  for (int i = 0; i < 400000; ++i) lines.push_back("line " + std::to_string(i) + " of a long file");
  const auto h = hashes_of(lines);
  const auto all = text::all_witnesses(h);
  std::vector<uint32_t> wanted;
  for (size_t i = 0; i < all.size(); i += 1999) wanted.push_back(all[i]);
  const std::set<uint32_t> want_set(wanted.begin(), wanted.end());
  // Every line's values (and fold) by hand; how many lines hold each smallest value.
  std::unordered_map<uint32_t, int> smallest;
  // wanted value -> (line, radius index; kRadii for the fold)
  constexpr size_t kRadii = kMaxRadius - kMinRadius + 1;
  std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, size_t>>> holders;
  for (size_t i = 0; i < h.size(); ++i) {
    const auto v = values_of(h, i);
    ++smallest[v[0]];
    for (size_t k = 0; k < v.size(); ++k)
      if (want_set.count(v[k])) holders[v[k]].push_back({i, k});
    uint64_t w = text::witness_mix(h[i], 0, 0, 0);
    for (int r = 1; r <= kMaxRadius; ++r)
      w = text::witness_mix(w, i >= static_cast<size_t>(r) ? h[i - r] : text::kWitnessEdge,
                            i + r < h.size() ? h[i + r] : text::kWitnessEdge, r);
    const auto fold = static_cast<uint32_t>(text::witness_mix(w, i, 0, -1) & 0xffffff);
    if (want_set.count(fold)) holders[fold].push_back({i, kRadii});
  }
  text::WitnessSearch s(wanted, 5);
  for (size_t i = 0; i < h.size(); ++i) s.add(h[i], 10 * i);
  s.end_first(10 * h.size());
  size_t elsewhere = 0, open = 0;
  for (uint32_t v : want_set) {
    std::vector<uint64_t> named;
    for (size_t j = 0; j < all.size(); ++j)
      if (all[j] == v) named.push_back(j);
    // Held by lines it does not name; held where pass 1 cannot decide (past the second
    // radius, by a line whose value at the smallest is shared).
    bool others = false, undecided = false;
    for (auto [j, k] : holders[v]) {
      others = others || all[j] != v;
      undecided = undecided || (k >= 2 && smallest[values_of(h, j)[0]] > 1);
    }
    elsewhere += others;
    if (auto sure = s.known(v)) {
      EXPECT_EQ(*sure, named) << "value " << v;
    } else {
      ++open;
      EXPECT_TRUE(undecided) << "value " << v << " is not known after pass 1";
    }
  }
  EXPECT_GE(elsewhere, 20u);  // the case is really there
  EXPECT_LT(open * 4, elsewhere);  // before these counts every one of them stayed open
}

TEST(TextWitnessSearch, ALineThatMovedIsTheNearestGuess) {
  std::vector<std::string> lines;
  for (int i = 0; i < 40; ++i) lines.push_back("line " + std::to_string(i));
  const auto w = text::all_witnesses(hashes_of(lines));
  // A line inserted beyond line 20's window: its witness now names no line, and the guess is
  // line 21, where line 20 went.
  lines.insert(lines.begin() + 10, "inserted");
  const auto s = searched(hashes_of(lines), {w[20]});
  EXPECT_EQ(s.nearest(w[20]), 21);
}

TEST(TextWitnessSearch, ExtentsFollowTheStartsGiven) {
  const auto h = hashes_of({"a", "b", "c"});
  text::WitnessSearch s({text::all_witnesses(h)[1]}, 5);
  s.add(h[0], 3);  // after a BOM
  s.add(h[1], 5);
  s.add(h[2], 9);
  s.end_first(12);
  ASSERT_TRUE(s.settle());
  EXPECT_EQ(s.extent(0), std::make_pair(uint64_t{3}, uint64_t{5}));
  EXPECT_EQ(s.extent(1), std::make_pair(uint64_t{5}, uint64_t{9}));
  EXPECT_EQ(s.extent(2), std::make_pair(uint64_t{9}, uint64_t{12}));
}

}  // namespace
