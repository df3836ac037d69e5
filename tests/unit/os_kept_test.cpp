// os_kept_test.cpp — what run keeps of a stream, checked as UTF-8 and escaped as it arrives
// (os/kept), against the serializer's own scalar check and escape (contract::valid_utf8,
// JsonWriter) over the same bytes whole: hostile bytes at every position, every split of them
// across reads, random bytes in random pieces, the cap, and escapes past the slack.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "contract/json.h"
#include "os/kept.h"

namespace {

std::string B(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s += static_cast<char>(b);
  return s;
}

// The escape as the writer does it (its loop over valid UTF-8).
std::string by_writer(std::string_view v) {
  std::string out;
  contract::JsonWriter(out).string(v);
  return out.substr(1, out.size() - 2);
}

// Feeds `s` in pieces of the sizes given (cycled; the rest in one), as reads into room() do.
void feed(os::Kept& k, std::string_view s, const std::vector<size_t>& pieces) {
  size_t at = 0;
  for (size_t i = 0; at < s.size(); ++i) {
    size_t want = pieces.empty() ? s.size() - at : std::max<size_t>(1, pieces[i % pieces.size()]);
    want = std::min(want, s.size() - at);
    std::span<char> r = k.room(want);
    if (r.empty()) return;  // the cap
    std::memcpy(r.data(), s.data() + at, r.size());
    k.commit(r.size());
    at += r.size();
  }
}

// Kept agrees with the scalar check and escape over the bytes it kept.
::testing::AssertionResult agrees(std::string_view s, const std::vector<size_t>& pieces,
                                  uint64_t cap = 1 << 20) {
  os::Kept k(cap);
  feed(k, s, pieces);
  k.seal();
  std::string kept(s.substr(0, std::min<uint64_t>(cap, s.size())));
  bool utf8 = contract::valid_utf8(kept);
  if (k.size() != kept.size()) return ::testing::AssertionFailure() << "size " << k.size();
  if (k.utf8() != utf8) return ::testing::AssertionFailure() << "utf8 " << k.utf8();
  if (k.copy() != kept) return ::testing::AssertionFailure() << "copy differs";
  if (!utf8 && k.escaped()) return ::testing::AssertionFailure() << "escaped but not UTF-8";
  if (k.escaped() && k.stored() != by_writer(kept))
    return ::testing::AssertionFailure() << "escape differs";
  if (!k.escaped() && k.stored() != kept) return ::testing::AssertionFailure() << "bytes differ";
  return ::testing::AssertionSuccess();
}

TEST(OsKept, HoldsWhatItWasGiven) {
  os::Kept k(8);
  EXPECT_EQ(k.stored(), "");
  EXPECT_TRUE(k.add("abc", 3));
  EXPECT_TRUE(k.add("defgh", 5));
  EXPECT_FALSE(k.add("i", 1));  // the cap
  k.seal();
  EXPECT_EQ(k.copy(), "abcdefgh");
  EXPECT_TRUE(k.utf8());
  EXPECT_TRUE(k.escaped());
  EXPECT_EQ(k.stored(), "abcdefgh");
}

TEST(OsKept, EscapesAsItArrives) {
  os::Kept k(100);
  EXPECT_TRUE(k.add("a\"b", 3));
  EXPECT_TRUE(k.add("\n\x01", 2));
  k.seal();
  EXPECT_TRUE(k.escaped());
  EXPECT_EQ(k.stored(), "a\\\"b\\n\\u0001");
  EXPECT_EQ(k.copy(), "a\"b\n\x01");
  EXPECT_EQ(k.size(), 5u);
}

TEST(OsKept, NothingKeptIsEmptyText) {
  os::Kept none(0);
  EXPECT_TRUE(none.room(10).empty());
  none.seal();
  EXPECT_TRUE(none.utf8());
  EXPECT_EQ(none.stored(), "");
  EXPECT_TRUE(agrees("", {}));
}

// Each hostile sequence, at every position of a text, split at every point.
TEST(OsKept, HostileBytesAtEveryPositionAndEverySplit) {
  const std::string hostile[] = {
      B({0x80}),                    // a lone continuation byte
      B({0xC0, 0x80}),              // overlong NUL
      B({0xC1, 0xBF}),              // overlong
      B({0xE0, 0x80, 0xAF}),        // overlong '/'
      B({0xE0, 0x9F, 0xBF}),        // overlong U+07FF
      B({0xF0, 0x8F, 0xBF, 0xBF}),  // overlong U+FFFF
      B({0xED, 0xA0, 0x80}),        // a surrogate
      B({0xED, 0xBF, 0xBF}),        // a surrogate
      B({0xF4, 0x90, 0x80, 0x80}),  // past U+10FFFF
      B({0xF5, 0x80, 0x80, 0x80}),  // no such lead byte
      B({0xFF}),
      B({0xE2, 0x82}),              // cut short
      B({0xF0, 0x9F, 0x98}),        // cut short
      B({0xC3}),                    // cut short
      B({0xE2, 0x82, 0xAC}),        // valid: €
      B({0xF0, 0x9F, 0x98, 0x80}),  // valid: an emoji
      B({0xED, 0x9F, 0xBF}),        // valid: just below the surrogates
      B({0xF4, 0x8F, 0xBF, 0xBF}),  // valid: U+10FFFF
      std::string(1, '\0'),
      "\"\\\n\x1f",
  };
  for (const std::string& h : hostile)
    for (size_t len = 0; len <= 40; len += 5)
      for (size_t at = 0; at <= len; ++at) {
        std::string s(len, 'a');
        s.insert(at, h);
        for (size_t split = 1; split <= s.size(); ++split)
          EXPECT_TRUE(agrees(s, {split})) << len << " " << at << " " << split;
        EXPECT_TRUE(agrees(s, {1}));
        EXPECT_TRUE(agrees(s, {}));
      }
}

TEST(OsKept, EveryControlByteAndNul) {
  std::string all;
  for (int c = 0; c < 0x20; ++c) all += "x" + std::string(1, static_cast<char>(c));
  for (size_t split : {1, 2, 3, 7, 32, 1000}) EXPECT_TRUE(agrees(all, {split}));
}

// A multi-byte sequence cut by a read at each of its bytes, among long ASCII runs.
TEST(OsKept, SequencesSplitAcrossReads) {
  for (std::string seq : {B({0xC3, 0xA9}), B({0xE2, 0x82, 0xAC}), B({0xF0, 0x9F, 0x98, 0x80})})
    for (size_t at : {0, 31, 32, 33, 63, 64, 100})
      for (size_t cut = 0; cut <= seq.size(); ++cut) {
        std::string s(at, 'z');
        s += seq + "tail\n" + seq;
        EXPECT_TRUE(agrees(s, {at + cut, 1, s.size()}));
        EXPECT_TRUE(agrees(s, {at + cut}));
      }
}

// The cap cuts a sequence: what is kept is not UTF-8, and it is the program's bytes.
TEST(OsKept, TheCapCutsASequence) {
  std::string s = "ab" + B({0xE2, 0x82, 0xAC}) + "cd";
  for (uint64_t cap = 0; cap <= s.size() + 1; ++cap)
    for (size_t split : {1, 2, 3, 100}) EXPECT_TRUE(agrees(s, {split}, cap)) << cap;
}

// Escapes past the slack (a sixteenth of the cap and 64 KiB) turn the memory back into the
// program's bytes, still UTF-8; a bad byte after that is found too.
TEST(OsKept, EscapesPastTheSlack) {
  std::string controls(40 * 1024, '\x01');  // 200 KiB of escapes
  std::string s = "start é " + controls + " end";
  os::Kept k(1 << 20);
  feed(k, s, {4096});
  k.seal();
  EXPECT_FALSE(k.escaped());
  EXPECT_TRUE(k.utf8());
  EXPECT_EQ(k.stored(), s);
  EXPECT_TRUE(agrees(s, {4096}));
  EXPECT_TRUE(agrees(s, {}));
  EXPECT_TRUE(agrees(s + B({0xFF}) + "x", {4096}));
  EXPECT_TRUE(agrees(s + B({0xE2, 0x82}), {4096}));
  EXPECT_TRUE(agrees(s + B({0xE2}) + "é", {4096, 3}));
  // Within the slack, the same text stays escaped.
  os::Kept big(16u << 20);
  feed(big, s, {4096});
  big.seal();
  EXPECT_TRUE(big.escaped());
  EXPECT_EQ(big.stored(), by_writer(s));
}

// A bad byte after escaped text: the text before it comes back exactly.
TEST(OsKept, InvalidAfterEscapes) {
  std::string s;
  for (int i = 0; i < 3000; ++i) s += "line \"" + std::to_string(i) + "\"\t\\ é\n";
  for (size_t bad : {size_t{0}, s.size() / 2, s.size()}) {
    std::string t = s;
    t.insert(bad, B({0xC0, 0xAF}));
    EXPECT_TRUE(agrees(t, {65536}));
    EXPECT_TRUE(agrees(t, {777, 1, 4096}));
  }
}

TEST(OsKept, RandomBytesInRandomPieces) {
  std::mt19937 rng(31);
  const std::string alphabet[] = {"a",
                                  "b",
                                  " ",
                                  "\n",
                                  "\"",
                                  "\\",
                                  "\t",
                                  std::string(1, '\0'),
                                  "\x01",
                                  "\x1f",
                                  "\x7f",
                                  B({0xC3, 0xA9}),
                                  B({0xE2, 0x82, 0xAC}),
                                  B({0xF0, 0x9F, 0x98, 0x80}),
                                  B({0x80}),
                                  B({0xC3}),
                                  B({0xED, 0xA0, 0x80}),
                                  B({0xF4, 0x90, 0x80, 0x80})};
  for (int round = 0; round < 3000; ++round) {
    std::string s;
    // Mostly clean text, so that a bad byte late in a long text is met too.
    bool clean = rng() % 2 == 0;
    for (int n = rng() % 400; n > 0; --n) {
      size_t pick = rng() % std::size(alphabet);
      if (clean && pick >= 14) pick = 0;
      s += alphabet[pick];
    }
    if (clean && rng() % 3 == 0) s.insert(rng() % (s.size() + 1), alphabet[14 + rng() % 4]);
    std::vector<size_t> pieces;
    for (int n = 1 + rng() % 4; n > 0; --n) pieces.push_back(1 + rng() % 70);
    uint64_t cap = rng() % 4 == 0 ? rng() % (s.size() + 1) : 1 << 20;
    EXPECT_TRUE(agrees(s, pieces, cap)) << round;
  }
}

}  // namespace
