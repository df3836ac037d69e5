// near_miss.h — replace's text as matched, and where a needle found nowhere nearly is.
//
// In a CRLF file the caller's "\n" and "\r\n" both mean a line ending: the text is matched in
// the file's own form (raw_form), and the near-miss search, an error path only, works on a
// view of the text with each "\r\n" as "\n" (to_view). Pure functions, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "contract/json.h"
#include "text/eol.h"

namespace text {

// The most near misses listed.
inline constexpr size_t kMaxNear = 10;

// A CRLF text without the '\r' of each "\r\n" (then every '\n' in it stands for "\r\n"); any
// other text as it is. from_view is the way back.
std::string to_view(std::string_view body, Eol eol);
std::string from_view(std::string_view view, Eol eol);

// A text as a file stores it: in a CRLF file (crlf) every line ending as "\r\n", elsewhere the
// bytes as given. Matching it in the file's bytes finds what matching the caller's text in the
// view would, except a match whose last byte is the '\r' of a "\r\n" (the caller drops those).
std::string raw_form(std::string_view text, bool crlf);

// The whole lines of `view` spanning [from, to), and the first one's number (1-based).
std::pair<uint64_t, std::string> lines_around(std::string_view view, size_t from, size_t to);

// Near misses of `needle` in `view` (both as matched): places that match once blanks are
// ignored ("whitespace"), and places a needle holding literal "\n"/"\t" escapes would match
// with the real characters ("escaped-newline"). At most kMaxNear, one per line, each
// {line, text, why} with the exact lines there.
contract::Json near_misses(std::string_view view, std::string_view needle);

// near_misses over a whole file's text (with its BOM, if `bom`) and the caller's --old.
contract::Json near_of(std::string_view text, bool bom, Eol eol, std::string_view old_text);

}  // namespace text
