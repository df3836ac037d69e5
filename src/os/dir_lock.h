// dir_lock.h — the lock that serializes tack writers: flock(LOCK_EX) on the target's
// directory, not on the target nor on a lock file:
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

#include <vector>

#include "os/open.h"
#include "os/place.h"

namespace os {

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
// file of each place's name (see temp_name in os/temp_file.h) is removed: the next call that
// locks cleans up after a writer that was killed, whether or not it changes anything itself.
Result<DirLock> lock(const Place& a, const Place* b = nullptr);

}  // namespace os
