// confine.h — the server's own authority, held by the kernel as a tool's is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mcp/built.h"

namespace mcp {

// Installs the server's sandbox (see confine.cpp); "rule: message" when it cannot.
std::optional<std::string> confine(const std::vector<const Built*>& chosen,
                                   const std::string& root);

}  // namespace mcp
