// embed_schema — turns a tool's schema file (tools/TOOL.schema.json) into a C++ header at build
// time: `embed_schema OUT.h IN.schema.json`. The file is read as strict JSON (no duplicate keys,
// nothing after the value); the header holds the same JSON minified, as string constants.
//
// The file is one object. A document tool's has "data" (the JSON Schema of `data`); a stream
// tool's has "records" (an array of its own record types' schemas) and "end" (its own end-record
// properties). "defs" may hold pieces used more than once. A {"$ref": R} is inlined when R is
// "#/defs/NAME" (a piece of the same file) or "PATH#/POINTER" or "PATH" (a piece of another
// schema file, PATH relative to the file that refers to it); beside other members it stands for
// the target object's members, followed by those. Every other $ref is kept as written:
// "#/$defs/…" names what the contract adds to every output schema (text_or_bytes, error, ...).
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

struct Value {
  enum Kind { Object, Array, Scalar } kind = Scalar;
  std::string raw;                                     // a scalar's text as written
  std::vector<std::pair<std::string, Value>> members;  // an object's, key as written
  std::vector<Value> items;                            // an array's
  const Value* get(const std::string& key) const {
    for (auto& [k, v] : members)
      if (k == key) return &v;
    return nullptr;
  }
};

[[noreturn]] void fail(const std::string& file, const std::string& why) {
  std::fprintf(stderr, "embed_schema: %s: %s\n", file.c_str(), why.c_str());
  std::exit(1);
}

class Parser {
 public:
  Parser(std::string text, std::string file) : s_(std::move(text)), file_(std::move(file)) {}
  Value document() {
    Value v = value(0);
    ws();
    if (i_ != s_.size()) error("text after the value");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& why) {
    size_t line = 1;
    for (size_t k = 0; k < i_ && k < s_.size(); ++k) line += s_[k] == '\n';
    fail(file_, "line " + std::to_string(line) + ": " + why);
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) error(std::string("expected '") + c + "'");
  }
  std::string string() {
    ws();
    size_t start = i_;
    if (i_ >= s_.size() || s_[i_] != '"') error("expected a string");
    for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c < 0x20) error("a control character in a string");
      if (c != '\\') continue;
      if (++i_ >= s_.size()) break;
      char e = s_[i_];
      if (e == 'u') {
        for (int k = 0; k < 4; ++k)
          if (++i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_])))
            error("a bad \\u escape");
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        error("a bad escape");
      }
    }
    if (i_ >= s_.size()) error("an unterminated string");
    ++i_;
    return s_.substr(start, i_ - start);
  }
  std::string number() {
    size_t start = i_;
    auto digits = [&] {
      size_t from = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      return i_ - from;
    };
    if (s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else if (digits() == 0) {
      error("a bad number");
    }
    if (i_ < s_.size() && s_[i_] == '.' && (++i_, digits() == 0)) error("a bad fraction");
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (digits() == 0) error("a bad exponent");
    }
    return s_.substr(start, i_ - start);
  }
  Value value(int depth) {
    if (depth > 64) error("nested too deep");
    ws();
    if (i_ >= s_.size()) error("expected a value");
    Value v;
    char c = s_[i_];
    if (c == '{') {
      v.kind = Value::Object;
      ++i_;
      if (eat('}')) return v;
      do {
        std::string key = string();
        if (v.get(key)) error("the key " + key + " twice");
        expect(':');
        v.members.emplace_back(key, value(depth + 1));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      v.kind = Value::Array;
      ++i_;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.raw = string();
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      v.raw = number();
    } else {
      for (const char* word : {"true", "false", "null"})
        if (s_.compare(i_, std::strlen(word), word) == 0) {
          i_ += std::strlen(word);
          v.raw = word;
          return v;
        }
      error("expected a value");
    }
    return v;
  }

  std::string s_;
  std::string file_;
  size_t i_ = 0;
};

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

class Embedder {
 public:
  const Value& load(const std::string& path) {
    auto it = files_.find(path);
    if (it != files_.end()) return it->second;
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, "cannot be read");
    std::stringstream ss;
    ss << in.rdbuf();
    return files_.emplace(path, Parser(ss.str(), path).document()).first->second;
  }

  // `v` minified, with every inlined $ref replaced by what it points to.
  void write(const Value& v, const std::string& file, std::string& out, int depth = 0) {
    if (depth > 32) fail(file, "$ref nested too deep (a cycle?)");
    const Value* ref_value = v.kind == Value::Object ? v.get("\"$ref\"") : nullptr;
    if (ref_value && ref_value->kind == Value::Scalar) {
      std::string ref = ref_value->raw;
      if (ref.size() < 2 || ref.front() != '"') fail(file, "$ref is not a string");
      ref = ref.substr(1, ref.size() - 2);
      if (ref.rfind("#/defs/", 0) == 0 || ref.rfind("#", 0) != 0) {
        auto [target, target_file] = resolve(ref, file);
        if (v.members.size() == 1) return write(*target, target_file, out, depth + 1);
        // Beside other members: the target's members, then those (a set of properties shared
        // by two objects, one of which adds some).
        if (target->kind != Value::Object) fail(file, "$ref " + ref + " with members is no object");
        std::string merged;
        write(*target, target_file, merged, depth + 1);
        out += merged.substr(0, merged.size() - 1);  // without its '}'
        bool first = target->members.empty();
        for (auto& [key, member] : v.members) {
          if (&member == ref_value) continue;
          if (target->get(key)) fail(file, "the key " + key + " is also in $ref " + ref);
          if (!first) out += ',';
          first = false;
          out += key;
          out += ':';
          write(member, file, out, depth);
        }
        out += '}';
        return;
      }
    }
    switch (v.kind) {
      case Value::Scalar:
        out += v.raw;
        return;
      case Value::Array:
        out += '[';
        for (size_t k = 0; k < v.items.size(); ++k) {
          if (k) out += ',';
          write(v.items[k], file, out, depth);
        }
        out += ']';
        return;
      case Value::Object:
        out += '{';
        for (size_t k = 0; k < v.members.size(); ++k) {
          if (k) out += ',';
          out += v.members[k].first;
          out += ':';
          write(v.members[k].second, file, out, depth);
        }
        out += '}';
        return;
    }
  }

 private:
  std::pair<const Value*, std::string> resolve(const std::string& ref, const std::string& file) {
    if (ref.find('\\') != std::string::npos) fail(file, "$ref " + ref + " holds an escape");
    size_t hash = ref.find('#');
    std::string path = ref.substr(0, hash);
    std::string pointer = hash == std::string::npos ? "" : ref.substr(hash + 1);
    std::string target_file = path.empty() ? file : dir_of(file) + path;
    const Value* v = &load(target_file);
    size_t at = 0;
    while (at < pointer.size()) {
      if (pointer[at] != '/') fail(file, "$ref " + ref + " is not a JSON pointer");
      size_t next = pointer.find('/', at + 1);
      std::string token = pointer.substr(at + 1, next == std::string::npos ? next : next - at - 1);
      at = next == std::string::npos ? pointer.size() : next;
      const Value* child = nullptr;
      if (v->kind == Value::Object) {
        child = v->get("\"" + token + "\"");
      } else if (v->kind == Value::Array && !token.empty() &&
                 token.find_first_not_of("0123456789") == std::string::npos &&
                 std::stoul(token) < v->items.size()) {
        child = &v->items[std::stoul(token)];
      }
      if (!child) fail(file, "$ref " + ref + " points at nothing");
      v = child;
    }
    return {v, target_file};
  }

  std::map<std::string, Value> files_;
};

// A C++ string literal of `s`, split into pieces of about 96 bytes.
std::string literal(const std::string& s) {
  std::string out = "\n    \"";
  size_t width = 0;
  for (char c : s) {
    if (width >= 96) {
      out += "\"\n    \"";
      width = 0;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
    ++width;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: embed_schema OUT.h IN.schema.json\n");
    return 2;
  }
  std::string in = argv[2];
  Embedder e;
  const Value& top = e.load(in);
  if (top.kind != Value::Object) fail(in, "is not an object");
  for (auto& [key, v] : top.members)
    if (key != "\"data\"" && key != "\"records\"" && key != "\"end\"" && key != "\"defs\"")
      fail(in, "unknown key " + key + " (data, records, end, defs)");
  const Value* data = top.get("\"data\"");
  const Value* records = top.get("\"records\"");
  const Value* end = top.get("\"end\"");
  if (!data == !records) fail(in, "needs either data (a document) or records (a stream)");
  if (data && end) fail(in, "end belongs to a stream (records), not to data");
  if (records && (records->kind != Value::Array || records->items.empty()))
    fail(in, "records is not a non-empty array");
  if (end && end->kind != Value::Object) fail(in, "end is not an object");

  std::string text =
      "// Generated by gen/embed_schema.cpp from " + in.substr(in.rfind('/') + 1) +
      "; do not edit.\n#pragma once\n\n#include <string_view>\n\nnamespace tool_schema {\n";
  std::string json;
  if (data) {
    e.write(*data, in, json);
    text += "// Tool::data_schema: the JSON Schema of `data`.\n";
    text += "inline constexpr std::string_view kData =" + literal(json) + ";\n";
  } else {
    for (size_t k = 0; k < records->items.size(); ++k) {
      if (k) json += ',';
      e.write(records->items[k], in, json);
    }
    text += "// Tool::data_schema: the tool's own record types, comma-separated.\n";
    text += "inline constexpr std::string_view kRecords =" + literal(json) + ";\n";
    json.clear();
    if (end) {
      e.write(*end, in, json);
      json = json.substr(1, json.size() - 2);  // the properties, without their braces
    }
    text += "// Tool::end_schema: the end record's own properties.\n";
    text += "inline constexpr std::string_view kEnd =" + literal(json) + ";\n";
  }
  text += "\n}  // namespace tool_schema\n";

  std::string out = argv[1];
  std::ofstream o(out, std::ios::binary | std::ios::trunc);
  if (!(o << text) || !o.flush()) fail(out, "cannot be written");
  return 0;
}
