// journal_files.h — the journal's small files on disk (writer/journal.cpp's store): written
// whole, fsynced, and put in place through a temporary name; read back whole when small;
// listed. Errors are io.write-failed (and the open/read errors of os::errno_error).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contract/error.h"
#include "os/open.h"
#include "os/temp_file.h"

namespace writer {

std::optional<contract::Error> write_all(int fd, std::string_view bytes, std::string_view shown);
// `bytes` written to dir/FILE, a name that must not exist, and fsynced (with `alongside`'s
// fsync started once they are written); removed again if that fails.
std::optional<contract::Error> put_new(int dir, const std::string& tmp, std::string_view bytes,
                                       std::string_view shown, os::TempFile* alongside = nullptr);
// `bytes` written to dir/NAME.tmp and fsynced, as put_new; rename_temp then puts it in place.
std::optional<contract::Error> put_temp(int dir, const std::string& name, std::string_view bytes,
                                        std::string_view shown, os::TempFile* alongside = nullptr);
std::optional<contract::Error> rename_temp(int dir, const std::string& name,
                                           std::string_view shown);
// `bytes` written to dir/name through a temporary name, fsynced, renamed into place.
std::optional<contract::Error> put_file(int dir, const std::string& name, std::string_view bytes,
                                        std::string_view shown);
// A regular file beneath dir read whole, at most `max` bytes (else nothing and `over`).
os::Result<std::string> read_small(int dir, const std::string& name, uint64_t max,
                                   std::string_view shown, bool* over = nullptr);
// Every file in a directory: name and size (0 for all but regular files, and without `sizes`).
std::vector<std::pair<std::string, uint64_t>> files_of(int dir, bool sizes = true);

}  // namespace writer
