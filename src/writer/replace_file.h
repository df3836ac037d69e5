// replace_file.h — replace's edits applied to one file, opened under the lock: one edit
// streamed (the file read twice in windows and written in pieces, never held whole: see
// replace_stream.h), a list of edits in memory, each applied to the result of the one before
// (text::apply_edits). Matching works on the file's own bytes, the caller's texts put in the
// file's line-ending form (raw_form), not on a converted copy of the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contract/context.h"
#include "mem/big_alloc.h"
#include "os/dir_lock.h"
#include "os/place.h"
#include "os/temp_file.h"
#include "os/whole_file.h"
#include "os/write_error.h"
#include "os/open.h"
#include "text/edits.h"
#include "writer/journal.h"

namespace writer {

// One file's part of a call. A call of several files checks each as a dry run first, then
// writes each with must_be, the hash the check read, so a file changed in between by a writer
// that ignores tack's lock is refused rather than changed unchecked.
struct ReplaceJob {
  std::string path;
  std::optional<std::string> if_sha256;
  bool dry_run = false;
  uint64_t max_bytes = 0;
  uint64_t max_diff_lines = 0;
  uint64_t max_diff_bytes = 0;
  std::optional<std::string> must_be;
  Recorder* journal = nullptr;  // the change is staged in it before it is committed
};

// What the edits found and did (or, in a dry run, would do).
struct Replaced {
  bool changed = false;
  bool already = false;  // every edit was found done: a repeat of a call that landed
  uint64_t replacements = 0;
  std::string before, after;  // SHA-256 of the file before and after
  uint64_t bytes = 0;         // the size after
  contract::Json diff;        // text::diff_json
  bool diff_truncated = false;
};

// The edits applied to the file (written unless a dry run), or the error refusing them all.
// `listed`: the edits came as a list, so a refusal names the edit's index.
os::Result<Replaced> replace_in_file(const ReplaceJob& job, const contract::Context& ctx,
                                     const os::Place& place, const os::Opened& file,
                                     const std::vector<text::ReplaceEdit>& edits, bool listed);

}  // namespace writer
