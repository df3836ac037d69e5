// witness_read.cpp — line_hash of a line read back in pieces (witness.h). XXH3's streaming
// form gives the same value as its one-shot form over the same bytes.
#include <algorithm>
#include <string>

#include "text/witness.h"

// Inlined, as in witness.cpp: only the streaming functions used are compiled in, rather than
// the library's whole object (every XXH32/XXH64/XXH128 function).
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace text {

uint64_t line_hash_read(const std::function<long long(char*, size_t, uint64_t)>& read,
                        uint64_t offset, uint64_t length) {
  std::string buf(64 * 1024, '\0');
  uint64_t end = offset + length;
  while (end > offset) {
    const uint64_t take = std::min<uint64_t>(buf.size(), end - offset);
    const long long n = read(buf.data(), static_cast<size_t>(take), end - take);
    if (n != static_cast<long long>(take)) break;
    long long k = n;
    while (k > 0 && trailing_blank(buf[static_cast<size_t>(k - 1)])) --k;
    end -= static_cast<uint64_t>(n - k);
    if (k > 0) break;
  }
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  for (uint64_t at = offset; at < end;) {
    const uint64_t take = std::min<uint64_t>(buf.size(), end - at);
    const long long n = read(buf.data(), static_cast<size_t>(take), at);
    if (n <= 0) break;
    XXH3_64bits_update(&st, buf.data(), static_cast<size_t>(n));
    at += static_cast<uint64_t>(n);
  }
  return XXH3_64bits_digest(&st);
}

}  // namespace text
