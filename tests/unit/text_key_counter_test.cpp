// text_key_counter_test.cpp — the key table: a key found again is the same entry, entries keep
// insertion order and their bytes across growth, long keys and empty keys are held whole.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "text/key_counter.h"

namespace {

using text::KeyCounter;

size_t find(KeyCounter& c, std::string_view key, bool grow = true) {
  return c.find(key, KeyCounter::hash(key), grow);
}

TEST(TextKeyCounter, AKeyFoundAgainIsTheSameEntry) {
  KeyCounter c;
  EXPECT_EQ(find(c, "b", false), KeyCounter::npos);
  EXPECT_EQ(c.size(), 0u);
  const size_t b = find(c, "b"), a = find(c, "a"), empty = find(c, "");
  EXPECT_EQ(b, 0u);
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(empty, 2u);
  EXPECT_EQ(c.at(a).count, 0u);  // a new key starts at 0: the caller counts
  c.at(a).count += 2;
  EXPECT_EQ(find(c, "a", false), a);
  EXPECT_EQ(find(c, "a"), a);
  EXPECT_EQ(c.at(a).count, 2u);
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(std::string_view(c.at(empty).key, c.at(empty).len), "");
}

TEST(TextKeyCounter, GrowthKeepsOrderAndBytes) {
  KeyCounter c;
  constexpr size_t kKeys = 100000;  // many rehashes and entry blocks
  for (size_t i = 0; i < kKeys; ++i) {
    const std::string key = "key-" + std::to_string(i);
    ASSERT_EQ(find(c, key), i);
    c.at(i).count = i;
  }
  EXPECT_EQ(c.size(), kKeys);
  for (size_t i = 0; i < kKeys; i += 997) {
    const std::string key = "key-" + std::to_string(i);
    EXPECT_EQ(find(c, key, false), i);
    EXPECT_EQ(std::string_view(c.at(i).key, c.at(i).len), key);
    EXPECT_EQ(c.at(i).count, i);
  }
  EXPECT_EQ(find(c, "key-" + std::to_string(kKeys), false), KeyCounter::npos);
}

TEST(TextKeyCounter, LongKeysAreHeldWhole) {
  KeyCounter c;
  const std::string big(1 << 20, 'x');         // past the arena's share: its own block
  const std::string near(64 * 1024 + 1, 'y');  // just past a quarter of a block
  const size_t i = find(c, big), j = find(c, near), k = find(c, big + "z");
  EXPECT_EQ(std::string_view(c.at(i).key, c.at(i).len), big);
  EXPECT_EQ(std::string_view(c.at(j).key, c.at(j).len), near);
  EXPECT_NE(i, k);
  EXPECT_EQ(find(c, big, false), i);
}

TEST(TextKeyCounter, PrefetchIsHarmlessForAnyKey) {
  KeyCounter c;
  find(c, "present");
  for (std::string_view key : {"present", "absent"})
    for (int stage = 0; stage < 3; ++stage) c.prefetch(KeyCounter::hash(key), stage);
  EXPECT_EQ(find(c, "present", false), 0u);
}

}  // namespace
