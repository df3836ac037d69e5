// render.h — seek's --format text: one line per record.
#pragma once

#include <string>

#include "contract/json.h"

namespace seek {

// grep -n's `path:line:text` for a match, `path-line-text` for context; nothing for a file
// record.
void render_text(const contract::Json& rec, std::string& out, const contract::Drain&);

}  // namespace seek
