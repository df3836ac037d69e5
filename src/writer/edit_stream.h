// edit_stream.h — the passes of edit over a file that is never held whole. Pass 1 (scan)
// reads the file in windows: its SHA-256, size, BOM, line-ending policy, the Check digest of
// replace_stream.h, and every line's hash and start into a text::WitnessSearch. Pass 2
// (rewrite) reads it again, checks that it reads the bytes pass 1 read, feeds every line's
// hash to the search's count pass when asked to, and writes the file with the cuts applied
// into the temporary file (or, in a dry run, only hashes what it would write): a writer that
// ignores tack's lock and changes the file in between makes the call fail rather than splice
// at offsets found in other bytes. Lines are numbered and hashed as peek sees them: line 1
// without its BOM; a line too long to gather is hashed as it is read back
// (text::line_hash_read). Memory: two windows of pass 1 (with at most kScanLines lines' hashes
// each) or one of pass 2, and a line gathered across windows (at most kCarry bytes), whatever
// the size of the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "os/temp_file.h"
#include "text/eol.h"
#include "text/line_edits.h"
#include "text/witness_search.h"
#include "writer/replace_stream.h"

namespace writer {

// Pass 1: what the file held. Past max_bytes (over) no more lines go to the search; the file
// is still read to its end, for the size the error names.
struct EditScan {
  std::string sha256;
  std::optional<std::pair<uint64_t, uint64_t>> check;  // Check's digest
  ShaMarks marks;                                      // the hash's snapshots (ShaMarks)
  uint64_t total = 0;
  bool bom = false, over = false;
  text::Eol eol = text::Eol::None;
};
os::Result<EditScan> scan_lines(int fd, const std::string& path, text::WitnessSearch& search,
                                uint64_t max_bytes);

// Pass 2: the file read again, its lines' hashes to search->count (none: not asked), and,
// given cuts, the file with them applied, written to tmp (none: a dry run, hashed only). The
// bytes read must be those pass 1 read (`first`), else changed_meanwhile. Without cuts the
// answer's hash is empty.
os::Result<Rewritten> rewrite_lines(int fd, const std::string& path, const EditScan& first,
                                    text::WitnessSearch* search, const std::vector<text::Cut>* cuts,
                                    os::TempFile* tmp);

}  // namespace writer
