// ignore.h — gitignore patterns, with git's semantics, as a pure function of pattern text and
// a path (no I/O, so it can be fuzzed and held to `git check-ignore` differentially).
//
// A list holds the rules of one file (or the --glob flags). The last rule that matches a path
// decides: a plain rule ignores it, a `!` rule re-includes it. Rules follow gitignore(5):
// blank lines and `#` comments match nothing; trailing spaces are dropped unless escaped with
// `\`; a trailing `/` matches directories only; a pattern with a `/` at its start or middle is
// anchored to the list's directory, any other is matched against the basename at any depth;
// `*`, `?`, `[...]` (ranges, `[!...]`, `[^...]`, `[:class:]`) and `\x` escapes as in git's
// wildmatch, and `**` as a whole component (`**/a`, `a/**`, `a/**/b`) crosses directories.
// What git does across files (a nested file's rules win over its parents', and nothing inside
// an excluded directory can be re-included) is the walk's job (os/walk.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace text {

enum class Verdict { None, Ignore, Include };

// git's wildmatch: true when `text` matches `pattern`. With `pathname` (WM_PATHNAME), `*`, `?`
// and classes never match '/', and `**` between slashes matches any number of components.
bool wildmatch(std::string_view pattern, std::string_view text, bool pathname = true);

class IgnoreList {
 public:
  // One line of an ignore file, without its '\n' (a '\r' before it is the caller's to drop).
  void add_line(std::string_view line);
  // A whole ignore file: a leading UTF-8 BOM is skipped, lines end at '\n', a '\r' before the
  // '\n' is dropped, and a line is cut at a NUL byte (git reads it as a C string).
  void add_file(std::string_view content);

  // The verdict of the last rule matching `path`, a relative path below the list's directory
  // ("a/b.c": no leading or trailing '/'); `is_dir` says whether it names a directory.
  Verdict match(std::string_view path, bool is_dir) const;

  bool empty() const { return rules_.empty(); }
  // True when some rule is a plain (not `!`) rule: for --glob, an include list.
  bool has_plain() const { return plain_ != 0; }
  size_t size() const { return rules_.size(); }

 private:
  enum class Shape { Literal, Suffix, Wild };
  struct Rule {
    std::string pattern;  // without `!`, the trailing `/` and (when anchored) one leading `/`
    bool negate = false;
    bool dir_only = false;
    bool basename = false;  // no '/' in the pattern: matched against the last component
    size_t prefix = 0;      // bytes before the first glob character
    Shape shape = Shape::Wild;
  };
  static bool matches(const Rule& r, std::string_view path, std::string_view base);
  std::vector<Rule> rules_;
  size_t plain_ = 0;
};

}  // namespace text
