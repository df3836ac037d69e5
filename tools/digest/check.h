// check.h — digest --check: a sha256sum/sha512sum list read line by line, each entry's file
// hashed in parallel (pool.h), one record per entry with its verdict, in the list's order.
#pragma once

#include <string>
#include <string_view>

#include "contract/context.h"
#include "contract/json.h"

namespace digest {

inline bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// One entry of a list: `HEX  NAME` or `HEX *NAME` (the binary-mode marker, which changes
// nothing here), optionally after blanks; a leading backslash marks a name written with
// sha256sum's escapes (\\, \n, \r).
struct ListEntry {
  std::string hex;  // lowercase
  std::string name;
};

// Why a line is not an entry (the `reason` in the error's detail), or null when it is one.
const char* parse_list_line(std::string_view s, ListEntry& out);

// Verifies the files `list` names. `algo` is --algo's value, binding only when given: without
// it an entry's hash length says which algorithm it is. Returns the end record's data.
contract::Json run_check(const std::string& list, const std::string& algo, bool algo_given,
                         contract::Context& ctx);

}  // namespace digest
