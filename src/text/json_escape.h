// json_escape.h — a JSON string's contents escaped as contract::JsonWriter escapes them, fast
// over the long runs that need no escape (run's captured streams, often most of its answer).
#pragma once

#include <string>
#include <string_view>

namespace text {

// Appends `v` (valid UTF-8) JSON-escaped, without the quotes.
void append_json_escaped(std::string& out, std::string_view v);

}  // namespace text
