// json_bytes.h — JSON at the byte level: the checks simdjson's On-Demand API leaves to its
// caller (number grammar, string escapes), the string reader jsonq and the edits lists share,
// and the locator that finds where a document stops being JSON. No I/O, no simdjson.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace text {

inline bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
// 0-15 for a hex digit of either case, else -1.
inline int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

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

// The place of each of `offsets` (ascending, each at most doc.size()), in one pass over the
// bytes before the last.
std::vector<LineColumn> line_columns(std::string_view doc, const std::vector<size_t>& offsets);

}  // namespace text
