// pointer.h — RFC 6901 JSON pointers for jsonq: parsing, escaping, array indices, and the jq
// paths people type instead. The byte-level JSON checks are text/json_bytes.h (included, since
// every user of pointers needs them). No I/O, no simdjson: testable and fuzzable on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/json_bytes.h"

namespace text {

// --- RFC 6901 pointers ------------------------------------------------------------------

struct PointerToken {
  std::string name;  // unescaped: ~0 -> ~, ~1 -> /
  size_t slash = 0;  // offset in the pointer text of the '/' that opens the token
};

enum class PointerProblem {
  None,
  BadEscape,       // a '~' not followed by 0 or 1
  NoLeadingSlash,  // a non-empty pointer that does not start with '/'
  UriFragment,     // "#/a/b": the URI fragment spelling
  JqSyntax,        // ".a[0]", ".a | keys": a jq filter, not a pointer
};

struct ParsedPointer {
  std::vector<PointerToken> tokens;
  PointerProblem problem = PointerProblem::None;
  size_t at = 0;            // offset in the text where the problem is
  std::string why;          // one clause for a person, no trailing period
  // A pointer that means what the text most likely meant, when there is exactly one.
  std::optional<std::string> suggestion;
};

// Parses `text` as an RFC 6901 pointer: "" is the whole document, "/a/0" two tokens.
ParsedPointer parse_pointer(std::string_view text);

// ~ -> ~0 and / -> ~1: the spelling of one token inside a pointer.
std::string escape_token(std::string_view name);

// A key that tokens i..j of `pointer` spell when joined by '/' (a '/' the pointer should have
// escaped as ~1), read as the pointer decodes them or as written (a ~0 or ~1 meant literally):
// the pointer that names `key` there, escaped, and the rest as it was. nullopt when no span
// spells it, or only the token itself as decoded (the key the pointer already names).
std::optional<std::string> respell_key(std::string_view pointer,
                                       const std::vector<PointerToken>& tokens, size_t i,
                                       std::string_view key);

// An array index as RFC 6901 writes it: "0" or a decimal without a leading zero. Values past
// 2^64-1 saturate (no array is that long). nullopt for anything else ("01", "-1", "x", "").
std::optional<uint64_t> array_index(std::string_view token);

// "007" -> "7": the index a token of digits with leading zeros was probably meant to be.
std::optional<std::string> canonical_index(std::string_view token);

// The pointer spelling of a jq path made only of field and index steps (., .a, .a.b, ."a b",
// .["a"], .[0], .a[2].b); nullopt where jq means something a pointer cannot say (.[], -1,
// pipes, functions, optional ?).
std::optional<std::string> jq_path_to_pointer(std::string_view jq);

}  // namespace text
