// diff.h — the structured line diff every tool that changes a file returns (CONTRACT.md §7):
// hunks with 3 lines of context as `diff -u` finds them, so an agent sees what it did without
// reading the file again.
//
// Lines are the bytes between '\n's; a last line without '\n' is a line whose `newline` is
// false, and it differs from the same text with one (diff -u's "\ No newline at end of
// file"). The comparison is of raw bytes, '\r' included: a CRLF file turned LF is a change of
// every line. The JSON shows each line under the eol policy (TOOLS.md) of the file it comes
// from — a '-' line under the old file's, '+' and ' ' lines under the new file's — and names
// both policies, so the shown lines plus `old_eol`/`new_eol` give back the exact bytes. A
// file's UTF-8 BOM likewise is not shown as part of its line 1 (readers show it so) but
// named by `old_bom`/`new_bom`: a BOM added or removed is line 1 changed, with the reason.
//
// The edit script is Myers' O(ND) algorithm in linear space (the middle-snake bisection, as in
// diff-match-patch), on interned line ids, after setting aside the lines that have no equal on
// the other side (they cannot be kept) and trimming the common head and tail. Work is
// bounded: past `budget` steps a remaining piece is reported as removed-then-added whole. The
// result is then still exact (applying it gives the new content), only not minimal; the budget
// is counted in steps, not time, so the answer is the same on every machine.
//
// Cost. The common head and tail are cut off as bytes before any line is split (keeping the
// `context` lines the hunks show), so an edit in one place of a large file costs a compare of
// the bytes and the work of the changed lines only; a side that is empty (a new file) is
// listed without any table. What is split costs about 24 bytes per line (an offset, an id, a
// mark, a map entry, Myers' V) plus the intern table, in one huge-page buffer per region (on a
// VM, a dozen middle-sized malloc blocks faulting in 4 KiB at a time cost more than the diff).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "contract/json.h"
#include "text/eol.h"

namespace text {

struct DiffLine {
  char op = ' ';          // ' ' kept, '-' removed, '+' added
  std::string_view text;  // the raw line without '\n' ('\r' kept); views into the inputs
  bool newline = true;    // false: the last line of its file, without '\n'
};

struct Hunk {
  // As in diff -u: 1-based first line; when a side has no lines, the line after which the
  // change sits (0 at the top of the file).
  uint64_t old_start = 0, old_lines = 0, new_start = 0, new_lines = 0;
  std::vector<DiffLine> lines;
};

struct DiffOptions {
  size_t context = 3;
  uint64_t max_lines = UINT64_MAX;  // lines listed in all hunks together
  uint64_t max_bytes = 1 << 20;     // bytes of line text listed in all hunks together
  uint64_t budget = 20'000'000;     // Myers steps before the coarse fallback
};

struct Diff {
  uint64_t added = 0, removed = 0;  // whole counts, whatever was listed
  std::vector<Hunk> hunks;          // listed hunks; a hunk cut by a cap is cut consistently:
                                    // its header counts the lines it lists
  bool truncated = false;           // a cap left changed lines (or context) unlisted
  Eol old_eol = Eol::None, new_eol = Eol::None;
  bool old_bom = false, new_bom = false;  // the file starts with a UTF-8 BOM
  // The listed text of regions added with copy (DiffBuilder): what their DiffLines view.
  std::vector<std::unique_ptr<std::string>> owned;
};

// The diff from `old_text` to `new_text`. DiffLine views point into both inputs, which must
// outlive the result.
Diff diff_lines(std::string_view old_text, std::string_view new_text, const DiffOptions& opt = {});
// The same, for a caller that tallied both texts' line-ending policies as it read them (an
// EolTally): they are not counted again, two passes over each text fewer. They must be the
// texts' own (what the overload above finds).
Diff diff_lines(std::string_view old_text, std::string_view new_text, const DiffOptions& opt,
                Eol old_eol, Eol new_eol);

// The diff of two files given as the regions in which they differ, for a caller that never
// holds both files whole (replace streams the file it rewrites). Each region is a run of whole
// lines of each file (it starts where a line starts and ends after a '\n' or at the end of
// the file), `old_before`/`new_before` lines into each; everything between the regions is
// equal in both files. Regions come in file order, and should carry `context` equal lines on
// each side of their changes (the hunks take their context from within the region). Regions
// that touch (one ends where the next starts) must be given as one: then the hunks are those
// diff_lines finds for the whole files, save that Myers, run on each region alone, may align
// a change differently where an identical line repeats across a long equal stretch (the
// script is exact either way). Caps and the step budget apply across all regions.
class DiffBuilder {
 public:
  explicit DiffBuilder(const DiffOptions& opt = {});
  // copy: the listed lines are copied into the result, so the region's buffers may go after
  // the call; otherwise they are views into the region, which must outlive the result.
  void add(std::string_view old_region, std::string_view new_region, uint64_t old_before,
           uint64_t new_before, bool copy = true);
  Diff finish(Eol old_eol, Eol new_eol, bool old_bom, bool new_bom) &&;

 private:
  DiffOptions opt_;
  Diff out_;
  uint64_t listed_ = 0, listed_bytes_ = 0, budget_;
};

// Line endings counted over a text given in pieces (a file read in chunks): a '\n' with a
// '\r' right before it, in its piece or at the end of the previous one, is CRLF. result() is
// what EolCounter gives for the same bytes split into lines.
class EolTally {
 public:
  void add(std::string_view piece);
  Eol result() const;
  uint64_t newlines() const { return crlf_ + lf_; }  // every '\n' so far

 private:
  uint64_t crlf_ = 0, lf_ = 0;
  bool cr_ = false;  // the last byte so far was '\r'
};

// `old_text` with the hunks applied (raw lines). For a diff that was not truncated this is
// exactly the new text; false when a hunk does not fit `old_text`.
bool apply(std::string_view old_text, const Diff& diff, std::string& out);

// {"added","removed","old_eol","new_eol","old_bom","new_bom","hunks":[{"old_start","old_lines","new_start",
//  "new_lines","lines":[{"op","text"[,"no_newline":true]}]}]}; text is text_or_bytes.
// Its JSON Schema is src/text/diff.schema.json, which the writers' schemas refer to.
contract::Json diff_json(const Diff& diff);

// diff -u's body for a person: "@@ -a,b +c,d @@", then op + shown text per line, and
// "\ No newline at end of file" after a line without one.
void render_diff(const contract::Json& diff, std::string& out);

}  // namespace text
