// programs.h — the programs directory run starts programs from (fixed when run is built, so
// given here by the caller): the names it holds that may be run, one name looked up in it, and
// the error for a program the system would not start.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "contract/error.h"

namespace os {

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
