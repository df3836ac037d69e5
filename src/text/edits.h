// edits.h — the parser of the JSON edits lists that `replace --edits-file` and `edit` take.
// Pure (no I/O, no allocation beyond the result), so it can be fuzzed: any bytes in, either a
// list of edits or one error naming where the input went wrong.
//
//   replace: [{"old": T, "new": T, "expect": N}, …]        expect optional (1), or "all": true
//   edit:    [{"witness": "h1a2b3c", "lines": [T, …]}, …]
//
// T is a JSON string or {"b64": "…"} (the text_or_bytes the tools print), so a file that is
// not UTF-8 can be edited with the very bytes a reader showed. Unknown keys, repeated keys,
// missing keys and wrong kinds are refused rather than guessed at: an edit list is an order to
// change a file, and a misspelt "expct" must not silently mean 1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace text {

struct ReplaceEdit {
  std::string old_text, new_text;
  uint64_t expect = 1;
  bool all = false;  // every occurrence, at least one
};

struct LineEdit {
  std::string witness;             // as given ("h" + 6 hex digits, checked by the parser)
  uint32_t value = 0;              // its parsed value
  std::vector<std::string> lines;  // each without '\n'
};

struct EditsError {
  enum class Kind { Syntax, Shape };  // Syntax: not JSON (parse.json); Shape: a bad edit
  Kind kind = Kind::Syntax;
  std::string message;  // one sentence
  uint64_t offset = 0;  // Syntax: the byte offset where parsing stopped
  int64_t index = -1;   // Shape: the edit at fault (0-based), -1 for the list itself
  std::string field;    // Shape: the key at fault, empty for the edit itself
};

template <class T>
using EditsResult = std::variant<std::vector<T>, EditsError>;

// At most this many edits in one list: bounded work for a fuzzer and for the tools.
inline constexpr size_t kMaxEdits = 10000;

EditsResult<ReplaceEdit> parse_replace_edits(std::string_view json);
EditsResult<LineEdit> parse_line_edits(std::string_view json);

}  // namespace text
