// writer.h — what the tools that change files (write, replace, edit, move) do alike once they
// run: the limit.input-too-large error and its retry, the lock of a call that writes, the
// target opened under it, several targets locked and told apart, and the diff at the end of
// an answer. The rows of their tables are in writer/table.h.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contract/context.h"
#include "mem/big_alloc.h"
#include "os/dir_lock.h"
#include "os/place.h"
#include "os/temp_file.h"
#include "os/whole_file.h"
#include "os/write_error.h"
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

// A small input held whole (an edits list): the file at `path` beneath the root, or standard
// input when there is none, at most max_bytes. Past the cap, over(size, exact) makes the error
// (not exact: standard input ran past the ceiling, which is the size given); that and any
// other error go to ctx, and nothing is returned.
std::optional<std::string> read_input(
    const std::optional<std::string>& path, uint64_t max_bytes, contract::Context& ctx,
    const std::function<contract::Error(uint64_t size, bool exact)>& over);

// The call parsed cleanly (every token a flag, a flag's value, "--", or an operand): the argv
// indices of its operands.
std::vector<size_t> operand_tokens(const contract::Context& ctx);

// args.conflict for each path named again after its first time: it would be checked twice
// against the same bytes. With `retry`, the repair is the call with the later ones left out
// (when every operand token can be told); otherwise none, saying `instead`.
std::vector<contract::Error> named_twice(const std::vector<std::string>& paths,
                                         const contract::Context& ctx, bool retry,
                                         std::string_view instead);

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

// The places of a call over several paths (null: a path not placed): their directories
// locked (lock_each; none in a dry run, which changes nothing), and for each path that names
// the entry an earlier one names (named_before) the args.conflict refusing it: "'P' is
// <again>'Q' again.", repaired as `repair` says.
struct Held {
  std::vector<os::DirLock> locks;
  std::vector<std::optional<contract::Error>> twice;
  bool any_twice = false;
};
struct Twice {
  std::string_view again;   // "the file " or ""
  std::string_view repair;  // what to do instead
};
os::Result<Held> hold_all(const std::vector<const os::Place*>& places,
                          const std::vector<std::string>& paths, bool dry_run, Twice words);

// For each place, the index of an earlier one naming the same entry (same directory, same
// name: two spellings of one path), or nothing. Null places are skipped.
std::vector<std::optional<size_t>> named_before(std::span<const os::Place* const> places);

// The regular file at a place, opened for reading: io.not-found, or the wrong kind.
os::Result<os::Opened> open_file(const os::Place& place, const std::string& path);

// A target opened under the lock, read whole (into a huge-page buffer, os/atomic.h says why)
// and hashed as it arrives, when it is at most max_bytes; else only its size (kept false).
struct Whole {
  mem::Bytes bytes;
  std::string sha256;
  uint64_t size = 0;
  bool kept = false;
};
os::Result<Whole> read_file(const os::Opened& file, const std::string& path, uint64_t max_bytes);

// The size of the regular file at path beneath the root (lstat, nothing read), 0 if none.
uint64_t file_size(int root_fd, const std::string& path);

// The hash a caller states for an entry: a file's content, a symbolic link's target text (a
// link is never followed, so its text is what it is); anything else is the wrong kind.
os::Result<std::string> entry_sha256(const os::Place& place, const os::Entry& e);

// An entry's kind as answers name it: file, symlink, directory, other, missing.
std::string_view kind_name(os::Entry::Kind k);

// Replacing a file: its permission bits and sticky bit (set-id bits do not survive a content
// change) and its owner are kept.
os::CommitOptions replacing(const struct stat& st);

// The steps a dry run plans for a file's new content (none when nothing changes).
contract::Json planned(const os::Place& place, const std::string& path, bool changed,
                       const std::string& before, const std::string& after, uint64_t bytes);

// Paths as text_or_bytes, as parents_created lists them.
contract::Json paths_json(const std::vector<std::string>& paths);

// What cut a diff short (the answer's `cut`): null, "max-diff-lines" (it lists that many
// lines) or "max-diff-bytes".
contract::Json diff_cut(const contract::Json& diff, bool truncated, uint64_t max_lines);


}  // namespace writer
