// edit_file.h — edit's line edits applied to one file, opened under the lock, streamed and
// never held whole (edit_stream.h). Pass 1 hashes the file and finds the lines each witness
// may name. Usually that settles it (text::WitnessSearch::known), and pass 2 only writes the
// new file. Otherwise pass 2 also settles which lines the witnesses name, writing the lines
// pass 1 found likely as it goes; only when those were wrong (rarely) does a third pass
// write the file. A refusal writes nothing, and takes one more pass for the fresh witnesses
// it shows. The diff is built from the changed regions alone, read back from the file.
// Memory: a window, the candidates of each witness and the changed regions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "contract/context.h"
#include "os/open.h"
#include "os/place.h"
#include "text/edits.h"
#include "writer/journal.h"

namespace writer {

struct EditJob {
  std::string path;
  std::optional<std::string> if_sha256;
  bool dry_run = false;
  uint64_t max_bytes = 0;
  uint64_t max_diff_lines = 0;
  uint64_t max_diff_bytes = 0;
  Recorder* journal = nullptr;  // the change is staged in it before it is committed
};

// What the edits did (or, in a dry run, would do).
struct Edited {
  bool changed = false;
  std::string before, after;  // SHA-256 of the file before and after
  uint64_t bytes = 0;         // the size after
  contract::Json diff;        // text::diff_json
  bool diff_truncated = false;
};

// The edits applied to the file (written unless a dry run), or the errors refusing them all:
// one error, or a precondition.stale-witness for each edit whose witness does not name
// exactly one line of its own (with fresh witnesses of the lines around). too_large(size)
// makes the limit.input-too-large of a file past max_bytes.
std::variant<Edited, std::vector<contract::Error>> edit_file(
    const EditJob& job, const os::Place& place, const os::Opened& file,
    const std::vector<text::LineEdit>& edits,
    const std::function<contract::Error(uint64_t size)>& too_large);

}  // namespace writer
