// pointer.h — the pure pieces of jsonq: RFC 6901 JSON pointers (parsing, escaping, array
// indices, and the jq paths people type instead), and the byte-level JSON checks simdjson's
// On-Demand API leaves to its caller (number grammar, string escapes), plus the locator that
// finds where a document stops being JSON. No I/O, no simdjson: everything here is testable
// and fuzzable on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// An array index as RFC 6901 writes it: "0" or a decimal without a leading zero. Values past
// 2^64-1 saturate (no array is that long). nullopt for anything else ("01", "-1", "x", "").
std::optional<uint64_t> array_index(std::string_view token);

// "007" -> "7": the index a token of digits with leading zeros was probably meant to be.
std::optional<std::string> canonical_index(std::string_view token);

// The pointer spelling of a jq path made only of field and index steps (., .a, .a.b, ."a b",
// .["a"], .[0], .a[2].b); nullopt where jq means something a pointer cannot say (.[], -1,
// pipes, functions, optional ?).
std::optional<std::string> jq_path_to_pointer(std::string_view jq);

// --- JSON at the byte level -------------------------------------------------------------

enum class JsonKind { Null, Boolean, Integer, Float, String, Array, Object };
std::string_view kind_name(JsonKind kind);

inline bool json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The token without the whitespace simdjson's raw tokens carry after them.
std::string_view trim_json_space(std::string_view s);

// RFC 8259 §6: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and nothing else.
bool json_number(std::string_view token);

// A number token is an integer when it has no fraction and no exponent (however large).
inline bool number_is_integer(std::string_view token) {
  return token.find_first_of(".eE") == std::string_view::npos;
}

// The kind of a scalar token (trimmed) from its first byte and, for numbers, its shape.
JsonKind scalar_kind(std::string_view token);

// True when doc[at, at+len) is one whole JSON scalar: a string with sound escapes (its UTF-8 and
// control characters are left to simdjson's first stage), true, false, null, or a number.
bool json_scalar(std::string_view doc, size_t at, size_t len);

// Why a document is not JSON, in the order the locator checks.
enum class JsonFault {
  UnexpectedEnd,     // the input stops inside a value, or holds none
  UnexpectedByte,    // a byte that cannot come next
  TrailingContent,   // something after the one value
  InvalidUtf8,       // a byte that cannot continue or start a UTF-8 sequence
  ControlCharacter,  // an unescaped byte below 0x20 inside a string
  BadEscape,         // a backslash escape that is not one of \" \\ \/ \b \f \n \r \t \uXXXX
  LoneSurrogate,     // a \u escape of a UTF-16 surrogate that is not half of a pair
  TooDeep,           // arrays and objects nested deeper than the cap
};
std::string_view fault_name(JsonFault fault);  // "unexpected-end", …

struct StringScan {
  bool ok = true;
  size_t end = 0;  // ok: offset of the closing quote; else: offset of the faulty byte
  JsonFault fault = JsonFault::UnexpectedEnd;
};

// Scans a JSON string whose body starts at s[from] (just after the opening quote): escapes
// and surrogate pairs always; unescaped control characters and UTF-8 when `full` (simdjson's
// first stage has checked those already on the fast path).
StringScan scan_json_string(std::string_view s, size_t from, bool full);

// The bytes a string body (between its quotes, already checked) stands for.
std::string unescape_json_string(std::string_view body);

// A checked key whose body starts at doc[at], as a pointer token is compared with it: its raw
// bytes when it has no escape (a view into doc), else decoded into `store` (stable storage).
std::string_view json_key(std::string_view doc, size_t at, std::deque<std::string>& store);

// A UTF-8 byte order mark at the start: RFC 8259 §8.1 lets a parser skip it, and jsonq does.
inline size_t bom_length(std::string_view s) { return s.starts_with("\xEF\xBB\xBF") ? 3 : 0; }

struct JsonSyntaxError {
  size_t offset = 0;  // the first byte at which no continuation can make the text JSON, or the
                      // length of the text when it ends too early
  JsonFault fault = JsonFault::UnexpectedByte;
  std::string_view expected;  // what could have come there, for a person ("',' or ']'")
};

// Checks `doc` strictly against RFC 8259 (after an optional BOM), byte by byte, with arrays and
// objects nested at most `max_depth` deep. nullopt when it is one JSON value. This is the slow
// path: jsonq runs it only to say where a document simdjson refused goes wrong.
std::optional<JsonSyntaxError> find_json_error(std::string_view doc, size_t max_depth);

// The byte at `at` as a person reads it: 'x', \xnn (as contract::printable), or "the end".
std::string shown_byte(std::string_view doc, size_t at);

// What is wrong, for a person: "']' where a value should come".
std::string describe_json_error(std::string_view doc, const JsonSyntaxError& e,
                               size_t max_depth);

struct LineColumn {
  uint64_t line = 1;    // 1-based; lines end at '\n'
  uint64_t column = 1;  // 1-based, in bytes from the start of the line
};
LineColumn line_column(std::string_view doc, size_t offset);

}  // namespace text
