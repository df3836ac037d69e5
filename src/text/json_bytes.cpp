// json_bytes.cpp — JSON at the byte level (see json_bytes.h).
#include "text/json_bytes.h"

#include <algorithm>
#include <cstring>

namespace text {

namespace {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

StringScan fail(size_t at, JsonFault fault) { return {false, at, fault}; }

}  // namespace

// --- JSON bytes ---------------------------------------------------------------------------

std::string_view kind_name(JsonKind kind) {
  switch (kind) {
    case JsonKind::Null: return "null";
    case JsonKind::Boolean: return "boolean";
    case JsonKind::Integer: return "integer";
    case JsonKind::Float: return "float";
    case JsonKind::String: return "string";
    case JsonKind::Array: return "array";
    case JsonKind::Object: return "object";
  }
  return "null";
}

std::string_view fault_name(JsonFault fault) {
  switch (fault) {
    case JsonFault::UnexpectedEnd: return "unexpected-end";
    case JsonFault::UnexpectedByte: return "unexpected-byte";
    case JsonFault::TrailingContent: return "trailing-content";
    case JsonFault::InvalidUtf8: return "invalid-utf8";
    case JsonFault::ControlCharacter: return "control-character";
    case JsonFault::BadEscape: return "bad-escape";
    case JsonFault::LoneSurrogate: return "lone-surrogate";
    case JsonFault::TooDeep: return "too-deep";
  }
  return "unexpected-byte";
}

std::string_view trim_json_space(std::string_view s) {
  while (!s.empty() && json_space(s.back())) s.remove_suffix(1);
  return s;
}

bool json_number(std::string_view t) {
  size_t i = 0;
  const size_t n = t.size();
  if (i < n && t[i] == '-') ++i;
  if (i == n || !ascii_digit(t[i])) return false;
  if (t[i] == '0') {
    ++i;
  } else {
    while (i < n && ascii_digit(t[i])) ++i;
  }
  if (i < n && t[i] == '.') {
    ++i;
    if (i == n || !ascii_digit(t[i])) return false;
    while (i < n && ascii_digit(t[i])) ++i;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (i == n || !ascii_digit(t[i])) return false;
    while (i < n && ascii_digit(t[i])) ++i;
  }
  return i == n;
}

JsonKind scalar_kind(std::string_view t) {
  if (t.empty()) return JsonKind::Null;
  switch (t[0]) {
    case '"': return JsonKind::String;
    case 't': case 'f': return JsonKind::Boolean;
    case 'n': return JsonKind::Null;
    default: return number_is_integer(t) ? JsonKind::Integer : JsonKind::Float;
  }
}

bool json_scalar(std::string_view doc, size_t at, size_t len) {
  if (len == 0 || at + len > doc.size()) return false;
  std::string_view tok = doc.substr(at, len);
  switch (tok[0]) {
    case '"': {
      StringScan r = scan_json_string(doc, at + 1, false);
      return r.ok && r.end == at + len - 1;
    }
    case 't': return tok == "true";
    case 'f': return tok == "false";
    case 'n': return tok == "null";
    default: return json_number(tok);
  }
}

StringScan scan_json_string(std::string_view s, size_t i, bool full) {
  const size_t n = s.size();
  // Reads the 4 hex digits of a \u escape at s[j..j+4) into cp. For the first escape, a lone
  // low surrogate (DC00-DFFF) is known at its second digit; for the escape that must complete
  // a pair, the first two digits must be D and C-F. Each failure names the first bad byte.
  auto hex4 = [&](size_t j, bool low_half, uint32_t& cp) -> std::optional<StringScan> {
    cp = 0;
    for (size_t k = 0; k < 4; ++k) {
      if (j + k >= n) return fail(n, JsonFault::UnexpectedEnd);
      int h = hex_digit_value(s[j + k]);
      if (low_half && k == 0 && h != 0xD) return fail(j, JsonFault::LoneSurrogate);
      if (low_half && k == 1 && h >= 0 && h < 0xC) return fail(j + 1, JsonFault::LoneSurrogate);
      if (h < 0) return fail(j + k, JsonFault::BadEscape);
      cp = cp * 16 + static_cast<uint32_t>(h);
      if (!low_half && k == 1 && cp >= 0xDC && cp <= 0xDF)
        return fail(j + 1, JsonFault::LoneSurrogate);
    }
    return std::nullopt;
  };
  while (true) {
    if (!full)
      while (i < n && s[i] != '"' && s[i] != '\\') ++i;
    if (i >= n) return fail(n, JsonFault::UnexpectedEnd);
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"') return {true, i, JsonFault::UnexpectedEnd};
    if (c == '\\') {
      if (i + 1 >= n) return fail(n, JsonFault::UnexpectedEnd);
      switch (s[i + 1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
          i += 2;
          continue;
        case 'u':
          break;
        default:
          return fail(i + 1, JsonFault::BadEscape);
      }
      uint32_t cp;
      if (auto bad = hex4(i + 2, false, cp)) return *bad;
      i += 6;
      if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: "\uDC00".."\uDFFF" must follow
        if (i >= n) return fail(n, JsonFault::UnexpectedEnd);
        if (s[i] != '\\') return fail(i, JsonFault::LoneSurrogate);
        if (i + 1 >= n) return fail(n, JsonFault::UnexpectedEnd);
        if (s[i + 1] != 'u') return fail(i + 1, JsonFault::LoneSurrogate);
        if (auto bad = hex4(i + 2, true, cp)) return *bad;
        i += 6;
      }
      continue;
    }
    if (!full) {
      ++i;
      continue;
    }
    if (c < 0x20) return fail(i, JsonFault::ControlCharacter);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // UTF-8 (RFC 3629): the lead byte fixes the length and the range of the second byte.
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
    } else if (c == 0xE0) {
      need = 2, lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      need = 2;
    } else if (c == 0xED) {
      need = 2, hi = 0x9F;  // ED A0..BF would encode a surrogate
    } else if (c == 0xF0) {
      need = 3, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      need = 3;
    } else if (c == 0xF4) {
      need = 3, hi = 0x8F;
    } else {
      return fail(i, JsonFault::InvalidUtf8);
    }
    for (size_t k = 1; k <= need; ++k) {
      if (i + k >= n) return fail(n, JsonFault::UnexpectedEnd);
      unsigned char b = static_cast<unsigned char>(s[i + k]);
      if (b < lo || b > hi) return fail(i + k, JsonFault::InvalidUtf8);
      lo = 0x80, hi = 0xBF;
    }
    i += need + 1;
  }
}

std::string unescape_json_string(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 >= body.size()) {
      out += body[i];
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        auto hex = [&](size_t at) {
          uint32_t v = 0;
          for (size_t k = 0; k < 4 && at + k < body.size(); ++k)
            v = v * 16 + static_cast<uint32_t>(std::max(0, hex_digit_value(body[at + k])));
          return v;
        };
        uint32_t cp = hex(i + 1);
        i += 4;
        // i is on the last digit; a checked string pairs every high half with a low one.
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 < body.size() && body[i + 1] == '\\' &&
            body[i + 2] == 'u') {
          uint32_t low = hex(i + 3);
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        }
        append_utf8(out, cp);
        break;
      }
      default: out += e;  // \" \\ \/
    }
  }
  return out;
}

std::string_view json_key(std::string_view doc, size_t at, std::deque<std::string>& store) {
  std::string_view body = doc.substr(at, scan_json_string(doc, at, false).end - at);
  if (body.find('\\') == std::string_view::npos) return body;
  store.push_back(unescape_json_string(body));
  return store.back();
}

std::optional<JsonSyntaxError> find_json_error(std::string_view s, size_t max_depth) {
  enum class Want { Value, ValueOrClose, KeyOrClose, Key, Colon, After };
  const size_t n = s.size();
  size_t i = bom_length(s);
  std::string stack;  // '[' and '{', innermost last
  Want want = Want::Value;
  auto after_expected = [&]() -> std::string_view {
    if (stack.empty()) return "end of input";
    return stack.back() == '[' ? "',' or ']'" : "',' or '}'";
  };
  auto expected = [&]() -> std::string_view {
    switch (want) {
      case Want::Value: return "a value";
      case Want::ValueOrClose: return "a value or ']'";
      case Want::KeyOrClose: return "a string key or '}'";
      case Want::Key: return "a string key";
      case Want::Colon: return "':'";
      case Want::After: return after_expected();
    }
    return "a value";
  };
  auto error = [](size_t at, JsonFault fault, std::string_view exp) {
    return std::optional<JsonSyntaxError>(JsonSyntaxError{at, fault, exp});
  };
  auto string_error = [&](const StringScan& r) {
    std::string_view exp =
        r.fault == JsonFault::UnexpectedEnd   ? "'\"' to close the string"
        : r.fault == JsonFault::LoneSurrogate ? "the low half of a surrogate pair"
        : r.fault == JsonFault::BadEscape     ? "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"
                                              : "";
    return error(r.end, r.fault, exp);
  };
  while (true) {
    while (i < n && json_space(s[i])) ++i;
    if (i == n) {
      if (want == Want::After && stack.empty()) return std::nullopt;
      return error(n, JsonFault::UnexpectedEnd, expected());
    }
    const char c = s[i];
    switch (want) {
      case Want::ValueOrClose:
        if (c == ']') {
          stack.pop_back();
          ++i;
          want = Want::After;
          continue;
        }
        [[fallthrough]];
      case Want::Value: {
        if (c == '[' || c == '{') {
          if (stack.size() >= max_depth) return error(i, JsonFault::TooDeep, "");
          stack += c;
          ++i;
          want = c == '[' ? Want::ValueOrClose : Want::KeyOrClose;
          continue;
        }
        if (c == '"') {
          StringScan r = scan_json_string(s, i + 1, true);
          if (!r.ok) return string_error(r);
          i = r.end + 1;
          want = Want::After;
          continue;
        }
        if (c == '-' || ascii_digit(c)) {
          // The number's own grammar; where it stops, the next byte is judged as "After".
          size_t j = i + (c == '-' ? 1 : 0);
          auto digits = [&](bool required) -> std::optional<JsonSyntaxError> {
            if (required) {
              if (j == n) return error(n, JsonFault::UnexpectedEnd, "a digit");
              if (!ascii_digit(s[j])) return error(j, JsonFault::UnexpectedByte, "a digit");
            }
            while (j < n && ascii_digit(s[j])) ++j;
            return std::nullopt;
          };
          if (j < n && s[j] == '0') {
            ++j;
          } else if (auto e = digits(true)) {
            return e;
          }
          if (j < n && s[j] == '.') {
            ++j;
            if (auto e = digits(true)) return e;
          }
          if (j < n && (s[j] == 'e' || s[j] == 'E')) {
            ++j;
            if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
            if (auto e = digits(true)) return e;
          }
          i = j;
          want = Want::After;
          continue;
        }
        if (c == 't' || c == 'f' || c == 'n') {
          std::string_view lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
          for (size_t k = 1; k < lit.size(); ++k) {
            if (i + k >= n) return error(n, JsonFault::UnexpectedEnd, lit);
            if (s[i + k] != lit[k]) return error(i + k, JsonFault::UnexpectedByte, lit);
          }
          i += lit.size();
          want = Want::After;
          continue;
        }
        return error(i, JsonFault::UnexpectedByte, expected());
      }
      case Want::KeyOrClose:
        if (c == '}') {
          stack.pop_back();
          ++i;
          want = Want::After;
          continue;
        }
        [[fallthrough]];
      case Want::Key: {
        if (c != '"') return error(i, JsonFault::UnexpectedByte, expected());
        StringScan r = scan_json_string(s, i + 1, true);
        if (!r.ok) return string_error(r);
        i = r.end + 1;
        want = Want::Colon;
        continue;
      }
      case Want::Colon:
        if (c != ':') return error(i, JsonFault::UnexpectedByte, expected());
        ++i;
        want = Want::Value;
        continue;
      case Want::After:
        if (stack.empty()) return error(i, JsonFault::TrailingContent, expected());
        if (c == ',') {
          ++i;
          want = stack.back() == '[' ? Want::Value : Want::Key;
          continue;
        }
        if (c == (stack.back() == '[' ? ']' : '}')) {
          stack.pop_back();
          ++i;
          continue;
        }
        return error(i, JsonFault::UnexpectedByte, expected());
    }
  }
}

std::string shown_byte(std::string_view doc, size_t at) {
  if (at >= doc.size()) return "the end";
  unsigned char c = static_cast<unsigned char>(doc[at]);
  if (c >= 0x20 && c < 0x7F) return std::string("'") + doc[at] + "'";
  const char* hex = "0123456789abcdef";  // as contract::printable writes bytes
  return std::string("\\x") + hex[c >> 4] + hex[c & 15];
}

std::string describe_json_error(std::string_view doc, const JsonSyntaxError& e,
                               size_t max_depth) {
  std::string found = shown_byte(doc, e.offset), expected(e.expected);
  switch (e.fault) {
    case JsonFault::UnexpectedEnd:
      if (trim_json_space(doc.substr(bom_length(doc))).empty()) return "the input holds no value";
      return "the input ends early, where " + expected + " should come";
    case JsonFault::UnexpectedByte: return found + " where " + expected + " should come";
    case JsonFault::TrailingContent: return found + " after the value, where the input should end";
    case JsonFault::InvalidUtf8: return "the byte " + found + ", which is not UTF-8 there";
    case JsonFault::ControlCharacter:
      return "the control character " + found + " unescaped in a string";
    case JsonFault::BadEscape: return "the bad escape " + found + " in a string";
    case JsonFault::LoneSurrogate: return "half of a surrogate pair escaped without its other half";
    case JsonFault::TooDeep:
      return "arrays and objects nested deeper than " + std::to_string(max_depth) + " levels";
  }
  return found;
}

namespace {

// How many '\n' bytes s holds, 16 at a time with the compiler's vector extension (SSE2 on
// x86-64, NEON on arm64): a byte counter per lane, emptied every 255 blocks before it can wrap.
// std::count runs about ten times slower, and a value's line is counted over everything before
// it. (text/scan.h has an AVX2 count, but it lives with seek's scanner and its regex engine.)
uint64_t newlines_in(std::string_view s) {
  using V = unsigned char __attribute__((vector_size(16)));
  const char* p = s.data();
  size_t n = s.size();
  uint64_t total = 0;
  while (n >= 16) {
    V acc = {};
    size_t blocks = std::min<size_t>(n / 16, 255);
    for (size_t b = 0; b < blocks; ++b, p += 16) {
      V v;
      std::memcpy(&v, p, 16);
      acc -= (V)(v == '\n');  // a match is all ones: minus -1 counts it
    }
    for (int i = 0; i < 16; ++i) total += acc[i];
    n -= blocks * 16;
  }
  return total + static_cast<uint64_t>(std::count(p, p + n, '\n'));
}

}  // namespace

LineColumn line_column(std::string_view doc, size_t offset) {
  return line_columns(doc, {std::min(offset, doc.size())})[0];
}

std::vector<LineColumn> line_columns(std::string_view doc, const std::vector<size_t>& offsets) {
  std::vector<LineColumn> out;
  LineColumn lc;
  size_t from = 0, line_start = 0;
  for (size_t at : offsets) {
    std::string_view part = doc.substr(from, at - from);
    lc.line += newlines_in(part);
    if (size_t nl = part.rfind('\n'); nl != std::string_view::npos) line_start = from + nl + 1;
    lc.column = at - line_start + 1;
    out.push_back(lc);
    from = at;
  }
  return out;
}

}  // namespace text
