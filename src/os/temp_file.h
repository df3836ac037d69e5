// temp_file.h — a file's new content written beside it under a temporary name, then renamed
// over the name in one step (CONTRACT.md §7): whatever kills the process, the target is the
// old or the new content, never a mix. Also what a dry run plans for such a write.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "contract/error.h"
#include "contract/json.h"
#include "os/open.h"
#include "os/place.h"

namespace os {

// The temporary file's name for `name`: ".NAME.tack-tmp" (NAME cut to fit NAME_MAX). One
// fixed name per target is enough because it is only ever created under the directory lock;
// a temp file found there is therefore stale (its writer was killed) and is removed first.
std::string temp_name(std::string_view name);
// True when the stale temporary file of `name` exists (for a dry run's plan).
bool has_stale_temp(const Place& place);
// Removes the temporary file of this name left by a killed writer (a regular file only; a
// link or anything else at the name is not ours, and is refused rather than touched:
// io.write-failed). Under lock() only.
std::optional<contract::Error> remove_stale_temp(const Place& place);
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
  // Gives the file its owner and mode and fsyncs it on a second thread, so that the wait for
  // the device overlaps what the caller does next (write's diff, the old file's hash); commit()
  // waits for it and renames only after it succeeded. Pieces still gathered in memory are
  // written first; a write() after it waits for it and leaves the fsync to commit() again.
  void sync_ahead();
  // Empties the file to write it again from the start (content first written on a guess
  // that proved wrong); a sync_ahead() under way is waited for first.
  std::optional<contract::Error> restart();
  std::optional<contract::Error> commit();

 private:
  TempFile(const Place& place, const CommitOptions& opt, int fd);
  std::optional<contract::Error> flush();
  contract::Error fail(int err, std::string_view stage);
  // The owner and mode, then the fsync: 0, or the errno and the stage that failed.
  struct Synced {
    int err = 0;
    const char* stage = "";
  };
  static Synced settle_file(int fd, const CommitOptions& opt);
  // Waits for a sync_ahead() under way; its answer, or nullopt when none was started.
  std::optional<Synced> wait_sync();

  const Place* place_;
  CommitOptions opt_;
  int fd_ = -1;
  bool exists_ = false;  // the temporary name is ours to remove
  std::string pending_;  // small pieces not yet written
  uint64_t written_ = 0, started_ = 0;
  std::future<Synced> synced_;  // sync_ahead()'s answer
};

}  // namespace os
