// programs.h — the programs directory run starts programs from (fixed when run is built, or
// beneath the prefix its binary is installed in): the names it holds that may be run, one name
// looked up in it, and the error for a program the system would not start.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "contract/error.h"

namespace os {

// The programs directory of a binary at the absolute path `exe`: PREFIX/libexec/tack/programs,
// where PREFIX is the directory above lib/tack/bin when the binary is installed there, else the
// directory above the binary's own (a build tree's bin/). "" when `exe` is not absolute.
std::string programs_dir_of(std::string_view exe);

// programs_dir_of this process's own binary (/proc/self/exe, links resolved by the kernel);
// "" when it cannot be read.
std::string own_programs_dir();

// The regular, executable, not hidden entries of `programs_dir`, sorted; none when it is absent.
std::vector<std::string> program_names(const char* programs_dir);

// The absolute path of the program `name` (one plain name) in `programs_dir`, or the error
// that says why there is none: run.program-not-found (with a reason), io.permission-denied.
std::variant<std::string, contract::Error> find_program(const char* programs_dir,
                                                        const std::string& name);

// Starting `name` failed at `stage` with errno `err`: io.permission-denied for EACCES, else
// run.spawn-failed.
contract::Error spawn_error(const std::string& name, const char* stage, int err);

}  // namespace os
