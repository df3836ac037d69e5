// pointer.cpp — RFC 6901 pointers (see pointer.h).
#include "text/pointer.h"

#include <algorithm>

namespace text {

namespace {

// Every '~' that does not start ~0 or ~1 becomes ~0: the literal tilde it most likely was.
std::string fix_tildes(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '~' && (i + 1 == text.size() || (text[i + 1] != '0' && text[i + 1] != '1')))
      out += '0';
  }
  return out;
}

// Percent-decoding of a URI fragment; nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int hi = hex_digit_value(s[i + 1]), lo = hex_digit_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

}  // namespace

// --- pointers -----------------------------------------------------------------------------

std::string escape_token(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

ParsedPointer parse_pointer(std::string_view text) {
  ParsedPointer p;
  if (text.empty()) return p;
  if (text[0] == '/') {
    for (size_t i = 0; i < text.size();) {
      PointerToken tok;
      tok.slash = i++;
      for (; i < text.size() && text[i] != '/'; ++i) {
        if (text[i] != '~') {
          tok.name += text[i];
          continue;
        }
        char next = i + 1 < text.size() ? text[i + 1] : '\0';
        if (next != '0' && next != '1') {
          p.tokens.clear();
          p.problem = PointerProblem::BadEscape;
          p.at = i;
          p.why = "a '~' must be followed by 0 (for '~') or 1 (for '/')";
          p.suggestion = fix_tildes(text);
          return p;
        }
        tok.name += next == '0' ? '~' : '/';
        ++i;
      }
      p.tokens.push_back(std::move(tok));
    }
    return p;
  }
  if (text[0] == '.' || text[0] == '[' || text.find('|') != std::string_view::npos) {
    p.problem = PointerProblem::JqSyntax;
    size_t bar = text.find('|');
    p.at = text[0] == '.' || text[0] == '[' || bar == std::string_view::npos ? 0 : bar;
    p.why = "this is a jq filter; jsonq takes an RFC 6901 pointer such as /a/0/b";
    p.suggestion = jq_path_to_pointer(text);
    return p;
  }
  if (text[0] == '#') {
    p.problem = PointerProblem::UriFragment;
    p.why = "this is the URI fragment spelling; jsonq takes the pointer without '#'";
    if (auto decoded = percent_decode(text.substr(1))) {
      ParsedPointer again = parse_pointer(*decoded);
      if (again.problem == PointerProblem::None) p.suggestion = *decoded;
    }
    return p;
  }
  p.problem = PointerProblem::NoLeadingSlash;
  p.why = "a pointer is empty (the whole document) or starts with '/'";
  // "a.b" or "a[0]" may be a key or a dotted path: there is no one reading to offer.
  if (text.find_first_of(".[]") == std::string_view::npos)
    p.suggestion = fix_tildes("/" + std::string(text));
  return p;
}

std::optional<std::string> respell_key(std::string_view pointer,
                                       const std::vector<PointerToken>& tokens, size_t i,
                                       std::string_view key) {
  // Token t as written: the text between its '/' and the next one.
  auto written = [&](size_t t) {
    size_t from = tokens[t].slash + 1;
    size_t to = t + 1 < tokens.size() ? tokens[t + 1].slash : pointer.size();
    return pointer.substr(from, to - from);
  };
  for (bool literal : {false, true}) {
    size_t at = 0;  // how much of `key` tokens i..j have spelled
    for (size_t j = i; j < tokens.size(); ++j) {
      std::string_view part = literal ? written(j) : std::string_view(tokens[j].name);
      if (key.substr(at, part.size()) != part) break;
      at += part.size();
      if (at == key.size()) {
        if (j == i && !literal) break;  // the token itself: the key the pointer names
        std::string out(pointer.substr(0, tokens[i].slash));
        out += '/';
        out += escape_token(key);
        if (j + 1 < tokens.size()) out += pointer.substr(tokens[j + 1].slash);
        if (out == pointer) break;  // read literally, it is what the pointer says already
        return out;
      }
      if (key[at] != '/') break;
      ++at;
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> array_index(std::string_view token) {
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return std::nullopt;
  uint64_t v = 0;
  for (char c : token) {
    if (!ascii_digit(c)) return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
  }
  return v;
}

std::optional<std::string> canonical_index(std::string_view token) {
  if (token.size() < 2 || token[0] != '0') return std::nullopt;
  for (char c : token)
    if (!ascii_digit(c)) return std::nullopt;
  size_t first = token.find_first_not_of('0');
  return first == std::string_view::npos ? std::string("0") : std::string(token.substr(first));
}

std::optional<std::string> jq_path_to_pointer(std::string_view jq) {
  if (jq == ".") return std::string();
  if (jq.empty() || jq[0] != '.') return std::nullopt;
  std::string out;
  size_t i = 0;
  const size_t n = jq.size();
  // A jq string literal at jq[i] == '"': its value, with i moved past it.
  auto string_literal = [&](std::string& name) {
    StringScan s = scan_json_string(jq, i + 1, true);  // \( interpolation is a bad escape here
    if (!s.ok) return false;
    name = unescape_json_string(jq.substr(i + 1, s.end - i - 1));
    i = s.end + 1;
    return true;
  };
  while (i < n) {
    std::string name;
    if (jq[i] == '.') {
      ++i;
      if (i == n) return std::nullopt;
      if (jq[i] == '[') continue;  // .[0] and .a.[0]
      if (jq[i] == '"') {
        if (!string_literal(name)) return std::nullopt;
      } else if (jq[i] == '_' || (jq[i] >= 'a' && jq[i] <= 'z') || (jq[i] >= 'A' && jq[i] <= 'Z')) {
        size_t start = i;
        while (i < n && (jq[i] == '_' || ascii_digit(jq[i]) || (jq[i] >= 'a' && jq[i] <= 'z') ||
                         (jq[i] >= 'A' && jq[i] <= 'Z')))
          ++i;
        name = std::string(jq.substr(start, i - start));
      } else {
        return std::nullopt;  // .. (recursion), .$x, . followed by anything else
      }
    } else if (jq[i] == '[') {
      ++i;
      if (i < n && jq[i] == '"') {
        if (!string_literal(name)) return std::nullopt;
      } else if (i < n && ascii_digit(jq[i])) {
        size_t start = i;
        while (i < n && ascii_digit(jq[i])) ++i;
        std::string_view digits = jq.substr(start, i - start);
        name = canonical_index(digits).value_or(std::string(digits));
      } else {
        return std::nullopt;  // .[] iterates; .[-1] counts from the end
      }
      if (i == n || jq[i] != ']') return std::nullopt;
      ++i;
    } else {
      return std::nullopt;
    }
    out += '/';
    out += escape_token(name);
  }
  return out;
}

}  // namespace text
