// fuzz-sources: src/text/pointer.cpp src/text/json_bytes.cpp
// libFuzzer target: jsonq's RFC 6901 pointer parser and its byte-level JSON checks. Any bytes
// must parse without crashing, and:
// * a pointer that parses round trips: "/" + escape_token(name) per token rebuilds the text
//   exactly, each token's `slash` is the offset of its '/';
// * a refused pointer says where (at <= size) and why; a suggestion, when given, parses;
// * escape_token then parse gives back the one token; array_index accepts exactly "0" and
//   decimals without a leading zero; canonical_index yields an index array_index accepts;
// * a jq path that converts gives a pointer that parses;
// * json_number agrees with a reference of the RFC 8259 grammar; find_json_error's offset is
//   inside the input, and describe/line_column/shown_byte take it without crashing.
#include <cstdint>
#include <string>
#include <string_view>

#include "text/pointer.h"

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool ref_number(std::string_view s) {
  size_t i = 0, n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return false;
  if (s[i] == '0') {
    ++i;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < n && digit(s[i])) ++i;
  } else {
    return false;
  }
  if (i < n && s[i] == '.') {
    size_t f = ++i;
    while (i < n && digit(s[i])) ++i;
    if (i == f) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    size_t f = i;
    while (i < n && digit(s[i])) ++i;
    if (i == f) return false;
  }
  return i == n;
}

void check_pointer(std::string_view in) {
  text::ParsedPointer p = text::parse_pointer(in);
  if (p.problem == text::PointerProblem::None) {
    std::string rebuilt;
    for (auto& t : p.tokens) {
      if (t.slash >= in.size() || in[t.slash] != '/') __builtin_trap();
      rebuilt += '/';
      rebuilt += text::escape_token(t.name);
    }
    if (rebuilt != in) __builtin_trap();
  } else {
    if (p.at > in.size() || p.why.empty()) __builtin_trap();
    if (p.suggestion) {
      text::ParsedPointer s = text::parse_pointer(*p.suggestion);
      if (s.problem != text::PointerProblem::None) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  check_pointer(in);

  // One token: escape, parse, get it back.
  text::ParsedPointer one = text::parse_pointer("/" + text::escape_token(in));
  if (one.problem != text::PointerProblem::None || one.tokens.size() != 1 || one.tokens[0].name != in)
    __builtin_trap();

  if (auto idx = text::array_index(in)) {
    bool canon = in == "0" || (!in.empty() && in[0] >= '1' && in[0] <= '9');
    for (char c : in) canon = canon && digit(c);
    if (!canon) __builtin_trap();
    if (in.size() < 20 && std::to_string(*idx) != in) __builtin_trap();
  }
  if (auto c = text::canonical_index(in)) {
    if (!text::array_index(*c)) __builtin_trap();
  }
  if (auto ptr = text::jq_path_to_pointer(in)) {
    if (text::parse_pointer(*ptr).problem != text::PointerProblem::None) __builtin_trap();
    check_pointer(*ptr);
  }

  if (text::json_number(in) != ref_number(in)) __builtin_trap();
  if (auto e = text::find_json_error(in, 64)) {
    if (e->offset > in.size()) __builtin_trap();
    (void)text::describe_json_error(in, *e, 64);
    (void)text::line_column(in, e->offset);
    (void)text::shown_byte(in, e->offset);
  } else {
    size_t b = text::bom_length(in);
    std::string_view body = text::trim_json_space(in.substr(b));
    // A whole document that is one scalar (no leading space): json_scalar agrees.
    if (!body.empty() && !text::json_space(body[0]) && body[0] != '[' && body[0] != '{' &&
        !text::json_scalar(in, b, body.size()))
      __builtin_trap();
  }
  if (!in.empty() && in[0] == '"') {
    text::StringScan s = text::scan_json_string(in, 1, true);
    if (s.end > in.size()) __builtin_trap();
    if (s.ok) (void)text::unescape_json_string(in.substr(1, s.end - 1));
  }
  return 0;
}
