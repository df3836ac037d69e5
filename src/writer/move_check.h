// move_check.h — what move decides under the lock before it renames: the tombstone beside a
// path (--remove), and whether the source is still what the caller read, already moved (a
// retry that landed), gone, or unhashable.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "contract/error.h"
#include "os/place.h"
#include "writer/journal.h"

namespace writer {

// `.NAME.removed-` + 8 hex of `expect`, beside PATH, NAME cut to its first 237 bytes where it
// is longer (so the tombstone is a name any filesystem holds: 255 bytes).
std::string tombstone_of(const os::Place& from, const std::string& expect);

// What a move finds under the lock: PATH gone and the destination hashing to `expect` (a retry
// that landed; without `expect` nothing shows that, so PATH is not found), or the entries at
// both; or the
// error refusing it: PATH gone otherwise, or not hashing to `expect` (`verb` says what was not
// done). Whether the destination is free is the caller's to judge.
struct Looked {
  bool landed = false;
  os::Entry s, d;
};
os::Result<Looked> judge(const os::Place& from, const os::Place& to, const std::string& path,
                         const std::string& to_path, const std::optional<std::string>& expect,
                         bool remove, std::string_view verb);

// The journal's record of a rename (a --remove: to its tombstone), staged before the rename:
// the entry's hash (the one the caller gave, else read now: a file's content, a link's target
// text; a directory has none) and mode. Nothing is read when the journal is off.
std::optional<contract::Error> record_move(Recorder& journal, const os::Place& from,
                                           const os::Entry& s, const std::string& path,
                                           const std::string& to_path,
                                           const std::optional<std::string>& expect, bool remove);

}  // namespace writer
