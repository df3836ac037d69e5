// json_in.cpp — simdjson's On-Demand API turned into contract::Json (members in document
// order). On-Demand checks structure and UTF-8, and escapes as each string and key is read
// (every one is); the number grammar and the literals, which it leaves to whoever asks, are
// checked here on the raw tokens.
#include "mcp/json_in.h"

#include <simdjson.h>

#include <charconv>
#include <string_view>
#include <type_traits>

#include "text/json_bytes.h"

namespace mcp {

namespace {

using contract::Json;
namespace od = simdjson::ondemand;

// Deeper than any document jsonq reads (1,024) with the answer around it.
constexpr size_t kMaxDepth = 1100;

struct Converter {
  std::string_view doc;

  // A number as an integer where one holds it exactly, else its own text: a value past 64
  // bits, a fraction, an exponent or -0 reaches the answer as it was written.
  static Json number(std::string_view tok) {
    if (text::number_is_integer(tok) && tok != "-0") {
      const char *b = tok.data(), *e = b + tok.size();
      if (tok[0] == '-') {
        long long v = 0;
        if (auto r = std::from_chars(b, e, v); r.ec == std::errc() && r.ptr == e) return Json(v);
      } else {
        unsigned long long v = 0;
        if (auto r = std::from_chars(b, e, v); r.ec == std::errc() && r.ptr == e) return Json(v);
      }
    }
    return Json::raw_owned(std::string(tok));
  }

  // A scalar of type `t` (a document's root or a value).
  template <class V>
  bool scalar(V& v, od::json_type t, Json& out) {
    std::string_view tok;
    if constexpr (std::is_same_v<V, od::document>) {
      if (v.raw_json_token().get(tok)) return false;
    } else {
      tok = v.raw_json_token();
    }
    tok = text::trim_json_space(tok);
    switch (t) {
      case od::json_type::string: {  // its escapes checked as it is read (UTF-8 in stage 1)
        std::string_view s;
        if (v.get_string().get(s)) return false;
        out = Json(std::string(s));
        return true;
      }
      case od::json_type::number:
        if (!text::json_number(tok)) return false;
        out = number(tok);
        return true;
      case od::json_type::boolean:
        if (tok != "true" && tok != "false") return false;
        out = Json(tok == "true");
        return true;
      case od::json_type::null:
        if (tok != "null") return false;
        out = Json();
        return true;
      default:
        return false;
    }
  }

  bool value(od::value v, size_t depth, Json& out) {
    od::json_type t;
    if (v.type().get(t)) return false;
    if (t != od::json_type::array && t != od::json_type::object) return scalar(v, t, out);
    if (depth > kMaxDepth) return false;
    if (t == od::json_type::array) {
      od::array arr;
      if (v.get_array().get(arr)) return false;
      out = Json::array();
      for (auto el : arr) {
        od::value x;
        Json item;
        if (std::move(el).get(x) || !value(x, depth + 1, item)) return false;
        out.push(std::move(item));
      }
      return true;
    }
    od::object obj;
    if (v.get_object().get(obj)) return false;
    out = Json::object();
    for (auto f : obj) {
      od::field field;
      if (std::move(f).get(field)) return false;
      std::string_view key;  // its escapes checked as it is read
      Json member;
      if (field.unescaped_key().get(key)) return false;
      std::string name(key);
      if (!value(field.value(), depth + 1, member)) return false;
      out.set(std::move(name), std::move(member));
    }
    return true;
  }

  bool document(od::document& d, Json& out) {
    bool scalar_root = false;
    if (d.is_scalar().get(scalar_root)) return false;
    if (scalar_root) {
      od::json_type t;
      std::string_view tok;
      if (d.type().get(t) || d.raw_json_token().get(tok)) return false;
      return tok.end() == doc.end() && scalar(d, t, out);  // and only spaces after it
    }
    od::value root;
    const char* where = nullptr;
    if (d.get_value().get(root) || !value(root, 1, out)) return false;
    return d.current_location().get(where) == simdjson::OUT_OF_BOUNDS;  // nothing after it
  }
};

}  // namespace

std::optional<Json> parse_json(std::string_view text) {
  // One parser per thread: the server reads messages on one thread and answers on others.
  thread_local od::parser parser;
  thread_local bool deep = !parser.allocate(4096, kMaxDepth + 8);  // its depth kept as it grows
  if (!deep) return std::nullopt;
  simdjson::padded_string padded(text);
  od::document d;
  Json out;
  if (parser.iterate(padded).get(d)) return std::nullopt;
  if (!Converter{std::string_view(padded.data(), padded.size())}.document(d, out))
    return std::nullopt;
  return out;
}

const std::string* string_member(const Json& obj, std::string_view key) {
  if (obj.type() != Json::Type::Object) return nullptr;
  const Json* v = obj.get(key);
  return v && v->type() == Json::Type::Str ? &v->str() : nullptr;
}

}  // namespace mcp
