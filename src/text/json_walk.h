// json_walk.h — one RFC 6901 pointer walked through a JSON document that simdjson On-Demand
// has checked: the answer about the value it names (jsonq's data), or the error that says why
// not — a miss naming the longest prefix that resolved (and the escaped pointer when a key holds
// '/' or '~'), a key the path repeats, a question the value's kind cannot answer. Only a program
// linked with simdjson uses it.
#pragma once

#include <simdjson.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contract/error.h"
#include "contract/json.h"

namespace text {

// What is asked of the value at the pointer; none set: the value itself.
struct JsonAsk {
  bool keys = false, length = false, type = false, exists = false;
};

// The argv that retries with another pointer (a repair's), from the escaped pointer.
using ArgvWithPointer = std::function<std::vector<std::string>(const std::string&)>;

struct JsonWalk {
  contract::Json out;  // the answer, when `failed` is empty
  std::optional<contract::Error> failed;
  std::string_view raw_out;  // an array or object to return as the value, still to be compacted
};

// `pointer` through `d` (iterated over `doc`, checked and rewound). A value that is an array or
// object is left in raw_out, a view into `doc`, for the caller to compact.
JsonWalk walk_json_pointer(simdjson::ondemand::document& d, std::string_view doc,
                           std::string_view pointer, const JsonAsk& ask,
                           const ArgvWithPointer& argv_with_pointer);

// simdjson refusing, on the second pass, a document it accepted on the first.
contract::Error json_reread_failed();

}  // namespace text
