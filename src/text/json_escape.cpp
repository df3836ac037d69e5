// json_escape.cpp — see json_escape.h.
#include "text/json_escape.h"

#include <cstdint>
#include <cstring>

namespace text {

// Appends `v` (valid UTF-8) JSON-escaped, as JsonWriter escapes it, eight bytes at a time where
// none needs it: a large answer is mostly such runs, and this is most of its cost.
void append_json_escaped(std::string& out, std::string_view v) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  auto zero_byte = [](uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  const char* p = v.data();
  size_t n = v.size(), start = 0, i = 0;
  auto escape = [&](size_t at) {
    static constexpr char kHex[] = "0123456789abcdef";
    unsigned char c = static_cast<unsigned char>(p[at]);
    if (c >= 0x20 && c != '"' && c != '\\') return;
    out.append(p + start, at - start);
    start = at + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  };
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    uint64_t control = (w - kOnes * 0x20) & ~w & kHigh;  // a byte below 0x20
    if (!(control | zero_byte(w ^ (kOnes * '"')) | zero_byte(w ^ (kOnes * '\\')))) continue;
    for (size_t j = i; j < i + 8; ++j) escape(j);
  }
  for (; i < n; ++i) escape(i);
  out.append(p + start, n - start);
}

}  // namespace text
