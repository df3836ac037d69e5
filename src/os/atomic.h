// atomic.h — the machinery every tool that changes files stands on (CONTRACT.md §7): where a
// file lives (its directory, opened beneath the root following no link, and its name), a lock
// that serializes tack writers, and the two ways a name changes — an atomic replace through a
// temporary file, and a rename that never replaces anything.
//
// A call goes: open_place → lock (not in a dry run) → look / open_existing (the precondition
// is checked under the lock, on the very descriptors the change then uses) → commit_file or
// rename_noreplace. Nothing here hashes (os/hash does, in the tool), so this unit links
// without libcrypto.
//
// The lock is flock(LOCK_EX) on the target's directory, not on the target nor on a lock file:
//  * a lock file would be litter, and survives a kill -9;
//  * the target is replaced by rename, so a writer that waited on the old inode's lock would
//    then check a file that is no longer the one at the name (a lost update), and a name
//    that does not exist yet (--create) has no inode to lock at all;
//  * the directory's inode is what every writer of any name in it resolves through, it
//    exists before the file does, and flock is released by the kernel when the holder dies.
// The price is that two tack writers of different files in one directory take turns, for the
// few milliseconds a write lasts. The lock is advisory: it orders tack writers among
// themselves; a writer that does not take it is still never silently overwritten by --create
// (RENAME_NOREPLACE) but can race --if-sha256.
#pragma once

#include <sys/stat.h>

#include <optional>
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

// Holds flock(LOCK_EX) on one or two directories until destroyed (or until the process dies:
// the kernel drops it). Two places in one directory are locked once (two open descriptions
// of the same directory would wait on each other); two directories are locked in inode order,
// so two movers crossing the same pair cannot each hold one and wait for the other.
class DirLock {
 public:
  DirLock() = default;
  DirLock(DirLock&&) noexcept = default;
  DirLock& operator=(DirLock&&) noexcept = default;
  ~DirLock();

 private:
  friend Result<DirLock> lock(const Place&, const Place*);
  std::vector<int> fds_;  // borrowed from the places, which outlive the lock
};

// Waits a bounded while (about a second, in growing steps: no clock is read) for the lock;
// then conflict.locked, repair none, naming the directory. Once held, the stale temporary
// file of each place's name (see temp_name) is removed: the next call that locks cleans up
// after a writer that was killed, whether or not it changes anything itself.
Result<DirLock> lock(const Place& a, const Place* b = nullptr);

// The temporary file's name for `name`: ".NAME.tack-tmp" (NAME cut to fit NAME_MAX). One
// fixed name per target is enough because it is only ever created under the directory lock;
// a temp file found there is therefore stale (its writer was killed) and is removed first.
std::string temp_name(std::string_view name);
// True when the stale temporary file of `name` exists (for a dry run's plan).
bool has_stale_temp(const Place& place);

enum class Replace { Allow, Never };

struct CommitOptions {
  Replace replace = Replace::Allow;
  // The mode to give the new file; nullopt for a new file: 0644 minus the umask (the kernel
  // applies it at creation, as for any file a program creates).
  std::optional<mode_t> mode;
  // Keep the owner and group of the file replaced where the OS allows (root, or the same
  // owner); otherwise the new file is the writer's, as with any rename-based editor.
  std::optional<std::pair<uid_t, gid_t>> owner;
};

// Writes `content` to the temporary file (O_CREAT|O_EXCL|O_NOFOLLOW beneath the directory
// descriptor), fsyncs it, sets its mode, renames it over the name (renameat) or onto a name
// that must not exist (renameat2 RENAME_NOREPLACE: conflict.exists if it appeared meanwhile;
// io.rename-unsupported where the filesystem cannot refuse, never a replacing fallback), then
// fsyncs the directory. On any failure before the rename the temporary file is removed and
// the target is untouched; whatever kills the process, the target is the old or the new
// content. Must be called under lock(). Errors: io.write-failed (detail: stage, errno),
// conflict.exists, io.rename-unsupported.
std::optional<contract::Error> commit_file(const Place& place, std::string_view content,
                                           const CommitOptions& opt);

// Renames from's name to to's name, never replacing (renameat2 RENAME_NOREPLACE), then fsyncs
// both directories. A link is renamed as itself. Errors: conflict.exists,
// io.rename-unsupported (no RENAME_NOREPLACE, or the two are on different filesystems),
// io.permission-denied, io.write-failed.
std::optional<contract::Error> rename_noreplace(const Place& from, const Place& to);

// After a failure: removes, deepest first, the directories open_place made for this call,
// where they are still empty (unlinkat AT_REMOVEDIR on the descriptor each was made in).
// Best effort; nothing else is ever removed.
void undo_parents(Place& place);

// A failed write-side system call on `shown` → io.write-failed (io.permission-denied for
// EACCES, EPERM, EROFS; io.not-found for ENOENT: the directory vanished meanwhile), detail
// {path, stage, errno}.
contract::Error write_error(int err, std::string_view shown, std::string_view stage);

}  // namespace os
