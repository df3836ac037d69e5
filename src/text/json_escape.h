// json_escape.h — a JSON string's contents escaped as contract::JsonWriter escapes them (the
// minimal set: '"', '\\' and the control bytes), fast over the long runs that need no escape
// (run's captured streams, often most of its answer), and the way back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace text {

// Appends `v` (valid UTF-8) JSON-escaped, without the quotes.
void append_json_escaped(std::string& out, std::string_view v);

// The offsets of the bytes of `v` (shorter than 4 GiB) that need an escape, appended to `at`;
// returns how many bytes escaping them adds (1 for \" \\ \n \r \t \b \f, 5 for \u00XX). The
// search is vectorised (AVX2 where the CPU has it, else SSE2; plain bytes elsewhere): bytes of
// multi-byte UTF-8 sequences never need an escape, so it needs no decoding.
size_t json_escapes(std::string_view v, std::vector<uint32_t>& at);

// Escapes p[0..n) in place, given json_escapes's offsets and growth for them: p has room for
// n + growth bytes. Only the bytes after the first escape move, once.
void json_escape_in_place(char* p, size_t n, const std::vector<uint32_t>& at, size_t growth);

// Undoes the escape in place over `p[0..n)` (which holds only what the escapes above write);
// returns the bytes of the original.
size_t json_unescape_in_place(char* p, size_t n);

}  // namespace text
