// content.h — what a model reads of a tool result: the tool's own text rendering
// (tools/render), its errors as `rule: message` with the hint and the repair as a tool call, and
// a cut at the server's content budget. The JSON answer goes to structuredContent unchanged.
#pragma once

#include <string>

#include "contract/json.h"
#include "mcp/catalog.h"

namespace mcp {

// One error as a model reads it: "RULE: message", then the hint, the repair (a call of a tool
// with its arguments) and the facts of its detail, each on a line of its own.
std::string error_text(const ToolEntry& tool, const contract::Json& error);

// A document answer ({ok, data, errors, ...}) as text.
std::string document_text(const ToolEntry& tool, const contract::Json& doc);

// A stream answer's records and end record as text.
std::string stream_text(const ToolEntry& tool, const contract::Json& records, const contract::Json& end);

// Cuts `text` to at most `max` bytes at a line's end, and says how much was left out.
void cut_content(std::string& text, size_t max);

// The server's instructions: what every tool's answer and error look like, in a model's terms.
std::string instructions();

}  // namespace mcp
