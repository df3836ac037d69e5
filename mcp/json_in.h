// json_in.h — reading JSON for tack-mcp: a message or a tool's answer parsed (simdjson) into
// the contract's ordered value, which the server inspects, changes and writes back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "contract/json.h"

namespace mcp {

// The value `text` holds, or nothing when it is not one well-formed JSON value. Numbers keep
// their kind: integers as integers, others as their shortest decimal spelling.
std::optional<contract::Json> parse_json(std::string_view text);

// Member `key` of an object when it is a string; nothing otherwise.
const std::string* string_member(const contract::Json& obj, std::string_view key);

}  // namespace mcp
