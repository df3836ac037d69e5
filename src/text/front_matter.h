// front_matter.h — the YAML front matter of a Markdown file (a SKILL.md), just enough YAML for
// a format's scalar keys: plain, single- and double-quoted scalars and block scalars (| and >,
// with chomping), comments, one key per line; the lines of any other key (a mapping, a list)
// are passed over. What it cannot read it names, as the cause, rather than guessing.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace text {

struct FrontMatter {
  std::map<std::string, std::string> values;  // the keys asked for that the file holds
  size_t body = 0;                            // offset of the body (after the closing ---)
};

// The front matter of `text` (between a first line '---' and the next '---' line), reading the
// scalars of `keys`; or the cause it is not one (no fences, not UTF-8, a key twice, a line
// that is not 'key: value', a scalar this parser does not take), prefixed "line N: " where
// a line is at fault.
std::variant<FrontMatter, std::string> parse_front_matter(std::string_view text,
                                                          std::span<const std::string_view> keys);

// `s` without leading blanks and tabs, nor trailing blanks, tabs and '\r'.
std::string_view trim_blanks(std::string_view s);

}  // namespace text
