// json_escape.cpp — see json_escape.h.
#include "text/json_escape.h"

#include <cstdint>
#include <cstring>

#include "text/cpu.h"

namespace text {

namespace {

bool needs_escape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\';
}

// The one byte after the backslash of a two-byte escape, or 0 where the escape is \u00XX.
char short_escape(unsigned char c) {
  switch (c) {
    case '"':
      return '"';
    case '\\':
      return '\\';
    case '\n':
      return 'n';
    case '\r':
      return 'r';
    case '\t':
      return 't';
    case '\b':
      return 'b';
    case '\f':
      return 'f';
    default:
      return 0;
  }
}

char* put_escape(char* o, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  *o++ = '\\';
  if (char s = short_escape(c)) {
    *o++ = s;
    return o;
  }
  std::memcpy(o, "u00", 3);
  o[3] = kHex[c >> 4];
  o[4] = kHex[c & 15];
  return o + 5;
}

// 32 bytes as one vector (GCC/Clang vector extensions: the compiler picks the instructions of
// each clone below, two SSE2 halves or one AVX2 register).
using Block = unsigned char __attribute__((vector_size(32)));

// The search itself, built twice (the body inlined into each) and chosen once by the CPU: most
// of a large answer is runs that need no escape, and this is the cost of crossing them.
inline __attribute__((always_inline)) size_t find_escape_in(const char* p, size_t n) {
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    Block b;
    std::memcpy(&b, p + i, sizeof b);
    auto hit = (b < 0x20) | (b == '"') | (b == '\\');
    uint64_t w[4];
    std::memcpy(w, &hit, sizeof w);
    if ((w[0] | w[1] | w[2] | w[3]) == 0) continue;
    for (size_t k = 0; k < 4; ++k)
      if (w[k]) return i + 8 * k + static_cast<size_t>(__builtin_ctzll(w[k]) >> 3);
  }
  for (; i < n; ++i)
    if (needs_escape(static_cast<unsigned char>(p[i]))) return i;
  return n;
}

__attribute__((target("avx2"))) size_t find_escape_avx2(const char* p, size_t n) {
  return find_escape_in(p, n);
}

size_t find_escape_sse2(const char* p, size_t n) {
  return find_escape_in(p, n);
}

const auto find_escape = has_avx2() ? find_escape_avx2 : find_escape_sse2;

int hex_value(char c) {
  return c <= '9' ? c - '0' : c - 'a' + 10;
}

}  // namespace

size_t json_escapes(std::string_view v, std::vector<uint32_t>& at) {
  size_t growth = 0;
  for (size_t i = find_escape(v.data(), v.size()); i < v.size();) {
    // Escapes in a row (control-heavy output) are taken here, not one search each.
    for (; i < v.size() && needs_escape(static_cast<unsigned char>(v[i])); ++i) {
      at.push_back(static_cast<uint32_t>(i));
      growth += short_escape(static_cast<unsigned char>(v[i])) ? 1 : 5;
    }
    i += find_escape(v.data() + i, v.size() - i);
  }
  return growth;
}

void json_escape_in_place(char* p, size_t n, const std::vector<uint32_t>& at, size_t growth) {
  // From the end: each run after an escape moves up by the growth of the escapes before it,
  // which never reaches a byte not yet moved.
  size_t end = n;
  for (size_t k = at.size(); k-- > 0;) {
    const size_t i = at[k];
    const unsigned char c = static_cast<unsigned char>(p[i]);
    std::memmove(p + i + 1 + growth, p + i + 1, end - i - 1);
    growth -= short_escape(c) ? 1 : 5;
    put_escape(p + i + growth, c);
    end = i;
  }
}

void append_json_escaped(std::string& out, std::string_view v) {
  const char* p = v.data();
  const size_t n = v.size();
  out.reserve(out.size() + n);
  char esc[6];
  for (size_t i = 0;;) {
    size_t j = i + find_escape(p + i, n - i);
    out.append(p + i, j - i);
    for (i = j; i < n && needs_escape(static_cast<unsigned char>(p[i])); ++i)
      out.append(esc, static_cast<size_t>(put_escape(esc, static_cast<unsigned char>(p[i])) - esc));
    if (i == n) break;
  }
}

size_t json_unescape_in_place(char* p, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n;) {
    const void* bs = std::memchr(p + i, '\\', n - i);
    size_t j = bs ? static_cast<size_t>(static_cast<const char*>(bs) - p) : n;
    if (w != i) std::memmove(p + w, p + i, j - i);
    w += j - i;
    if (j + 1 >= n) break;  // the end (a lone backslash there is not one the escapes write)
    char c = p[j + 1];
    i = j + 2;
    switch (c) {
      case 'n':
        p[w++] = '\n';
        break;
      case 'r':
        p[w++] = '\r';
        break;
      case 't':
        p[w++] = '\t';
        break;
      case 'b':
        p[w++] = '\b';
        break;
      case 'f':
        p[w++] = '\f';
        break;
      case 'u':
        if (j + 6 > n) return w;
        p[w++] = static_cast<char>(hex_value(p[j + 4]) * 16 + hex_value(p[j + 5]));
        i = j + 6;
        break;
      default:
        p[w++] = c;  // \" and \\ .
    }
  }
  return w;
}

}  // namespace text
