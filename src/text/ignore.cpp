// ignore.cpp — git's pattern rules (dir.c) and its wildmatch, rewritten over string_views.
// The matcher is kept step for step with git's algorithm, including its odd corners (a `]`
// right after `[` is a member, `[a-]` holds a '-', a malformed class aborts the whole match),
// because the differential test holds it to `git check-ignore` byte for byte.
#include "text/ignore.h"

#include <cstring>
#include <unordered_map>

namespace text {
namespace {

enum Result { kMatch, kNoMatch, kAbortAll, kAbortToStarStar };

bool glob_special(unsigned char c) {
  return c == '*' || c == '?' || c == '[' || c == '\\';
}

bool in_class(std::string_view name, unsigned char c) {
  auto is = [&](std::string_view n) { return name == n; };
  if (is("alnum")) return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
  if (is("alpha")) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  if (is("blank")) return c == ' ' || c == '\t';
  if (is("cntrl")) return c < 0x20 || c == 0x7f;
  if (is("digit")) return c >= '0' && c <= '9';
  if (is("graph")) return c > 0x20 && c < 0x7f;
  if (is("lower")) return c >= 'a' && c <= 'z';
  if (is("print")) return c >= 0x20 && c < 0x7f;
  if (is("punct")) {
    return (c > 0x20 && c < 0x7f) &&
           !((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'));
  }
  // git's own isspace: no '\v' or '\f'.
  if (is("space")) return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  if (is("upper")) return c >= 'A' && c <= 'Z';
  if (is("xdigit")) return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
  return false;
}

bool known_class(std::string_view name) {
  static constexpr std::string_view kNames[] = {"alnum", "alpha", "blank", "cntrl",
                                                "digit", "graph", "lower", "print",
                                                "punct", "space", "upper", "xdigit"};
  for (auto n : kNames)
    if (n == name) return true;
  return false;
}

struct Wild {
  const unsigned char* pb;  // pattern begin
  const unsigned char* pe;  // pattern end
  const unsigned char* te;  // text end
  const unsigned char* tb;  // text begin
  bool pathname;
  // git's algorithm retries every star at every text position, and each "**/" once more with
  // no directory: patterns with many of them take exponential time (a fuzzed .gitignore line
  // ran for minutes). A result depends only on where the pattern and the text stand, so
  // past a small budget of recursive calls the results are remembered, which keeps the work
  // polynomial and every verdict (the abort codes included) exactly git's.
  mutable size_t calls = 0;
  mutable std::unordered_map<uint64_t, Result> memo;
  static constexpr size_t kPlainCalls = 256;

  unsigned char at(const unsigned char* p) const { return p < pe ? *p : 0; }
  unsigned char tat(const unsigned char* t) const { return t < te ? *t : 0; }

  Result sub(const unsigned char* p, const unsigned char* text) const {
    if (++calls <= kPlainCalls) return run(p, text);
    const uint64_t key = (static_cast<uint64_t>(p - pb) << 32) | static_cast<uint64_t>(text - tb);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    Result r = run(p, text);
    memo.emplace(key, r);
    return r;
  }

  Result run(const unsigned char* p, const unsigned char* text) const {
    for (; at(p) != 0; ++text, ++p) {
      unsigned char p_ch = at(p);
      unsigned char t_ch = tat(text);
      if (t_ch == 0 && p_ch != '*') return kAbortAll;
      switch (p_ch) {
        case '\\':
          // A literal match of the next character; a trailing '\' compares 0 and fails.
          ++p;
          p_ch = at(p);
          if (t_ch != p_ch) return kNoMatch;
          continue;
        default:
          if (t_ch != p_ch) return kNoMatch;
          continue;
        case '?':
          if (pathname && t_ch == '/') return kNoMatch;
          continue;
        case '*': {
          bool match_slash;
          if (at(p + 1) == '*') {
            const bool at_component_start = p == pb || p[-1] == '/';
            ++p;
            while (at(p + 1) == '*') ++p;
            ++p;  // past the run of stars
            if (!pathname) {
              match_slash = true;  // without WM_PATHNAME '*' == '**'
            } else if (at_component_start &&
                       (at(p) == 0 || at(p) == '/' || (at(p) == '\\' && at(p + 1) == '/'))) {
              // "**/" may match no directory at all: try the rest right here.
              if (at(p) == '/' && sub(p + 1, text) == kMatch) return kMatch;
              match_slash = true;
            } else {
              match_slash = false;  // "**" inside a component is a plain '*'
            }
          } else {
            ++p;
            match_slash = !pathname;
          }
          if (at(p) == 0) {
            // A trailing "**" matches everything; a trailing '*' only up to a slash.
            if (!match_slash && std::memchr(text, '/', te - text) != nullptr) return kNoMatch;
            return kMatch;
          }
          if (!match_slash && at(p) == '/') {
            // One star then a slash: the star takes the rest of this component.
            const void* slash = std::memchr(text, '/', te - text);
            if (slash == nullptr) return kNoMatch;
            text = static_cast<const unsigned char*>(slash);
            // The loop's ++text/++p consume the slash in both.
            break;
          }
          for (;;) {
            if (t_ch == 0) break;
            if (!glob_special(at(p))) {
              // Skip ahead to the literal that must follow the star.
              unsigned char want = at(p);
              while ((t_ch = tat(text)) != 0 && (match_slash || t_ch != '/')) {
                if (t_ch == want) break;
                ++text;
              }
              if (t_ch != want) return kNoMatch;
            }
            Result r = sub(p, text);
            if (r != kNoMatch) {
              if (!match_slash || r != kAbortToStarStar) return r;
            } else if (!match_slash && t_ch == '/') {
              return kAbortToStarStar;
            }
            t_ch = tat(++text);
          }
          return kAbortAll;
        }
        case '[': {
          ++p;
          p_ch = at(p);
          if (p_ch == '^') p_ch = '!';
          const bool negated = p_ch == '!';
          if (negated) {
            ++p;
            p_ch = at(p);
          }
          unsigned char prev_ch = 0;
          bool matched = false;
          do {
            if (p_ch == 0) return kAbortAll;
            if (p_ch == '\\') {
              ++p;
              p_ch = at(p);
              if (p_ch == 0) return kAbortAll;
              if (t_ch == p_ch) matched = true;
            } else if (p_ch == '-' && prev_ch && at(p + 1) && at(p + 1) != ']') {
              ++p;
              p_ch = at(p);
              if (p_ch == '\\') {
                ++p;
                p_ch = at(p);
                if (p_ch == 0) return kAbortAll;
              }
              if (t_ch <= p_ch && t_ch >= prev_ch) matched = true;
              p_ch = 0;  // a range end cannot start another range
            } else if (p_ch == '[' && at(p + 1) == ':') {
              const unsigned char* s = p + 2;
              p = s;
              while ((p_ch = at(p)) != 0 && p_ch != ']') ++p;
              if (p_ch == 0) return kAbortAll;
              const long len = (p - s) - 1;
              if (len < 0 || p[-1] != ':') {
                // No ":]": an ordinary '[' member, and scanning resumes after it.
                p = s - 2;
                p_ch = '[';
                if (t_ch == p_ch) matched = true;
                continue;
              }
              std::string_view name(reinterpret_cast<const char*>(s), static_cast<size_t>(len));
              if (!known_class(name)) return kAbortAll;
              if (in_class(name, t_ch)) matched = true;
              p_ch = 0;
            } else if (t_ch == p_ch) {
              matched = true;
            }
          } while (prev_ch = p_ch, ++p, (p_ch = at(p)) != ']');
          if (matched == negated || (pathname && t_ch == '/')) return kNoMatch;
          continue;
        }
      }
    }
    return text < te ? kNoMatch : kMatch;
  }
};

// git's trim_trailing_spaces: unescaped trailing spaces go; "\ " keeps its space.
std::string_view trim_trailing_spaces(std::string_view s) {
  size_t last_space = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ' ') {
      if (last_space == std::string_view::npos) last_space = i;
    } else if (s[i] == '\\') {
      ++i;
      if (i >= s.size()) return s;
      last_space = std::string_view::npos;
    } else {
      last_space = std::string_view::npos;
    }
  }
  return last_space == std::string_view::npos ? s : s.substr(0, last_space);
}

size_t simple_length(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i)
    if (glob_special(static_cast<unsigned char>(s[i]))) return i;
  return s.size();
}

}  // namespace

bool wildmatch(std::string_view pattern, std::string_view text, bool pathname) {
  auto p = reinterpret_cast<const unsigned char*>(pattern.data());
  auto t = reinterpret_cast<const unsigned char*>(text.data());
  Wild w{p, p + pattern.size(), t + text.size(), t, pathname, 0, {}};
  // A NUL inside the pattern ends it, as in git's C strings.
  if (const void* nul = std::memchr(p, 0, pattern.size()))
    w.pe = static_cast<const unsigned char*>(nul);
  return w.run(p, t) == kMatch;
}

void IgnoreList::add_line(std::string_view line) {
  if (const size_t nul = line.find('\0'); nul != std::string_view::npos) line = line.substr(0, nul);
  if (line.empty() || line[0] == '#') return;
  line = trim_trailing_spaces(line);
  Rule r;
  if (!line.empty() && line[0] == '!') {
    r.negate = true;
    line.remove_prefix(1);
  }
  if (!line.empty() && line.back() == '/') {
    r.dir_only = true;
    line.remove_suffix(1);
  }
  r.basename = line.find('/') == std::string_view::npos;
  // An empty pattern ("", "!", "/") can match no name; git keeps it and it never matches.
  if (line.empty()) return;
  if (!r.basename && line[0] == '/') line.remove_prefix(1);
  r.pattern = std::string(line);
  r.prefix = simple_length(r.pattern);
  if (r.prefix == r.pattern.size())
    r.shape = Shape::Literal;
  else if (r.basename && r.pattern[0] == '*' &&
           simple_length(r.pattern.substr(1)) == r.pattern.size() - 1)
    r.shape = Shape::Suffix;
  if (!r.negate) ++plain_;
  rules_.push_back(std::move(r));
}

void IgnoreList::add_file(std::string_view content) {
  if (content.substr(0, 3) == "\xEF\xBB\xBF") content.remove_prefix(3);
  while (!content.empty()) {
    size_t nl = content.find('\n');
    std::string_view line = content.substr(0, nl);
    // git drops the '\r' of a "\r\n" only; a last line without '\n' keeps its '\r'.
    if (nl != std::string_view::npos && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    // git adds a last line without '\n' as well.
    add_line(line);
    if (nl == std::string_view::npos) break;
    content.remove_prefix(nl + 1);
  }
}

bool IgnoreList::matches(const Rule& r, std::string_view path, std::string_view base) {
  std::string_view subject = r.basename ? base : path;
  switch (r.shape) {
    case Shape::Literal:
      return subject == r.pattern;
    case Shape::Suffix: {
      std::string_view tail = std::string_view(r.pattern).substr(1);
      return subject.size() >= tail.size() && subject.substr(subject.size() - tail.size()) == tail;
    }
    case Shape::Wild:
      if (r.basename) return wildmatch(r.pattern, subject, false);
      // git compares the literal prefix first and wildmatches only the rest, so a "**" right
      // after the prefix counts as starting a component ("foo**/bar" matches "foox/y/bar").
      if (subject.size() < r.prefix || subject.compare(0, r.prefix, r.pattern, 0, r.prefix) != 0)
        return false;
      return wildmatch(std::string_view(r.pattern).substr(r.prefix), subject.substr(r.prefix),
                       true);
  }
  return false;
}

Verdict IgnoreList::match(std::string_view path, bool is_dir) const {
  const size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (size_t i = rules_.size(); i-- > 0;) {
    const Rule& r = rules_[i];
    if (r.dir_only && !is_dir) continue;
    if (matches(r, path, base)) return r.negate ? Verdict::Include : Verdict::Ignore;
  }
  return Verdict::None;
}

}  // namespace text
