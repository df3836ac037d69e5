// render.h — every tool's text rendering (`--format text`), from its JSON answer: the data of a
// document, or one record of a stream. The tools render with it, and tack-mcp renders with the
// same functions the content a model reads, so the two never differ. Compact by design: a
// model pays for every byte, so only what is notable gets a line of its own.
#pragma once

#include <string>
#include <string_view>

#include "contract/json.h"
#include "contract/table.h"

namespace render {

using contract::Drain;
using contract::Json;

void peek(const Json& data, std::string& out, const Drain& drain);
void seek(const Json& rec, std::string& out, const Drain& drain);
void list(const Json& rec, std::string& out, const Drain& drain);
void digest(const Json& rec, std::string& out, const Drain& drain);
void jsonq(const Json& data, std::string& out, const Drain& drain);
void tally(const Json& data, std::string& out, const Drain& drain);
void skills(const Json& data, std::string& out, const Drain& drain);
void run(const Json& data, std::string& out, const Drain& drain);
void write(const Json& data, std::string& out, const Drain& drain);
void replace(const Json& data, std::string& out, const Drain& drain);
void edit(const Json& data, std::string& out, const Drain& drain);
void move(const Json& data, std::string& out, const Drain& drain);
void undo(const Json& data, std::string& out, const Drain& drain);

// The renderer of the tool named `tool`; null for a name no tool has.
contract::TextRenderer for_tool(std::string_view tool);

// One numbered line as peek renders it: "N<TAB>text", or "N WITNESS<TAB>text"; `text` null
// (a line past the line cap) is shown as its length.
void peek_line(std::string& out, uint64_t n, std::string_view witness, const std::string_view* text,
               uint64_t length);

// seek's file record of -c or -l (its only record for a file with a match): `path:N`, or the
// path alone when `matches` is null (-l); the caller ends the line.
void seek_file(std::string_view path, const Json& matches, std::string& out);

// The footer of a stream's end record: one line saying what was cut, skipped or left
// incomplete, and the cursor to the rest; nothing when the answer is whole and plain.
void end_footer(const Json& end, std::string& out);

// A text_or_bytes value as its bytes.
std::string bytes_of(const Json& j);

}  // namespace render
