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

// One page of the answer: the first `skip` inputs (PATHs, or the list's entries and malformed
// lines) left out, and the answer cut once it holds --max-bytes, with the cursor to the rest.
struct Page {
  uint64_t skip = 0, max_bytes = 0, start = 0, delivered = 0;
  bool cut = false;
  // Before an input's record: false when the page is full (it and the rest are the next page's).
  bool room(const contract::Context& ctx) {
    if (delivered > 0 && ctx.produced() - start >= max_bytes) {
      cut = true;
      return false;
    }
    ++delivered;
    return true;
  }
  // The end record's truncated, next and cut (in text, the last line says them).
  void end(contract::Json& fields, contract::Context& ctx) const {
    if (!cut) return;
    if (ctx.format() == contract::Format::Text && !ctx.output_failed()) {
      ctx.raw() += "[truncated: cut by --max-bytes; continue with --skip " +
                   std::to_string(skip + delivered) + "]";
      ctx.commit();
    }
    fields.set("complete", false);
    fields.set("truncated", true);
    fields.set("next", contract::Json::object({{"skip", skip + delivered}}));
    fields.set("cut", "max-bytes");
  }
};

// Verifies the files `list` names. `algo` is --algo's value, binding only when given: without
// it an entry's hash length says which algorithm it is. Returns the end record's data.
contract::Json run_check(const std::string& list, const std::string& algo, bool algo_given,
                         Page& page, contract::Context& ctx);

}  // namespace digest
