// front_matter.cpp — see front_matter.h.
#include "text/front_matter.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "contract/json.h"

namespace text {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool is_fence(std::string_view line) {
  return trim(line) == "---" && line.substr(0, 3) == "---";
}

size_t indent_of(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  return i;
}

// A plain scalar's text on its line: an ` #` starts a comment.
std::string_view strip_comment(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) return trim(s.substr(0, i));
  return trim(s);
}

void put_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Parses a scalar starting at lines[i] after "key:" (`rest`); advances i past continuation
// lines. Returns the cause when it cannot.
std::optional<std::string> scalar(std::string_view rest, const std::vector<std::string_view>& lines,
                                  size_t& i, std::string& out) {
  rest = trim(rest);
  auto continuation = [&](size_t j) {
    return j < lines.size() && (trim(lines[j]).empty() || indent_of(lines[j]) > 0);
  };
  if (!rest.empty() && rest[0] == '"') {
    size_t k = 1;
    for (; k < rest.size() && rest[k] != '"'; ++k) {
      char c = rest[k];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (++k == rest.size()) break;
      switch (rest[k]) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '0':
          out += '\0';
          break;
        case '"':
        case '\\':
        case '/':
        case ' ':
          out += rest[k];
          break;
        case 'u': {
          uint32_t cp = 0;
          if (k + 4 >= rest.size()) return "a \\u escape with fewer than four hex digits";
          for (int d = 1; d <= 4; ++d) {
            char h = rest[k + d];
            int v = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
            if (v < 0) return "a \\u escape with a byte that is not a hex digit";
            cp = cp * 16 + static_cast<uint32_t>(v);
          }
          if (cp >= 0xD800 && cp <= 0xDFFF) return "a \\u escape names a surrogate";
          put_utf8(out, cp);
          k += 4;
          break;
        }
        default:
          return std::string("an unsupported escape \\") + rest[k] + " in a double-quoted scalar";
      }
    }
    if (k >= rest.size()) return "a double-quoted scalar that does not end on its line";
    if (!strip_comment(rest.substr(k + 1)).empty()) return "text after a double-quoted scalar";
    ++i;
    return std::nullopt;
  }
  if (!rest.empty() && rest[0] == '\'') {
    size_t k = 1;
    for (;; ++k) {
      if (k >= rest.size()) return "a single-quoted scalar that does not end on its line";
      if (rest[k] == '\'') {
        if (k + 1 < rest.size() && rest[k + 1] == '\'') {
          out += '\'';
          ++k;
          continue;
        }
        break;
      }
      out += rest[k];
    }
    if (!strip_comment(rest.substr(k + 1)).empty()) return "text after a single-quoted scalar";
    ++i;
    return std::nullopt;
  }
  if (!rest.empty() && (rest[0] == '|' || rest[0] == '>')) {
    const bool fold = rest[0] == '>';
    char chomp = 'c';
    for (char c : strip_comment(rest.substr(1))) {
      if (c == '-' || c == '+')
        chomp = c;
      else if (c < '1' || c > '9')
        return "a block scalar header that is not |, >, -, + or a digit";
    }
    ++i;
    size_t indent = 0;
    std::vector<std::string_view> body;
    while (continuation(i)) {
      std::string_view l = lines[i];
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      if (trim(l).empty()) {
        body.push_back("");
      } else {
        if (indent == 0) indent = indent_of(l);
        if (indent_of(l) < indent) return "a block scalar line indented less than its first";
        body.push_back(l.substr(indent));
      }
      ++i;
    }
    size_t trailing = 0;
    while (!body.empty() && body.back().empty()) {
      body.pop_back();
      ++trailing;
    }
    for (size_t k = 0; k < body.size(); ++k) {
      out += body[k];
      if (k + 1 == body.size()) break;
      // Folding: a line break between two non-empty, not more-indented lines is a space.
      bool join = fold && !body[k].empty() && !body[k + 1].empty() && body[k][0] != ' ' &&
                  body[k + 1][0] != ' ';
      if (join)
        out += ' ';
      else if (!(fold && body[k + 1].empty()))
        out += '\n';
    }
    if (chomp != '-' && !body.empty()) out += '\n';
    if (chomp == '+') out.append(trailing, '\n');
    return std::nullopt;
  }
  if (!rest.empty() && std::string_view("[{&*!%@`|>").find(rest[0]) != std::string_view::npos)
    return std::string("a value starting with '") + rest[0] + "', which this parser does not take";
  // A plain scalar: its continuation lines fold into it with single spaces.
  out += strip_comment(rest);
  ++i;
  while (continuation(i)) {
    std::string_view l = strip_comment(lines[i]);
    if (!l.empty()) {
      if (!out.empty()) out += ' ';
      out += l;
    }
    ++i;
  }
  if (out.find(": ") != std::string::npos) return "a plain scalar holding ': ' (quote it)";
  return std::nullopt;
}

}  // namespace

std::string_view trim_blanks(std::string_view s) {
  return trim(s);
}

std::variant<FrontMatter, std::string> parse_front_matter(std::string_view text,
                                                          std::span<const std::string_view> keys) {
  std::vector<std::string_view> lines;
  size_t at = 0, body = std::string_view::npos;
  bool first = true;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    std::string_view line =
        text.substr(at, nl == std::string_view::npos ? text.size() - at : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    if (first) {
      first = false;
      if (!is_fence(line)) return "the file does not start with a '---' line (no front matter)";
      continue;
    }
    if (is_fence(line)) {
      body = at;
      break;
    }
    lines.push_back(line);
  }
  if (first) return "the file is empty (no front matter)";
  if (body == std::string_view::npos) return "the front matter has no closing '---' line";
  std::string_view front = text.substr(0, body);
  if (!contract::valid_utf8(front)) return "the front matter is not UTF-8";
  FrontMatter f;
  f.body = body;
  std::map<std::string, bool> seen;
  for (size_t i = 0; i < lines.size();) {
    std::string_view line = lines[i];
    std::string_view t = trim(line);
    if (t.empty() || t[0] == '#') {
      ++i;
      continue;
    }
    const std::string where = "line " + std::to_string(i + 2) + ": ";
    if (line[0] == '\t' || indent_of(line) > 0) return where + "an indented line outside any key";
    size_t colon = line.find(':');
    std::string key(line.substr(0, colon == std::string_view::npos ? 0 : colon));
    bool ok_key = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '-' || c == '_';
    });
    if (!ok_key || (colon + 1 < line.size() && line[colon + 1] != ' ' && line[colon + 1] != '\t' &&
                    line[colon + 1] != '\r'))
      return where + "not 'key: value'";
    if (seen[key]) return where + "the key '" + key + "' appears twice";
    seen[key] = true;
    std::string_view rest = line.substr(colon + 1);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      std::string value;
      if (auto cause = scalar(rest, lines, i, value)) return where + key + ": " + *cause;
      f.values[key] = std::move(value);
    } else {
      // Any other key (a mapping, a list, a scalar not asked for): its lines are passed over.
      ++i;
      while (i < lines.size() && (trim(lines[i]).empty() || indent_of(lines[i]) > 0 ||
                                  lines[i][0] == '\t' || lines[i][0] == '-'))
        ++i;
    }
  }
  return f;
}

}  // namespace text
