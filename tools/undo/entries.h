// entries.h — what undo reads of the journal's entries: their paths checked as any path is,
// whether a change stands as it left its result, and the listing (undo --list).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "contract/context.h"
#include "contract/json.h"
#include "os/open.h"
#include "os/place.h"
#include "writer/journal.h"

namespace undo_tool {

// A hash, or null for none (a directory, a name with nothing there).
contract::Json hash_or_null(const std::string& h);

// The root as an absolute path, against which the journal's paths are checked.
std::string root_of(const contract::Context& ctx);

// A path from the journal, checked as a path given on the command line would be: beneath the
// root (relative; absolute only when it lies beneath), no `..`, and not inside .tack/.
std::variant<std::string, contract::Error> journal_path(uint64_t id, const std::string& path,
                                                        const std::string& root_abs);

// What stands where a change left its result (`now`, looked up at `at`): whether it is what
// the change left there (a file holding its after-hash; for a rename, a file, link or
// directory as it was moved), and the hash found there (empty for a directory or nothing).
struct Standing {
  bool same = false;
  std::string actual;
};
os::Result<Standing> standing(const writer::Change& c, const os::Place& at, const os::Entry& now);

// Whether an entry's last change (the one its writer committed last) stands as it left it:
// then every change of the entry was made, marked complete or not.
bool landed(const writer::Journal& j, const writer::Entry& e, const std::string& root_abs);

// undo --list: the journal's entries, newest first; with `paths`, only those that changed one
// of them. An entry that cannot be read is listed as damaged (when no paths are given).
contract::Json list(const std::vector<std::string>& paths, contract::Context& ctx);

}  // namespace undo_tool
