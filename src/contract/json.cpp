// json.cpp — the serializer. Escaping follows RFC 8259 with the minimal set (", \, control
// characters); '/' and non-ASCII are written as they are, so equal data gives equal bytes.
#include "contract/json.h"

#include <charconv>
#include <cstring>

namespace contract {

namespace {

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 if it is not one.
size_t utf8_seq(const unsigned char* s, size_t n, size_t i) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    return (i + 1 < n && (s[i + 1] & 0xC0) == 0x80) ? 2 : 0;
  }
  if (c >= 0xE0 && c <= 0xEF) {
    if (i + 2 >= n) return 0;
    unsigned char c1 = s[i + 1], c2 = s[i + 2];
    if ((c1 & 0xC0) != 0x80 || (c2 & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && c1 < 0xA0) return 0;  // overlong
    if (c == 0xED && c1 > 0x9F) return 0;  // surrogates
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (i + 3 >= n) return 0;
    unsigned char c1 = s[i + 1], c2 = s[i + 2], c3 = s[i + 3];
    if ((c1 & 0xC0) != 0x80 || (c2 & 0xC0) != 0x80 || (c3 & 0xC0) != 0x80) return 0;
    if (c == 0xF0 && c1 < 0x90) return 0;  // overlong
    if (c == 0xF4 && c1 > 0x8F) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

constexpr char kHex[] = "0123456789abcdef";
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

bool valid_utf8(std::string_view sv) {
  auto s = reinterpret_cast<const unsigned char*>(sv.data());
  size_t n = sv.size(), i = 0;
  while (i < n) {
    // ASCII fast path, eight bytes at a time.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, s + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    size_t k = utf8_seq(s, n, i);
    if (k == 0) return false;
    i += k;
  }
  return true;
}

std::string base64(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  auto s = reinterpret_cast<const unsigned char*>(in.data());
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t v = (s[i] << 16) | (s[i + 1] << 8) | s[i + 2];
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += kB64[v & 63];
  }
  size_t rest = in.size() - i;
  if (rest == 1) {
    uint32_t v = s[i] << 16;
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    uint32_t v = (s[i] << 16) | (s[i + 1] << 8);
    out += kB64[v >> 18];
    out += kB64[(v >> 12) & 63];
    out += kB64[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

bool unbase64(std::string_view in, std::string& out) {
  out.clear();
  if (in.size() % 4 != 0) return false;
  auto val = [](char c) -> int {
    const char* p = std::strchr(kB64, c);
    return (c != 0 && p) ? static_cast<int>(p - kB64) : -1;
  };
  for (size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = in[i + k];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad) return false;  // data after padding
      v[k] = val(c);
      if (v[k] < 0) return false;
    }
    uint32_t w = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out += static_cast<char>(w >> 16);
    if (pad < 2) out += static_cast<char>((w >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(w & 0xFF);
  }
  return true;
}

std::string printable(std::string_view sv) {
  auto s = reinterpret_cast<const unsigned char*>(sv.data());
  std::string out;
  out.reserve(sv.size());
  for (size_t i = 0; i < sv.size();) {
    size_t k = utf8_seq(s, sv.size(), i);
    if (k == 0) {
      out += "\\x";
      out += kHex[s[i] >> 4];
      out += kHex[s[i] & 15];
      ++i;
    } else {
      out.append(sv.data() + i, k);
      i += k;
    }
  }
  return out;
}

void JsonWriter::integer(int64_t v) {
  sep();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
}

void JsonWriter::unsigned_integer(uint64_t v) {
  sep();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
}

void JsonWriter::quoted(std::string_view s) {
  out_ += '"';
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out_.append(s.data() + start, i - start);
    start = i + 1;
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\n': out_ += "\\n"; break;
      case '\r': out_ += "\\r"; break;
      case '\t': out_ += "\\t"; break;
      case '\b': out_ += "\\b"; break;
      case '\f': out_ += "\\f"; break;
      default:
        out_ += "\\u00";
        out_ += kHex[c >> 4];
        out_ += kHex[c & 15];
    }
  }
  out_.append(s.data() + start, s.size() - start);
  out_ += '"';
}

void JsonWriter::string(std::string_view s) {
  sep();
  if (valid_utf8(s))
    quoted(s);
  else
    quoted(printable(s));
}

void JsonWriter::bytes(std::string_view s) {
  sep();
  if (valid_utf8(s)) {
    quoted(s);
  } else {
    out_ += "{\"b64\":\"";
    out_ += base64(s);
    out_ += "\"}";
  }
}

void JsonWriter::key(std::string_view k) {
  sep();
  if (valid_utf8(k))
    quoted(k);
  else
    quoted(printable(k));
  out_ += ':';
  after_key_ = true;
}

Json& Json::push(Json v) {
  if (type_ == Type::Null) type_ = Type::Array;
  arr_.push_back(std::move(v));
  return arr_.back();
}

Json& Json::set(std::string_view key, Json v) {
  if (type_ == Type::Null) type_ = Type::Object;
  for (auto& m : obj_) {
    if (m.first == key) {
      m.second = std::move(v);
      return m.second;
    }
  }
  obj_.emplace_back(std::string(key), std::move(v));
  return obj_.back().second;
}

const Json* Json::get(std::string_view key) const {
  for (auto& m : obj_)
    if (m.first == key) return &m.second;
  return nullptr;
}

void Json::write(JsonWriter& w) const {
  switch (type_) {
    case Type::Null: w.null(); break;
    case Type::Bool: w.boolean(u_ != 0); break;
    case Type::Int: w.integer(i_); break;
    case Type::Uint: w.unsigned_integer(u_); break;
    case Type::Str: w.string(s_); break;
    case Type::Bytes: w.bytes(s_); break;
    case Type::Raw: w.raw(s_); break;
    case Type::Stream: w.stream(*fn_); break;
    case Type::Array:
      w.begin_array();
      for (auto& v : arr_) v.write(w);
      w.end_array();
      break;
    case Type::Object:
      w.begin_object();
      for (auto& [k, v] : obj_) {
        w.key(k);
        v.write(w);
      }
      w.end_object();
      break;
  }
}

std::string Json::dump() const {
  std::string out;
  JsonWriter w(out);
  write(w);
  return out;
}

}  // namespace contract
