// mem_big_alloc_test.cpp — large buffers in huge-page-aligned mappings, small ones from malloc,
// and the byte buffer and vector grown in them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "mem/big_alloc.h"

namespace {

TEST(MemBigAlloc, LargeBuffersAreHugePageAlignedAndKeepTheirBytesAsTheyGrow) {
  const size_t n = 3 << 20;
  auto* p = static_cast<char*>(mem::big_alloc(n));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2 << 20), 0u);
  p[0] = 1;
  p[n - 1] = 2;
  mem::big_free(p, n);
  void* small = mem::big_alloc(100);
  ASSERT_NE(small, nullptr);
  mem::big_free(small, 100);

  mem::Bytes b;
  std::string want;
  for (int i = 0; i < 20000; ++i) {
    std::string piece = std::to_string(i) + ",";
    ASSERT_TRUE(b.append(piece));
    want += piece;
  }
  EXPECT_TRUE(b.view() == want);
  mem::Bytes moved = std::move(b);
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(moved.view() == want);

  mem::BigVector<uint32_t> v(1 << 20, 7);
  EXPECT_EQ(v[12345], 7u);
}

}  // namespace
