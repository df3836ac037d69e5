// fuzz-sources: src/text/ignore.cpp
// libFuzzer target: the gitignore matcher. The input is a pattern file, a 0x01 byte, then
// paths one a line (a trailing '/' marks a directory). Any input must parse and match without
// crashing, and:
// * add_file gives the same verdicts as add_line over its lines (BOM, '\r\n', NUL cut);
// * the fast shapes (literal, "*suffix") agree with git's wildmatch: a list of one rule
//   decides exactly as a reference built on text::wildmatch from gitignore(5);
// * a rule and its `!` twin give opposite non-None verdicts on the same path.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/ignore.h"

namespace {

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  while (true) {
    size_t nl = s.find('\n');
    out.push_back(s.substr(0, nl));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

// gitignore(5) for one line, on text::wildmatch alone: nullopt when the line is no rule.
struct RefRule {
  std::string pattern;
  bool negate = false, dir_only = false, basename = false;
};

bool ref_parse(std::string_view line, RefRule& r) {
  if (size_t nul = line.find('\0'); nul != std::string_view::npos) line = line.substr(0, nul);
  if (line.empty() || line[0] == '#') return false;
  // trailing spaces go unless the last is escaped by a backslash
  size_t end = line.size();
  while (end > 0 && line[end - 1] == ' ') {
    size_t bs = 0;
    for (size_t i = end - 1; i > 0 && line[i - 1] == '\\'; --i) ++bs;
    if (bs % 2 == 1) break;
    --end;
  }
  line = line.substr(0, end);
  if (!line.empty() && line[0] == '!') {
    r.negate = true;
    line.remove_prefix(1);
  }
  if (!line.empty() && line.back() == '/') {
    r.dir_only = true;
    line.remove_suffix(1);
  }
  r.basename = line.find('/') == std::string_view::npos;
  if (line.empty()) return false;
  if (!r.basename && line[0] == '/') line.remove_prefix(1);
  r.pattern = std::string(line);
  return true;
}

bool special(char c) { return c == '*' || c == '?' || c == '[' || c == '\\'; }

text::Verdict ref_match(const RefRule& r, std::string_view path, bool is_dir) {
  if (r.dir_only && !is_dir) return text::Verdict::None;
  size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  bool m;
  if (r.basename) {
    m = text::wildmatch(r.pattern, base, false);
  } else {
    size_t prefix = 0;
    while (prefix < r.pattern.size() && !special(r.pattern[prefix])) ++prefix;
    m = path.size() >= prefix && path.compare(0, prefix, r.pattern, 0, prefix) == 0 &&
        text::wildmatch(std::string_view(r.pattern).substr(prefix), path.substr(prefix), true);
  }
  if (!m) return text::Verdict::None;
  return r.negate ? text::Verdict::Include : text::Verdict::Ignore;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t cut = in.find('\x01');
  std::string_view patterns = in.substr(0, cut);
  std::string_view path_text = cut == std::string_view::npos ? std::string_view() : in.substr(cut + 1);

  std::vector<std::pair<std::string, bool>> paths;
  for (std::string_view p : split(path_text)) {
    bool dir = !p.empty() && p.back() == '/';
    while (!p.empty() && p.back() == '/') p.remove_suffix(1);
    while (!p.empty() && p.front() == '/') p.remove_prefix(1);
    if (p.empty() || p.find('\0') != std::string_view::npos) continue;  // no file name holds NUL
    paths.emplace_back(std::string(p), dir);
    if (paths.size() >= 16) break;
  }
  if (paths.empty()) paths = {{"a", false}, {"a/b", true}, {"x/y.c", false}};

  text::IgnoreList whole;
  whole.add_file(patterns);
  text::IgnoreList by_line;
  std::string_view body = patterns.substr(0, 3) == "\xEF\xBB\xBF" ? patterns.substr(3) : patterns;
  std::vector<std::string_view> lines;
  if (!body.empty()) lines = split(body);
  for (size_t i = 0; i < lines.size(); ++i) {  // '\r' goes only before a '\n'
    if (i + 1 < lines.size() && !lines[i].empty() && lines[i].back() == '\r') lines[i].remove_suffix(1);
    by_line.add_line(lines[i]);
  }
  if (whole.size() != by_line.size()) __builtin_trap();
  for (auto& [p, dir] : paths)
    if (whole.match(p, dir) != by_line.match(p, dir)) __builtin_trap();

  // Rule by rule, against the reference (the first 8 lines that are rules).
  size_t checked = 0;
  for (auto l : lines) {
    if (checked >= 8) break;
    RefRule r;
    text::IgnoreList one;
    one.add_line(l);
    bool is_rule = ref_parse(l, r);
    if (one.size() != (is_rule ? 1u : 0u)) __builtin_trap();
    if (!is_rule) continue;
    ++checked;
    text::IgnoreList twin;  // "!" + a plain rule (a `!` rule's text without it may be "!x" or "#x")
    if (!r.negate) twin.add_line("!" + std::string(l));
    for (auto& [p, dir] : paths) {
      text::Verdict v = one.match(p, dir);
      if (v != ref_match(r, p, dir)) __builtin_trap();
      if (r.negate) continue;
      text::Verdict t = twin.match(p, dir);
      if ((v == text::Verdict::None) != (t == text::Verdict::None)) __builtin_trap();
      if (v != text::Verdict::None && v == t) __builtin_trap();
    }
  }
  return 0;
}
