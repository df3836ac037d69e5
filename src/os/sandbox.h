// sandbox.h — the tool's declared effects, held by the kernel. Applied by contract::main after
// argument parsing and before any input is opened.
#pragma once

#include <optional>

#include "contract/error.h"
#include "contract/table.h"

namespace os {

// Installs the tool's profile; an error when the profile cannot be installed and the tool
// must not run without it.
std::optional<contract::Error> apply_sandbox(const contract::Tool& tool, int root_fd);

}  // namespace os
