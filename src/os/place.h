// place.h — where a file that is about to change lives: its directory, opened beneath the
// root following no link (with --parents made or planned), and its name in it; what stands at
// the name, looked at without following it; and the file there opened for reading.
//
// A change goes: open_place → lock (os/dir_lock.h; not in a dry run) → look / open_existing
// (the precondition is checked under the lock, on the very descriptors the change then uses)
// → TempFile (os/temp_file.h) or rename_noreplace (os/rename_noreplace.h).
// Nothing here hashes (os/hash does, in the tool), so these units link without libcrypto.
#pragma once

#include <sys/stat.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contract/error.h"
#include "os/open.h"

namespace os {

// The directory that holds (or will hold) a file, and the file's name in it.
struct Place {
  Fd dir;  // the directory, O_RDONLY (flock and fsync need a real descriptor)
  struct stat dir_st {};
  std::string path;    // the path as checked (relative to the root, or as given without one)
  std::string parent;  // its directory part, "." for a name at the top
  std::string name;    // the last component: never empty, "." or ".."
  // --parents: directories made by this call (created), or in a dry run the ones that would
  // be (missing; then `dir` is not open and the name certainly does not exist yet). Paths as
  // `path` is spelled.
  std::vector<std::string> created, missing;
  // Where each created directory was made (the descriptor it was made beneath, and its
  // name), for undo_parents.
  std::vector<std::pair<Fd, std::string>> made;
  bool planned_only() const { return !dir.valid(); }
};

enum class Parents { Refuse, Make, Plan };

// Opens the directory of `path` (a path from check_path). With root_fd >= 0 it is resolved
// beneath the root following no symbolic link (path.symlink); without a root the directory
// part is opened as given and only the file's own name is never followed. Parents::Make
// creates missing directories one component at a time beneath the root (mkdirat on the
// descriptor of the last, each one then opened following no link, so a link swapped in is
// refused, never followed); Parents::Plan only lists them (dry run: no mkdir).
// Errors: path.symlink, io.not-found, io.not-a-directory, io.permission-denied,
// io.is-a-directory (the path names the root or ends in `.`/`..`), io.write-failed (mkdir).
Result<Place> open_place(int root_fd, std::string_view path, Parents parents);

// After a failure: removes, deepest first, the directories open_place made for this call,
// where they are still empty (unlinkat AT_REMOVEDIR on the descriptor each was made in).
// Best effort; nothing else is ever removed.
void undo_parents(Place& place);

// What the name is, without following it.
struct Entry {
  enum class Kind { Missing, File, Link, Directory, Special };
  Kind kind = Kind::Missing;
  struct stat st {};
};
Result<Entry> look(const Place& place);

// The error for an entry of the wrong kind where a regular file is wanted: path.symlink (with
// the link's target text in detail), io.is-a-directory, io.special-file.
contract::Error wrong_kind(const Place& place, const Entry& e);

// Opens the regular file at the name for reading (O_NOFOLLOW|O_NONBLOCK, then fstat): a link
// is path.symlink, a directory io.is-a-directory, a FIFO or device io.special-file.
Result<Opened> open_existing(const Place& place);

}  // namespace os
