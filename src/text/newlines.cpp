// newlines.cpp — see newlines.h.
#include "text/newlines.h"

#include <immintrin.h>

#include "text/cpu.h"

namespace text {
namespace {

const bool kAvx2 = has_avx2();

__attribute__((target("avx2"))) uint32_t nl_mask_avx2(const char* p) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'))));
}

__attribute__((target("avx2"))) uint64_t count_avx2(const char* p, size_t n) {
  uint64_t total = 0;
  size_t i = 0;
  for (; i + 128 <= n; i += 128)
    total += static_cast<uint64_t>(__builtin_popcount(nl_mask_avx2(p + i))) +
             static_cast<uint64_t>(__builtin_popcount(nl_mask_avx2(p + i + 32))) +
             static_cast<uint64_t>(__builtin_popcount(nl_mask_avx2(p + i + 64))) +
             static_cast<uint64_t>(__builtin_popcount(nl_mask_avx2(p + i + 96)));
  for (; i + 32 <= n; i += 32)
    total += static_cast<uint64_t>(__builtin_popcount(nl_mask_avx2(p + i)));
  for (; i < n; ++i) total += p[i] == '\n';
  return total;
}

uint64_t count_sse2(const char* p, size_t n) {
  const __m128i nl = _mm_set1_epi8('\n');
  uint64_t total = 0;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    total += static_cast<uint64_t>(
        __builtin_popcount(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)))));
  }
  for (; i < n; ++i) total += p[i] == '\n';
  return total;
}

// A '\n' at i counts when p[i - 1] is '\r': the block at i compared with the block at i - 1.
__attribute__((target("avx2"))) uint64_t crlf_avx2(const char* p, size_t n) {
  const __m256i nl = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r');
  uint64_t total = 0;
  size_t i = 1;
  for (; i + 32 <= n; i += 32) {
    const __m256i here = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i before = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i - 1));
    const __m256i both =
        _mm256_and_si256(_mm256_cmpeq_epi8(here, nl), _mm256_cmpeq_epi8(before, cr));
    total += static_cast<uint64_t>(
        __builtin_popcount(static_cast<uint32_t>(_mm256_movemask_epi8(both))));
  }
  for (; i < n; ++i) total += p[i] == '\n' && p[i - 1] == '\r';
  return total;
}

uint64_t crlf_sse2(const char* p, size_t n) {
  const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  uint64_t total = 0;
  size_t i = 1;
  for (; i + 16 <= n; i += 16) {
    const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i before = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i - 1));
    const __m128i both = _mm_and_si128(_mm_cmpeq_epi8(here, nl), _mm_cmpeq_epi8(before, cr));
    total +=
        static_cast<uint64_t>(__builtin_popcount(static_cast<uint32_t>(_mm_movemask_epi8(both))));
  }
  for (; i < n; ++i) total += p[i] == '\n' && p[i - 1] == '\r';
  return total;
}

}  // namespace

uint64_t count_newlines(const char* p, size_t n) {
  return kAvx2 ? count_avx2(p, n) : count_sse2(p, n);
}

uint64_t count_crlf(const char* p, size_t n) {
  if (n < 2) return 0;
  return kAvx2 ? crlf_avx2(p, n) : crlf_sse2(p, n);
}

}  // namespace text
