// json_in.cpp — simdjson's DOM turned into contract::Json (members in document order).
#include "mcp/json_in.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <string_view>

namespace mcp {

namespace {

using contract::Json;

Json convert(simdjson::dom::element e, int depth) {
  if (depth > 128) return Json();  // simdjson already bounds depth; this keeps recursion short
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      Json a = Json::array();
      for (auto item : e.get_array()) a.push(convert(item, depth + 1));
      return a;
    }
    case simdjson::dom::element_type::OBJECT: {
      Json o = Json::object();
      for (auto field : e.get_object()) o.set(field.key, convert(field.value, depth + 1));
      return o;
    }
    case simdjson::dom::element_type::INT64: return Json(static_cast<long long>(int64_t(e)));
    case simdjson::dom::element_type::UINT64: return Json(static_cast<unsigned long long>(uint64_t(e)));
    case simdjson::dom::element_type::DOUBLE: {
      // The shortest text of the same double, which must read back as it: an integral value
      // prints as an integer (2.5e3 as 2500), which reads back as one only where an integer
      // can hold it, so -0.0 (an integer has no sign of zero) and magnitudes past 2^63 are
      // written with an exponent instead.
      const double d = double(e);
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, d);
      const bool integral = std::string_view(buf, r.ptr).find_first_of(".e") == std::string_view::npos;
      if (integral && ((d == 0 && std::signbit(d)) || std::fabs(d) >= 0x1p63))
        r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
      return Json::raw_owned(std::string(buf, r.ptr));
    }
    case simdjson::dom::element_type::STRING: return Json(std::string(std::string_view(e)));
    case simdjson::dom::element_type::BOOL: return Json(bool(e));
    case simdjson::dom::element_type::NULL_VALUE: return Json();
  }
  return Json();
}

}  // namespace

std::optional<Json> parse_json(std::string_view text) {
  // One parser per thread: the server reads messages on one thread and answers on others.
  thread_local simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) != simdjson::SUCCESS) return std::nullopt;
  return convert(root, 0);
}

const std::string* string_member(const Json& obj, std::string_view key) {
  if (obj.type() != Json::Type::Object) return nullptr;
  const Json* v = obj.get(key);
  return v && v->type() == Json::Type::Str ? &v->str() : nullptr;
}

}  // namespace mcp
