// text_witness_test.cpp — the witness definition (witness.h) against a reference written
// straight from it, the streaming WitnessFinder against all_witnesses, and the properties
// the tools rely on: unique, stable far away, sensitive nearby, blind to trailing whitespace.

#include <gtest/gtest.h>
#include <xxhash.h>  // the library's XXH3, to check the definition independently

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "text/witness.h"

namespace {

using text::kMaxRadius;
using text::kMinRadius;

constexpr uint64_t kEdge = 0x7461636b65646765;  // "tackedge", as witness.h documents

std::vector<uint64_t> hashes_of(const std::vector<std::string>& lines) {
  std::vector<uint64_t> out;
  for (const auto& l : lines) out.push_back(text::line_hash(l));
  return out;
}

// The reference: each line's chain w_0..w_R computed on its own from the definition, the
// counts with a std::map. Deliberately unlike all_witnesses (which sweeps radius by radius
// and counts by sorting or bitsets). `radius` receives the settling radius, or -1 for a fold.
std::vector<uint32_t> reference(const std::vector<uint64_t>& h, std::vector<int>* radius) {
  const size_t n = h.size();
  auto at = [&](int64_t p) {
    return p < 0 || p >= static_cast<int64_t>(n) ? kEdge : h[static_cast<size_t>(p)];
  };
  std::vector<std::vector<uint64_t>> w(kMaxRadius + 1, std::vector<uint64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    auto ii = static_cast<int64_t>(i);
    uint64_t acc = text::witness_mix(h[i], 0, 0, 0);
    w[0][i] = acc;
    for (int r = 1; r <= kMaxRadius; ++r) {
      acc = text::witness_mix(acc, at(ii - r), at(ii + r), r);
      w[static_cast<size_t>(r)][i] = acc;
    }
  }
  std::vector<uint32_t> out(n);
  if (radius) radius->assign(n, -1);
  std::vector<std::map<uint32_t, int>> counts(kMaxRadius + 1);
  for (int r = kMinRadius; r <= kMaxRadius; ++r)
    for (size_t i = 0; i < n; ++i) ++counts[static_cast<size_t>(r)][w[r][i] & 0xffffff];
  for (size_t i = 0; i < n; ++i) {
    bool settled = false;
    for (int r = kMinRadius; r <= kMaxRadius && !settled; ++r) {
      auto v = static_cast<uint32_t>(w[static_cast<size_t>(r)][i] & 0xffffff);
      if (counts[static_cast<size_t>(r)][v] == 1) {
        out[i] = v;
        if (radius) (*radius)[i] = r;
        settled = true;
      }
    }
    if (!settled) out[i] = text::witness_mix(w[kMaxRadius][i], i, 0, -1) & 0xffffff;
  }
  return out;
}

// Runs both passes of a WitnessFinder over h for `chosen`; the results in chosen's order.
std::vector<uint32_t> streamed(const std::vector<uint64_t>& h, std::vector<uint64_t> chosen) {
  text::WitnessFinder finder(chosen);
  for (size_t i = 0; i < h.size(); ++i) finder.add_context(i, h[i]);
  finder.begin_count(h.size());
  for (uint64_t x : h) finder.count(x);
  std::vector<uint32_t> out;
  for (uint64_t c : chosen) out.push_back(finder.result(c));
  return out;
}

// value_r of line i for one radius, by hand from the definition.
uint32_t value_at(const std::vector<uint64_t>& h, size_t i, int radius) {
  auto at = [&](int64_t p) {
    return p < 0 || p >= static_cast<int64_t>(h.size()) ? kEdge : h[static_cast<size_t>(p)];
  };
  uint64_t w = text::witness_mix(h[i], 0, 0, 0);
  for (int r = 1; r <= radius; ++r)
    w = text::witness_mix(w, at(static_cast<int64_t>(i) - r), at(static_cast<int64_t>(i) + r), r);
  return static_cast<uint32_t>(w & 0xffffff);
}

std::vector<std::string> numbered(size_t n, const std::string& stem = "line ") {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(stem + std::to_string(i));
  return out;
}

// A random file in one of several shapes, so that lines settle at every radius and some fold.
std::vector<uint64_t> random_file(std::mt19937_64& rng, size_t n) {
  static const size_t kAlphabets[] = {1, 2, 3, 5, 20, 1000};
  size_t alphabet = kAlphabets[rng() % std::size(kAlphabets)];
  std::vector<std::string> lines;
  if (rng() % 3 == 0) {
    // A block repeated, now and then mutated: interior lines fold, mutations settle nearby.
    size_t period = 1 + rng() % 12;
    for (size_t i = 0; i < n; ++i) {
      bool mutate = rng() % 200 == 0;
      lines.push_back(mutate ? "m" + std::to_string(rng() % 4) : "b" + std::to_string(i % period));
    }
  } else {
    for (size_t i = 0; i < n; ++i) lines.push_back("x" + std::to_string(rng() % alphabet));
  }
  return hashes_of(lines);
}

std::vector<uint64_t> random_chosen(std::mt19937_64& rng, size_t n) {
  std::set<uint64_t> chosen;
  if (n == 0) return {};
  chosen.insert(0);
  chosen.insert(n - 1);
  size_t extra = rng() % 40;
  for (size_t j = 0; j < extra; ++j) chosen.insert(rng() % n);
  if (n > 40 && rng() % 2) {  // a run of adjacent lines, whose windows overlap
    uint64_t from = rng() % (n - 40);
    for (uint64_t i = from; i < from + 40; ++i) chosen.insert(i);
  }
  return {chosen.begin(), chosen.end()};
}

TEST(TextWitness, LineHashIsXxh3OfTheLineWithoutTrailingWhitespace) {
  EXPECT_EQ(text::line_hash("abc"), XXH3_64bits("abc", 3));
  EXPECT_EQ(text::line_hash(""), XXH3_64bits("", 0));
  EXPECT_EQ(text::line_hash("abc \t\r\v\f"), text::line_hash("abc"));
  EXPECT_EQ(text::line_hash(" \t\r"), text::line_hash(""));
  EXPECT_EQ(text::line_hash(std::string_view()), text::line_hash(""));
  // Only trailing whitespace goes: leading and inner whitespace, and '\n', are content.
  EXPECT_NE(text::line_hash(" abc"), text::line_hash("abc"));
  EXPECT_NE(text::line_hash("a bc"), text::line_hash("abc"));
  EXPECT_NE(text::line_hash("abc\n"), text::line_hash("abc"));
  EXPECT_NE(text::line_hash(std::string("abc\0", 4)), text::line_hash("abc"));
}

TEST(TextWitness, MixIsXxh3OfFourLittleEndianWords) {
  auto by_hand = [](uint64_t a, uint64_t b, uint64_t c, int64_t d) {
    unsigned char bytes[32];
    uint64_t words[4] = {a, b, c, static_cast<uint64_t>(d)};
    for (int w = 0; w < 4; ++w)
      for (int k = 0; k < 8; ++k)
        bytes[w * 8 + k] = static_cast<unsigned char>(words[w] >> (8 * k));
    return XXH3_64bits(bytes, 32);
  };
  EXPECT_EQ(text::witness_mix(0, 0, 0, 0), by_hand(0, 0, 0, 0));
  EXPECT_EQ(text::witness_mix(1, 2, 3, 4), by_hand(1, 2, 3, 4));
  EXPECT_EQ(text::witness_mix(~0ull, kEdge, 7, -1), by_hand(~0ull, kEdge, 7, -1));
  // Each argument matters, in its place.
  EXPECT_NE(text::witness_mix(1, 2, 3, 4), text::witness_mix(1, 3, 2, 4));
  EXPECT_NE(text::witness_mix(1, 2, 3, 4), text::witness_mix(1, 2, 3, 5));
  EXPECT_NE(text::witness_mix(1, 2, 3, 4), text::witness_mix(2, 2, 3, 4));
}

TEST(TextWitness, OneLineFileSettlesAtMinRadiusWithEdgeNeighbours) {
  // Pins kEdge and the chain: a lone line is unique at kMinRadius, all its neighbours kEdge.
  uint64_t h = text::line_hash("only");
  uint64_t w = text::witness_mix(h, 0, 0, 0);
  for (int r = 1; r <= kMinRadius; ++r) w = text::witness_mix(w, kEdge, kEdge, r);
  auto got = text::all_witnesses(std::vector<uint64_t>{h});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], w & 0xffffff);
  EXPECT_TRUE(text::all_witnesses({}).empty());
}

TEST(TextWitness, AllWitnessesMatchesTheReferenceOnRandomFiles) {
  std::mt19937_64 rng(20240601);
  std::map<int, size_t> by_radius;  // how lines settled, over all files
  for (int file = 0; file < 200; ++file) {
    size_t n = file < 40 ? static_cast<size_t>(file) : rng() % 3001;
    auto h = random_file(rng, n);
    std::vector<int> radius;
    auto want = reference(h, &radius);
    ASSERT_EQ(text::all_witnesses(h), want) << "file " << file << ", " << n << " lines";
    for (int r : radius) ++by_radius[r];
  }
  // The files reached every kind of outcome, so the comparison covered them all.
  EXPECT_GT(by_radius[-1], 1000u);  // index folds
  EXPECT_GT(by_radius[kMinRadius], 1000u);
  EXPECT_GT(by_radius[kMinRadius + 3], 10u);
  EXPECT_GT(by_radius[kMaxRadius], 0u);
}

TEST(TextWitness, AllWitnessesMatchesTheReferenceOnLargerFiles) {
  // Past a few thousand lines all_witnesses counts with bitsets instead of sorting.
  std::mt19937_64 rng(7);
  for (size_t n : {8192u, 8193u, 30000u}) {
    auto h = random_file(rng, n);
    EXPECT_EQ(text::all_witnesses(h), reference(h, nullptr)) << n << " lines";
  }
  std::vector<std::string> lines;
  for (size_t i = 0; i < 30000; ++i) lines.push_back("y" + std::to_string(rng() % 3));
  auto h = hashes_of(lines);
  EXPECT_EQ(text::all_witnesses(h), reference(h, nullptr));
}

TEST(TextWitness, FinderMatchesAllWitnessesOnRandomFiles) {
  std::mt19937_64 rng(99);
  for (int file = 0; file < 300; ++file) {
    size_t n = file < 40 ? static_cast<size_t>(file) : rng() % 3001;
    auto h = random_file(rng, n);
    auto all = text::all_witnesses(h);
    auto chosen = random_chosen(rng, n);
    auto got = streamed(h, chosen);
    for (size_t j = 0; j < chosen.size(); ++j)
      ASSERT_EQ(got[j], all[chosen[j]])
          << "file " << file << ", " << n << " lines, line " << chosen[j];
  }
}

TEST(TextWitness, FinderMatchesAllWitnessesForEveryLine) {
  // Every line chosen: every window overlaps its neighbours', every edge case is a target.
  std::mt19937_64 rng(5);
  for (size_t n : {1u, 2u, 16u, 17u, 33u, 34u, 500u}) {
    auto h = random_file(rng, n);
    std::vector<uint64_t> chosen(n);
    for (size_t i = 0; i < n; ++i) chosen[i] = i;
    EXPECT_EQ(streamed(h, chosen), text::all_witnesses(h)) << n << " lines";
  }
}

TEST(TextWitness, FinderTakesChosenLinesUnsortedAndRepeated) {
  auto h = hashes_of(numbered(100));
  auto all = text::all_witnesses(h);
  text::WitnessFinder finder({50, 3, 50, 99});
  for (size_t i = 0; i < h.size(); ++i) finder.add_context(i, h[i]);
  finder.begin_count(h.size());
  for (uint64_t x : h) finder.count(x);
  finder.count(12345);  // past total_lines: ignored
  EXPECT_EQ(finder.result(3), all[3]);
  EXPECT_EQ(finder.result(50), all[50]);
  EXPECT_EQ(finder.result(99), all[99]);
}

TEST(TextWitness, FinderIsNotReadyBeforeTheLastLine) {
  // Until the last count() a chosen line's window count is incomplete; the last one settles
  // the tail lines on its own (no finaliser to forget).
  auto lines = numbered(40);
  auto h = hashes_of(lines);
  auto all = text::all_witnesses(h);
  text::WitnessFinder finder({39});
  for (size_t i = 0; i < h.size(); ++i) finder.add_context(i, h[i]);
  finder.begin_count(h.size());
  for (size_t i = 0; i + 1 < h.size(); ++i) finder.count(h[i]);
  EXPECT_NE(finder.result(39), all[39]);  // its own window not yet counted: a fold
  finder.count(h.back());
  EXPECT_EQ(finder.result(39), all[39]);
}

TEST(TextWitness, UniqueAcrossIdenticalLines) {
  // 2000 identical lines: the first and last kMaxRadius lines settle by their distance from
  // the edge; the 1968 between have identical windows and fall back to the index fold. The
  // fold is a 24-bit hash of the index, so distinctness is a property of these values, not a
  // guarantee (about 11% odds of a clash among 1968 values); for this file it holds.
  std::vector<std::string> lines(2000, "same");
  std::vector<int> radius;
  auto w = text::all_witnesses(hashes_of(lines));
  ASSERT_EQ(w, reference(hashes_of(lines), &radius));
  EXPECT_EQ(std::set<uint32_t>(w.begin(), w.end()).size(), w.size());
  EXPECT_EQ(std::count(radius.begin(), radius.end(), -1), 2000 - 2 * kMaxRadius);
  EXPECT_EQ(radius[0], kMinRadius);
  EXPECT_EQ(radius[kMaxRadius - 1], kMaxRadius);
  EXPECT_EQ(radius[kMaxRadius], -1);
}

TEST(TextWitness, UniqueAcrossRepeatedBlocks) {
  // Blocks of 7 lines repeated 300 times: windows repeat with period 7, so interior lines fold.
  std::vector<std::string> lines;
  for (int b = 0; b < 300; ++b)
    for (int k = 0; k < 7; ++k) lines.push_back("block line " + std::to_string(k));
  std::vector<int> radius;
  auto w = text::all_witnesses(hashes_of(lines));
  ASSERT_EQ(w, reference(hashes_of(lines), &radius));
  EXPECT_EQ(std::set<uint32_t>(w.begin(), w.end()).size(), w.size());
  EXPECT_GT(std::count(radius.begin(), radius.end(), -1), 2000);
}

TEST(TextWitness, SettledValuesAreUniqueAtTheirRadius) {
  // What the definition guarantees for any file: a line settled at radius r holds a value no
  // other line holds at r (so a witness found at a known radius names one line).
  std::mt19937_64 rng(11);
  auto h = random_file(rng, 3000);
  std::vector<int> radius;
  auto w = text::all_witnesses(h);
  ASSERT_EQ(w, reference(h, &radius));
  std::map<int, std::multiset<uint32_t>> values;  // every line's value_r, by hand
  for (int r = kMinRadius; r <= kMaxRadius; ++r)
    for (size_t j = 0; j < h.size(); ++j) values[r].insert(value_at(h, j, r));
  size_t settled = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    if (radius[i] < 0) continue;
    ++settled;
    ASSERT_EQ(w[i], value_at(h, i, radius[i])) << i;
    ASSERT_EQ(values[radius[i]].count(w[i]), 1u) << i;
  }
  EXPECT_GT(settled, 0u);
}

TEST(TextWitness, StableWhenAFarLineChanges) {
  auto lines = numbered(200);
  auto h = hashes_of(lines);
  const size_t target = 100;
  auto before = text::all_witnesses(h);
  // Unique lines settle at kMinRadius: the witness is that window's value and nothing more.
  ASSERT_EQ(before[target], value_at(h, target, kMinRadius));

  for (size_t far : {target - kMaxRadius - 1, target + kMaxRadius + 1, size_t{0}, size_t{199}}) {
    auto changed = lines;
    changed[far] = "something else entirely";
    auto after = text::all_witnesses(hashes_of(changed));
    EXPECT_EQ(after[target], before[target]) << "changed line " << far;
    EXPECT_NE(after[far], before[far]);  // the change itself is seen
  }
  // Lines inserted or deleted far above move the line but keep its witness.
  auto shifted = lines;
  shifted.insert(shifted.begin(), {"new first", "new second", "new third"});
  EXPECT_EQ(text::all_witnesses(hashes_of(shifted))[target + 3], before[target]);
  auto shrunk = lines;
  shrunk.erase(shrunk.begin(), shrunk.begin() + 10);
  EXPECT_EQ(text::all_witnesses(hashes_of(shrunk))[target - 10], before[target]);
}

TEST(TextWitness, DifferentWhenANearLineChanges) {
  auto lines = numbered(200);
  const size_t target = 100;
  auto before = text::all_witnesses(hashes_of(lines))[target];
  for (size_t near = target - kMinRadius; near <= target + kMinRadius; ++near) {
    auto changed = lines;
    changed[near] += " changed";
    EXPECT_NE(text::all_witnesses(hashes_of(changed))[target], before) << "changed " << near;
  }
  // Swapping two neighbours changes it too: the offset of each line in the window counts.
  auto swapped = lines;
  std::swap(swapped[target - 1], swapped[target + 1]);
  EXPECT_NE(text::all_witnesses(hashes_of(swapped))[target], before);
  // So does moving the line next to the file's edge: the edge is part of the window.
  auto at_top = std::vector<std::string>(lines.begin() + 97, lines.end());
  EXPECT_NE(text::all_witnesses(hashes_of(at_top))[3], before);
}

TEST(TextWitness, TrailingWhitespaceDoesNotChangeWitnesses) {
  auto lines = numbered(300);
  for (size_t i = 0; i < lines.size(); i += 3) lines[i] = "repeated";  // some wider windows
  auto plain = text::all_witnesses(hashes_of(lines));
  auto padded = lines;
  static const char* kTails[] = {" ", "\t", "\r", "  \t \r", "\v\f", " \r"};
  for (size_t i = 0; i < padded.size(); ++i) padded[i] += kTails[i % std::size(kTails)];
  EXPECT_EQ(text::all_witnesses(hashes_of(padded)), plain);
  auto indented = lines;
  indented[150] = " " + indented[150];
  EXPECT_NE(text::all_witnesses(hashes_of(indented))[150], plain[150]);
}

TEST(TextWitness, TextRoundTrips) {
  EXPECT_EQ(text::witness_text(0), "h000000");
  EXPECT_EQ(text::witness_text(0xabcdef), "habcdef");
  EXPECT_EQ(text::witness_text(0x0f1e2d), "h0f1e2d");
  std::mt19937 rng(3);
  for (int k = 0; k < 1000; ++k) {
    uint32_t v = rng() & 0xffffff;
    uint32_t back = ~v;
    ASSERT_TRUE(text::parse_witness(text::witness_text(v), back)) << v;
    ASSERT_EQ(back, v);
  }
  uint32_t v = 0;
  ASSERT_TRUE(text::parse_witness("hffffff", v));
  EXPECT_EQ(v, 0xffffffu);
}

TEST(TextWitness, ParseRejectsAnythingElse) {
  for (std::string_view bad :
       {"h12345", "h1234567", "H123456", "h12345g", "", "h", "123456", "hABCDEF", "h 12345",
        "h12345 ", " h12345", "x123456", "h-12345", "h12345\n"}) {
    uint32_t v = 42;
    EXPECT_FALSE(text::parse_witness(bad, v)) << "'" << bad << "'";
    EXPECT_EQ(v, 42u) << "'" << bad << "'";
  }
}

TEST(TextWitness, LargeFileCompletes) {
  // 200,000 lines, with repeats, through all_witnesses; a few lines checked by the streamer.
  std::vector<std::string> lines;
  for (size_t i = 0; i < 200000; ++i)
    lines.push_back(i % 5 == 0 ? "}" : "statement " + std::to_string(i % 9000));
  auto h = hashes_of(lines);
  auto w = text::all_witnesses(h);
  ASSERT_EQ(w.size(), h.size());
  std::vector<uint64_t> chosen = {0, 1, 77777, 123456, 199999};
  auto got = streamed(h, chosen);
  for (size_t j = 0; j < chosen.size(); ++j) EXPECT_EQ(got[j], w[chosen[j]]) << chosen[j];
}

}  // namespace
