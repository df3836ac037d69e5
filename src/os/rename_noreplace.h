// rename_noreplace.h — a name moved to another that must not exist: the kernel refuses in the
// same step that would replace (renameat2 RENAME_NOREPLACE), so there is no window between a
// check and the rename, and never a replacing fallback.
#pragma once

#include <optional>

#include "contract/error.h"
#include "os/place.h"

namespace os {

// Renames from's name to to's name, never replacing (renameat2 RENAME_NOREPLACE), then fsyncs
// both directories. A link is renamed as itself. Errors: conflict.exists,
// io.rename-unsupported (no RENAME_NOREPLACE, or the two are on different filesystems),
// io.permission-denied, io.write-failed.
std::optional<contract::Error> rename_noreplace(const Place& from, const Place& to);

}  // namespace os
