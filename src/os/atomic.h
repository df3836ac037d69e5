// atomic.h — the machinery every tool that changes files stands on (CONTRACT.md §7): where a
// file lives (its directory, opened beneath the root following no link, and its name), a lock
// that serializes tack writers, and the two ways a name changes — an atomic replace through a
// temporary file, and a rename that never replaces anything.
//
// A call goes: open_place → lock (not in a dry run) → look / open_existing (the precondition
// is checked under the lock, on the very descriptors the change then uses) → commit_file (or
// TempFile, for content written in pieces) or rename_noreplace. Nothing here hashes (os/hash
// does, in the tool), so this unit links without libcrypto. It also has the memory the
// writers hold whole files in (big_alloc, Bytes, read_whole: see "Whole files in memory").
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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contract/error.h"
#include "contract/json.h"
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
// A dry run's planned actions for a whole-file write of `path` (before: null for a create):
// the stale temporary a real call would remove first, then the create or replace itself.
contract::Json planned_write(const Place& place, std::string_view path,
                             const std::optional<std::string>& before, const std::string& after,
                             uint64_t bytes);

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

// The temporary file of one change, for content that is produced in pieces (replace streams
// the file it rewrites and never holds the result whole). create() makes it (O_CREAT|O_EXCL|
// O_NOFOLLOW beneath the directory descriptor; a stale one is removed first), write() appends
// (small pieces are gathered into one system call), commit() gives it the owner and mode,
// fsyncs it, renames it over the name (renameat) or onto a name that must not exist
// (renameat2 RENAME_NOREPLACE: conflict.exists if it appeared meanwhile; io.rename-unsupported
// where the filesystem cannot refuse, never a replacing fallback), then fsyncs the directory.
// Destroyed uncommitted (an error, an early return) it is removed: the target is untouched.
// Whatever kills the process, the target is the old or the new content. Under lock() only.
// Errors: io.write-failed (detail: stage, errno), conflict.exists, io.rename-unsupported.
class TempFile {
 public:
  static Result<TempFile> create(const Place& place, const CommitOptions& opt);
  TempFile(TempFile&& o) noexcept;
  TempFile& operator=(TempFile&&) = delete;
  TempFile(const TempFile&) = delete;
  ~TempFile();

  std::optional<contract::Error> write(std::string_view bytes);
  // Asks the kernel to start writing what was written so far to the device (sync_file_range
  // SYNC_FILE_RANGE_WRITE, which waits for nothing), so that the device works while the
  // caller computes (write's diff) and the fsync in commit() finds less left to do. Only an
  // early start: durability still comes from commit()'s fsync. Also done every 8 MiB.
  void start_writeback();
  std::optional<contract::Error> commit();

 private:
  TempFile(const Place& place, const CommitOptions& opt, int fd);
  std::optional<contract::Error> flush();
  contract::Error fail(int err, std::string_view stage);

  const Place* place_;
  CommitOptions opt_;
  int fd_ = -1;
  bool exists_ = false;  // the temporary name is ours to remove
  std::string pending_;  // small pieces not yet written
  uint64_t written_ = 0, started_ = 0;
};

// TempFile in one piece: create, write `content`, commit.
std::optional<contract::Error> commit_file(const Place& place, std::string_view content,
                                           const CommitOptions& opt);

// Renames from's name to to's name, never replacing (renameat2 RENAME_NOREPLACE), then fsyncs
// both directories. A link is renamed as itself. Errors: conflict.exists,
// io.rename-unsupported (no RENAME_NOREPLACE, or the two are on different filesystems),
// io.permission-denied, io.write-failed.
std::optional<contract::Error> rename_noreplace(const Place& from, const Place& to);

// --- Whole files in memory ----------------------------------------------------------------
//
// The writers hold whole files (write's content and the file it replaces) and the diff's
// tables, and where tack runs under a hypervisor the first touch of every fresh 4 KiB page is
// most of what such a call costs: measured on this project's KVM guest, 8 MiB touched page by
// page cost 24-40 ms of CPU, the same 8 MiB in 2 MiB transparent huge pages 0.8 ms (a 1 MiB
// write touched 1300 fresh pages, about 20 ms of its 40). So a large buffer is an anonymous
// mapping of its own, 2 MiB-aligned and advised MADV_HUGEPAGE, given back whole when freed.
// The advice is a hint: where THP is off it is ordinary pages, as malloc would have given.
// Below kBigAlloc bytes, malloc: a huge page would cost more than the pages it saves.
inline constexpr size_t kBigAlloc = 256 * 1024;
void* big_alloc(size_t bytes) noexcept;  // nullptr when the memory is not there
void big_free(void* p, size_t bytes) noexcept;

template <class T>
struct BigAllocator {
  using value_type = T;
  BigAllocator() = default;
  template <class U>
  BigAllocator(const BigAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    void* p = big_alloc(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept { big_free(p, n * sizeof(T)); }
  friend bool operator==(const BigAllocator&, const BigAllocator&) { return true; }
};
template <class T>
using BigVector = std::vector<T, BigAllocator<T>>;

// Bytes in a big_alloc buffer that is never zero-filled: read() writes straight into it.
class Bytes {
 public:
  Bytes() = default;
  Bytes(Bytes&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), size_(std::exchange(o.size_, 0)),
        cap_(std::exchange(o.cap_, 0)) {}
  Bytes& operator=(Bytes&& o) noexcept;
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  ~Bytes() { release(); }

  char* data() { return p_; }
  const char* data() const { return p_; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {p_, size_}; }
  // At least n bytes of room, the contents kept; false when the memory is not there.
  bool reserve(size_t n);
  // The first n bytes (n <= capacity) are the contents: the caller has written them.
  void set_size(size_t n) { size_ = n; }
  bool append(std::string_view s);
  void release();

 private:
  char* p_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

struct WholeFile {
  uint64_t bytes = 0;  // bytes read, the whole file
  bool kept = false;   // they are in *keep
};

// Reads an open file from offset 0 to its end with pread (its position untouched), handing
// every piece to `each` in order as it arrives (to hash it while it is in the cache). When
// `keep` is given and the file is no larger than keep_max, its bytes are left in *keep (kept:
// true), read straight into a buffer sized once from fstat (the size is only a hint: a file
// that grows meanwhile is followed); a larger file is read in bounded memory and *keep is
// emptied. io.read-failed (or io.permission-denied...) naming `shown`.
Result<WholeFile> read_whole(int fd, std::string_view shown, Bytes* keep, uint64_t keep_max,
                             const std::function<void(std::string_view)>& each);

// After a failure: removes, deepest first, the directories open_place made for this call,
// where they are still empty (unlinkat AT_REMOVEDIR on the descriptor each was made in).
// Best effort; nothing else is ever removed.
void undo_parents(Place& place);

// A failed write-side system call on `shown` → io.write-failed (io.permission-denied for
// EACCES, EPERM, EROFS; io.not-found for ENOENT: the directory vanished meanwhile), detail
// {path, stage, errno}.
contract::Error write_error(int err, std::string_view shown, std::string_view stage);

}  // namespace os
