// remove_many.h — move --remove of several paths: all checked under the locks of their
// directories before any is renamed.
#pragma once

#include <string>
#include <vector>

#include "contract/context.h"
#include "writer/journal.h"
#include "contract/json.h"

namespace move_tool {

// --remove of several paths. Every path is checked (its tombstone free, its hash) under the
// locks of all their directories before any is renamed, so one refusal renames nothing; then
// each is renamed in PATH order. Each rename is atomic, the batch is not one transaction: a
// rename that fails stops it, and `written` says which were renamed.
contract::Json remove_many(const std::vector<std::string>& paths,
                           const std::vector<std::string>& if_sha256, bool dry_run,
                           contract::Context& ctx, writer::Recorder& journal);

}  // namespace move_tool
