// witness_mix.h — witness.h's mix, inline, for the units that compute witnesses (witness.cpp,
// witness_search.cpp): it is the inner loop of every such pass, and with the whole of xxHash
// in view the compiler specialises XXH3 for its fixed 32-byte input. Same function, same
// values as the library's XXH3_64bits. Not for other units: it brings all of xxHash inline.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "text/witness.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace text::mix {

inline constexpr uint32_t kValueMask = 0xffffff;  // a witness is 24 bits: 6 hex digits

inline uint32_t value_of(uint64_t w) {
  return static_cast<uint32_t>(w) & kValueMask;
}

// One 8-byte store on a little-endian host (GCC does not merge a byte loop into one).
inline void put_le64(unsigned char* out, uint64_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  std::memcpy(out, &v, sizeof v);
}

inline uint64_t mix(uint64_t acc, uint64_t left, uint64_t right, int64_t r) {
  // Explicit little-endian bytes, so the value does not depend on the host's byte order.
  unsigned char bytes[32];
  put_le64(bytes, acc);
  put_le64(bytes + 8, left);
  put_le64(bytes + 16, right);
  put_le64(bytes + 24, static_cast<uint64_t>(r));
  return XXH3_64bits(bytes, sizeof bytes);
}

inline uint32_t fold(uint64_t w_max, uint64_t index) {
  return value_of(mix(w_max, index, 0, -1));
}

inline constexpr int kRadii = kMaxRadius - kMinRadius + 1;  // the radii that can settle a line

// The chains of L consecutive lines c0 .. c0 + L - 1 of an n-line file, side by side:
// values[l][r - kMinRadius] is line c0 + l's value at radius r, folds[l] its index fold.
// hash(i) is line i's line_hash for every i within `top` of them inside the file. The chains
// stop at radius `top` (values past it are left unset, and folds need top = kMaxRadius): a
// count that needs only the smaller radii costs only their hashes. A
// chain is a run of kMaxRadius dependent XXH3 calls, each waiting on the last; the chains of
// different lines do not wait on each other, so the processor overlaps L of them (measured:
// a dry run of edit over 100 MiB of 56-byte lines, two such passes, 0.47 s of CPU line by
// line, 0.36-0.41 s at L = 4; L = 2 and 8 no better).
// smallest(k, v) is told each line's value at radius index k as soon as it is known, while the
// larger radii are still to come (to prefetch what that value will be looked up in).
struct NoSmallest {
  void operator()(int, uint32_t) const {}
};
template <int L, bool Folds, class Hash, class Smallest = NoSmallest>
inline void chains(uint64_t c0, uint64_t n, const Hash& hash, uint32_t (&values)[L][kRadii],
                   uint32_t (&folds)[L], int top = kMaxRadius, const Smallest& smallest = {}) {
  uint64_t w[L];
  for (int l = 0; l < L; ++l) w[l] = mix(hash(c0 + static_cast<uint64_t>(l)), 0, 0, 0);
  for (int r = 1; r <= top; ++r) {
    const auto ur = static_cast<uint64_t>(r);
    for (int l = 0; l < L; ++l) {
      const uint64_t c = c0 + static_cast<uint64_t>(l);
      const uint64_t left = c >= ur ? hash(c - ur) : kWitnessEdge;
      const uint64_t right = c + ur < n ? hash(c + ur) : kWitnessEdge;
      w[l] = mix(w[l], left, right, r);
      if (r >= kMinRadius) values[l][r - kMinRadius] = value_of(w[l]);
    }
    if (r >= kMinRadius)
      for (int l = 0; l < L; ++l) smallest(r - kMinRadius, values[l][r - kMinRadius]);
  }
  if constexpr (Folds)
    for (int l = 0; l < L; ++l) folds[l] = fold(w[l], c0 + static_cast<uint64_t>(l));
}

}  // namespace text::mix
