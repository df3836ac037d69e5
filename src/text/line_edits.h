// line_edits.h — the algorithms of edit apart from any file: a text split into the lines
// peek numbers, where a witness that names no line most likely pointed, and the lines put in
// place of the lines edits name. Pure: no I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/edits.h"
#include "text/eol.h"

namespace text {

struct Line {
  std::string_view raw;  // without '\n', '\r' kept
  bool newline = true;   // a '\n' ends it (only the last line may lack one)
};

// The lines of a text (its BOM already off), as views into it.
std::vector<Line> split_lines(std::string_view body);

// Where a witness that resolves nowhere most likely pointed, given every line's line_hash: a
// line whose window hash at some radius in [kMinRadius, kMaxRadius] equals it (its
// neighbourhood is intact but the radius that makes it unique moved). -1 when there is none.
int64_t nearest_witness(std::span<const uint64_t> hashes, uint32_t value);

// The text again (with a BOM when bom) with each line that edit_of names replaced by the
// edit's lines (none: the line deleted). New lines end as the file's lines do: "\r\n" in a
// CRLF file (eol); in a mixed file as the replaced line did. The last line keeps its missing
// final newline.
std::string apply_line_edits(const std::vector<Line>& lines,
                             const std::vector<const LineEdit*>& edit_of, Eol eol, bool bom);

}  // namespace text
