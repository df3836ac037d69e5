// answer.h — what tack-mcp makes of roots and answers itself: whether a path lies beneath a
// root, a client's file:// root as a path, a refusal in the tools' own error shape, and the
// compact text a model reads.
#pragma once

#include <string>

#include "contract/json.h"

namespace mcp {

bool beneath(const std::string& path, const std::string& root);
// The path a file:// URI names (percent-decoded), or empty for any other URI.
std::string decode_file_uri(const std::string& uri);
// A tack error as the tools write it, for a refusal the server makes itself (a root outside).
contract::Json tack_error(const std::string& code, const std::string& rule, const std::string& message,
                          const std::string& hint, contract::Json detail);
// The data (or the errors) of a tool's document as one JSON line.
std::string compact_text(const contract::Json& doc);

}  // namespace mcp
