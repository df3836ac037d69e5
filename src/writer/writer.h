// writer.h — what the tools that change files (write, replace, edit, move) do alike once they
// run: the limit.input-too-large error and its retry, the lock of a call that writes, the
// target opened under it, several targets locked and told apart, and the diff at the end of
// an answer. The rows of their tables are in writer/table.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contract/main.h"
#include "os/atomic.h"
#include "os/open.h"

namespace writer {

// An input past --max-bytes: `what` (as the message names it) is `bytes` long (at least, when
// not exact). The detail starts with `where` ({"source": …} or {"path": …}).
struct Oversize {
  contract::Json where;
  std::string what;
  uint64_t bytes = 0;
  bool exact = true;
  bool say_exact = true;  // detail.exact is given
  uint64_t max_bytes = 0;
  uint64_t need = 0;                      // the cap the retry asks for, if more than bytes
  std::string_view larger = "the input";  // what the repair says is past the ceiling
};

// limit.input-too-large; its repair is the retry with the cap it needs (retry_max_bytes).
contract::Error too_large(const Oversize& o, const contract::Context& ctx);

// Repairs a limit.input-too-large with the call again under --max-bytes `need`, when it is
// exact and within the ceiling; else repair none, saying `larger` is past the ceiling.
void retry_max_bytes(contract::Error& e, uint64_t need, bool exact, std::string_view larger,
                     const contract::Context& ctx);

// args.bad-value for a hash flag that is not 64 hex digits; `value` goes in detail when given.
contract::Error bad_hex(std::string_view flag, const std::string* value = nullptr);

// The lock of a call that writes to the directory of `a` (and `b`); a dry run takes none: it
// changes nothing, so no writer waits on it.
os::Result<os::DirLock> lock_unless_dry(bool dry_run, const os::Place& a,
                                        const os::Place* b = nullptr);

// Every directory of `places` locked once, in (device, inode) order as os::lock orders two:
// two calls over the same directories cannot each hold one and wait for the other. Null
// places are skipped.
os::Result<std::vector<os::DirLock>> lock_each(std::vector<const os::Place*> places);

// For each place, the index of an earlier one naming the same entry (same directory, same
// name: two spellings of one path), or nothing. Null places are skipped.
std::vector<std::optional<size_t>> named_before(std::span<const os::Place* const> places);

// The regular file at a place, opened for reading: io.not-found, or the wrong kind.
os::Result<os::Opened> open_file(const os::Place& place, const std::string& path);

// The size of the regular file at path beneath the root (lstat, nothing read), 0 if none.
uint64_t file_size(int root_fd, const std::string& path);

// Replacing a file: its permission bits and sticky bit (set-id bits do not survive a content
// change) and its owner are kept.
os::CommitOptions replacing(const struct stat& st);

// The steps a dry run plans for a file's new content (none when nothing changes).
contract::Json planned(const os::Place& place, const std::string& path, bool changed,
                       const std::string& before, const std::string& after, uint64_t bytes);

// Paths as text_or_bytes, as parents_created lists them.
contract::Json paths_json(const std::vector<std::string>& paths);

// The end of an answer's text: its diff, and a mark when the diff was cut.
void render_diff_of(const contract::Json& data, std::string& out);

}  // namespace writer
