// json_check.cpp — see json_check.h.
#include "text/json_check.h"

#include "text/json_bytes.h"

namespace text {

namespace {

namespace od = simdjson::ondemand;

// The whole document, checked. On-Demand checks structure as it iterates and simdjson's first
// stage has checked UTF-8, control characters and unclosed strings; what On-Demand leaves to
// whoever asks (number grammar, literals, escapes, depth, trailing content) is checked here
// on the raw tokens. False at the first problem.
struct Checker {
  std::string_view doc;
  size_t max_depth;

  bool document(od::document& d) {
    bool scalar_root = false;
    std::string_view tok;
    if (d.is_scalar().get(scalar_root)) return false;
    if (scalar_root)  // and only spaces after it
      return !d.raw_json_token().get(tok) && scalar(tok) && tok.end() == doc.end();
    od::value root;
    const char* where = nullptr;
    if (d.get_value().get(root) || !value(root, 1)) return false;
    return d.current_location().get(where) == simdjson::OUT_OF_BOUNDS;  // nothing after it
  }

  bool value(od::value v, size_t depth) {
    od::json_type t;
    if (v.type().get(t)) return false;
    if (t != od::json_type::array && t != od::json_type::object) {
      // A string is consumed: skipping one left unread takes `"":` for a key (simdjson's skip
      // counts brackets and does not check them), which would let `[1, "":0 } ]` through.
      std::string_view tok = v.raw_json_token();
      od::raw_json_string unused;
      return scalar(tok) && (t != od::json_type::string || !v.get_raw_json_string().get(unused));
    }
    od::array arr;
    od::object obj;
    if (depth > max_depth) return false;
    if (t == od::json_type::array) {
      if (v.get_array().get(arr)) return false;
      for (auto el : arr) {
        od::value x;
        if (std::move(el).get(x) || !value(x, depth + 1)) return false;
      }
      return true;
    }
    if (v.get_object().get(obj)) return false;
    for (auto f : obj) {
      od::field field;
      if (std::move(f).get(field)) return false;
      size_t at = static_cast<size_t>(field.key().raw() - doc.data());
      if (!text::scan_json_string(doc, at, false).ok || !value(field.value(), depth + 1))
        return false;
    }
    return true;
  }

  bool scalar(std::string_view tok) {
    return text::json_scalar(doc, static_cast<size_t>(tok.data() - doc.data()),
                             text::trim_json_space(tok).size());
  }
};

}  // namespace

bool check_json_document(simdjson::ondemand::document& d, std::string_view doc, size_t max_depth) {
  return Checker{doc, max_depth}.document(d);
}

}  // namespace text
