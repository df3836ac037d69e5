// json_in.h — reading JSON for tack-mcp: a message or a tool's answer parsed (simdjson) into
// the contract's ordered value, which the server inspects, changes and writes back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "contract/json.h"

namespace mcp {

// The value `text` holds, or nothing when it is not one well-formed JSON value (RFC 8259,
// nested at most 1,100 deep). Numbers keep their text: integers that 64 bits hold as integers,
// the rest (fractions, exponents, larger integers, -0) as written.
std::optional<contract::Json> parse_json(std::string_view text);

// Member `key` of an object when it is a string; nothing otherwise.
const std::string* string_member(const contract::Json& obj, std::string_view key);

}  // namespace mcp
