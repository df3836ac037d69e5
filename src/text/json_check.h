// json_check.h — a whole JSON document checked through simdjson On-Demand, which checks
// structure as it iterates but leaves number grammar, literals, escapes, depth and trailing
// content to whoever asks (json_bytes.h checks those on the raw tokens). jsonq's validation;
// only a program linked with simdjson uses it.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <string_view>

namespace text {

// True when `d`, iterated over `doc` (the bytes parsed, padded as simdjson wants), is one JSON
// value nested at most `max_depth` deep with only whitespace after it. False at the first
// problem; text::find_json_error then says where. `d` is consumed: rewind it to query it.
bool check_json_document(simdjson::ondemand::document& d, std::string_view doc, size_t max_depth);

}  // namespace text
