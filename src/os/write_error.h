// write_error.h — the errors of the units that change files (place, dir_lock, temp_file,
// rename_noreplace): one mapping of a failed write-side system call, and the spellings its
// messages and details share.
#pragma once

#include <string>
#include <string_view>

#include "contract/error.h"

namespace os {

// A failed write-side system call on `shown` → io.write-failed (io.permission-denied for
// EACCES, EPERM, EROFS; io.not-found for ENOENT: the directory vanished meanwhile), detail
// {path, stage, errno}.
contract::Error write_error(int err, std::string_view shown, std::string_view stage);

// The symbolic errno name ("EEXIST"): numbers and strerror texts differ across machines.
std::string errno_tag(int err);

// A path as messages show it: printable, in single quotes.
std::string quoted(std::string_view path);

}  // namespace os
