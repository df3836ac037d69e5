// rename_noreplace.cpp — a name moved onto one that must not exist (see rename_noreplace.h).
#include "os/rename_noreplace.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "contract/json.h"
#include "os/write_error.h"

namespace os {

using contract::Json;

std::optional<contract::Error> rename_noreplace(const Place& from, const Place& to) {
  if (renameat2(from.dir.get(), from.name.c_str(), to.dir.get(), to.name.c_str(),
                RENAME_NOREPLACE) != 0) {
    int err = errno;
    Json detail = Json::object({{"from", Json::bytes(from.path)},
                                {"to", Json::bytes(to.path)},
                                {"errno", errno_tag(err)}});
    switch (err) {
      case EEXIST:
        return contract::make_error("conflict.exists",
                                    "cannot move to " + quoted(to.path) + ": the name exists",
                                    std::move(detail));
      case EINVAL:
      case ENOSYS:
      case EXDEV:
        return contract::make_error(
            "io.rename-unsupported",
            err == EXDEV ? "cannot move " + quoted(from.path) + " to " + quoted(to.path) +
                               ": they are on different filesystems, and tack does not copy"
                         : "cannot move " + quoted(from.path) +
                               ": the filesystem cannot refuse to replace an existing name "
                               "(RENAME_NOREPLACE), and tack never falls back to a rename "
                               "that could",
            std::move(detail));
      case ENOENT:
        return errno_error(err, from.path, "move");
      default: {
        contract::Error e = write_error(err, from.path, "rename");
        e.detail.set("to", Json::bytes(to.path));
        return e;
      }
    }
  }
  if (fsync(to.dir.get()) != 0) return write_error(errno, to.path, "fsync-directory");
  if ((from.dir_st.st_dev != to.dir_st.st_dev || from.dir_st.st_ino != to.dir_st.st_ino) &&
      fsync(from.dir.get()) != 0)
    return write_error(errno, from.path, "fsync-directory");
  return std::nullopt;
}

}  // namespace os
