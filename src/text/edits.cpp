// edits.cpp — a small JSON reader for the edits lists (RFC 8259 syntax, strict: no trailing
// commas, no comments, no leading zeros), into a value tree of at most kMaxDepth levels, then a
// shape check per list kind. simdjson is not linked into the editing tools (it has no static
// archive), and the lists are small, so a recursive-descent reader is the right size here.
#include "text/edits.h"

#include <memory>
#include <optional>
#include <utility>

#include "contract/json.h"
#include "text/json_bytes.h"
#include "text/witness.h"

namespace text {
namespace {

constexpr int kMaxDepth = 16;

struct Member;

struct Value {
  enum class Type { Null, Bool, Int, Str, Array, Object };
  Type type = Type::Null;
  bool b = false;
  uint64_t n = 0;
  bool n_overflow = false;
  bool negative = false;
  std::string s;
  std::vector<Value> items;
  // std::vector may hold an incomplete type, std::pair may not: members are their own struct.
  std::vector<Member> members;
};

struct Member {
  std::string first;
  Value second;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool document(Value& v) {
    ws();
    if (!value(v, 0)) return false;
    ws();
    if (pos_ != in_.size()) return fail("unexpected bytes after the JSON value");
    return true;
  }
  EditsError error() const {
    EditsError e;
    e.kind = EditsError::Kind::Syntax;
    e.message = "the edits are not valid JSON: " + why_ + " at byte " + std::to_string(pos_) + ".";
    e.offset = pos_;
    return e;
  }

 private:
  bool fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
  }
  void ws() {
    while (pos_ < in_.size() &&
           (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n' || in_[pos_] == '\r'))
      ++pos_;
  }
  bool literal(std::string_view word) {
    if (in_.substr(pos_, word.size()) != word) return fail("an unknown literal");
    pos_ += word.size();
    return true;
  }
  bool value(Value& v, int depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than 16 levels");
    if (pos_ >= in_.size()) return fail("the input ends where a value should be");
    char c = in_[pos_];
    switch (c) {
      case '{': return object(v, depth);
      case '[': return array(v, depth);
      case '"': v.type = Value::Type::Str; return string(v.s);
      case 't': v.type = Value::Type::Bool; v.b = true; return literal("true");
      case 'f': v.type = Value::Type::Bool; return literal("false");
      case 'n': v.type = Value::Type::Null; return literal("null");
      default: break;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(v);
    return fail("an unexpected byte");
  }
  bool number(Value& v) {
    v.type = Value::Type::Int;
    if (in_[pos_] == '-') {
      v.negative = true;
      ++pos_;
    }
    size_t start = pos_;
    while (pos_ < in_.size() && in_[pos_] >= '0' && in_[pos_] <= '9') {
      uint64_t d = static_cast<uint64_t>(in_[pos_] - '0');
      if (v.n > (UINT64_MAX - d) / 10) v.n_overflow = true;
      v.n = v.n * 10 + d;
      ++pos_;
    }
    if (pos_ == start) return fail("a number without digits");
    if (in_[start] == '0' && pos_ - start > 1) return fail("a number with a leading zero");
    // Fractions and exponents are valid JSON but never a count: the shape check refuses them
    // by kind, so they are read here and marked as not an integer.
    if (pos_ < in_.size() && (in_[pos_] == '.' || in_[pos_] == 'e' || in_[pos_] == 'E')) {
      if (in_[pos_] == '.') {
        ++pos_;
        size_t f = pos_;
        while (pos_ < in_.size() && in_[pos_] >= '0' && in_[pos_] <= '9') ++pos_;
        if (pos_ == f) return fail("a fraction without digits");
      }
      if (pos_ < in_.size() && (in_[pos_] == 'e' || in_[pos_] == 'E')) {
        ++pos_;
        if (pos_ < in_.size() && (in_[pos_] == '+' || in_[pos_] == '-')) ++pos_;
        size_t f = pos_;
        while (pos_ < in_.size() && in_[pos_] >= '0' && in_[pos_] <= '9') ++pos_;
        if (pos_ == f) return fail("an exponent without digits");
      }
      v.n_overflow = true;  // not an integer: treated as out of range
    }
    return true;
  }
  // A string, checked and decoded by the same reader jsonq uses (text/json_bytes.h).
  bool string(std::string& out) {
    const StringScan r = scan_json_string(in_, pos_ + 1, true);
    if (!r.ok) {
      pos_ = r.end;
      switch (r.fault) {
        case JsonFault::ControlCharacter: return fail("a control byte inside a string");
        case JsonFault::BadEscape: return fail("a bad escape");
        case JsonFault::LoneSurrogate: return fail("a \\u escape of half a surrogate pair");
        case JsonFault::InvalidUtf8: return fail("a string that is not UTF-8 (use {\"b64\":…})");
        default: return fail("an unterminated string");
      }
    }
    out += unescape_json_string(in_.substr(pos_ + 1, r.end - pos_ - 1));
    pos_ = r.end + 1;
    return true;
  }

  bool array(Value& v, int depth) {
    v.type = Value::Type::Array;
    ++pos_;
    ws();
    if (pos_ < in_.size() && in_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      if (v.items.size() >= kMaxEdits) return fail("more than 10000 items in an array");
      v.items.emplace_back();
      ws();
      if (!value(v.items.back(), depth + 1)) return false;
      ws();
      if (pos_ >= in_.size()) return fail("an unterminated array");
      if (in_[pos_] == ',') { ++pos_; continue; }
      if (in_[pos_] == ']') { ++pos_; return true; }
      return fail("an array item not followed by ',' or ']'");
    }
  }
  bool object(Value& v, int depth) {
    v.type = Value::Type::Object;
    ++pos_;
    ws();
    if (pos_ < in_.size() && in_[pos_] == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      ws();
      if (pos_ >= in_.size() || in_[pos_] != '"') return fail("an object key that is not a string");
      if (v.members.size() >= kMaxEdits) return fail("more than 10000 members in an object");
      v.members.emplace_back();
      if (!string(v.members.back().first)) return false;
      ws();
      if (pos_ >= in_.size() || in_[pos_] != ':') return fail("a key not followed by ':'");
      ++pos_;
      ws();
      if (!value(v.members.back().second, depth + 1)) return false;
      ws();
      if (pos_ >= in_.size()) return fail("an unterminated object");
      if (in_[pos_] == ',') { ++pos_; continue; }
      if (in_[pos_] == '}') { ++pos_; return true; }
      return fail("an object member not followed by ',' or '}'");
    }
  }

  std::string_view in_;
  size_t pos_ = 0;
  std::string why_;
};

EditsError shape(int64_t index, std::string field, std::string message) {
  EditsError e;
  e.kind = EditsError::Kind::Shape;
  e.index = index;
  e.field = std::move(field);
  e.message = std::move(message);
  return e;
}

// text_or_bytes: a string, or {"b64": "…"} holding the bytes.
bool as_text(const Value& v, std::string& out) {
  if (v.type == Value::Type::Str) {
    out = v.s;
    return true;
  }
  if (v.type == Value::Type::Object && v.members.size() == 1 && v.members[0].first == "b64" &&
      v.members[0].second.type == Value::Type::Str)
    return contract::unbase64(v.members[0].second.s, out);
  return false;
}

// The list and, for each edit, its members by name, refusing repeated and unknown keys.
template <class T, class F>
EditsResult<T> each_edit(std::string_view json, std::initializer_list<std::string_view> keys,
                         F&& build) {
  Value root;
  Reader reader(json);
  if (!reader.document(root)) return reader.error();
  if (root.type != Value::Type::Array)
    return shape(-1, "", "the edits must be a JSON array of objects.");
  if (root.items.empty()) return shape(-1, "", "the edits list is empty.");
  std::vector<T> out;
  for (size_t i = 0; i < root.items.size(); ++i) {
    const Value& item = root.items[i];
    const int64_t at = static_cast<int64_t>(i);
    if (item.type != Value::Type::Object)
      return shape(at, "", "edit " + std::to_string(i) + " is not a JSON object.");
    std::vector<const Value*> found(keys.size(), nullptr);
    for (auto& [k, v] : item.members) {
      size_t slot = 0;
      for (auto key : keys) {
        if (key == k) break;
        ++slot;
      }
      if (slot == keys.size())
        return shape(at, k, "edit " + std::to_string(i) + " has an unknown key '" +
                                contract::printable(k) + "'.");
      if (found[slot])
        return shape(at, k, "edit " + std::to_string(i) + " repeats the key '" + k + "'.");
      found[slot] = &v;
    }
    T edit;
    if (auto err = build(at, found, edit)) return *err;
    out.push_back(std::move(edit));
  }
  return out;
}

}  // namespace

EditsResult<ReplaceEdit> parse_replace_edits(std::string_view json) {
  return each_edit<ReplaceEdit>(
      json, {"old", "new", "expect", "all"},
      [](int64_t at, const std::vector<const Value*>& f, ReplaceEdit& e) -> std::optional<EditsError> {
        const std::string n = "edit " + std::to_string(at);
        if (!f[0] || !as_text(*f[0], e.old_text))
          return shape(at, "old", n + " needs \"old\": a string or {\"b64\":…}.");
        if (!f[1] || !as_text(*f[1], e.new_text))
          return shape(at, "new", n + " needs \"new\": a string or {\"b64\":…}.");
        if (e.old_text.empty()) return shape(at, "old", n + " has an empty \"old\".");
        if (e.old_text == e.new_text) return shape(at, "new", n + " has \"new\" equal to \"old\".");
        if (f[3]) {
          if (f[3]->type != Value::Type::Bool) return shape(at, "all", n + ": \"all\" must be a boolean.");
          e.all = f[3]->b;
        }
        if (f[2]) {
          if (e.all) return shape(at, "expect", n + " has both \"expect\" and \"all\": true.");
          if (f[2]->type != Value::Type::Int || f[2]->negative || f[2]->n_overflow || f[2]->n == 0)
            return shape(at, "expect", n + ": \"expect\" must be a positive integer.");
          e.expect = f[2]->n;
        }
        return std::nullopt;
      });
}

EditsResult<LineEdit> parse_line_edits(std::string_view json) {
  return each_edit<LineEdit>(
      json, {"witness", "lines"},
      [](int64_t at, const std::vector<const Value*>& f, LineEdit& e) -> std::optional<EditsError> {
        const std::string n = "edit " + std::to_string(at);
        if (!f[0] || f[0]->type != Value::Type::Str || !parse_witness(f[0]->s, e.value))
          return shape(at, "witness", n + " needs \"witness\": 'h' and 6 hex digits.");
        e.witness = f[0]->s;
        if (!f[1] || f[1]->type != Value::Type::Array)
          return shape(at, "lines", n + " needs \"lines\": an array of strings (empty deletes).");
        for (const Value& l : f[1]->items) {
          std::string text;
          if (!as_text(l, text))
            return shape(at, "lines", n + ": every line must be a string or {\"b64\":…}.");
          // One array item is one line: a newline inside it would make two lines the caller
          // did not list, so it is refused rather than split.
          if (text.find('\n') != std::string::npos)
            return shape(at, "lines", n + " has a line containing a newline; give each line as "
                                          "its own array item.");
          e.lines.push_back(std::move(text));
        }
        return std::nullopt;
      });
}

}  // namespace text
