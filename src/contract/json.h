// json.h — the one serializer: every byte tack writes as JSON goes through JsonWriter, which
// owns escaping, UTF-8 validation and the text_or_bytes choice. Json is a small ordered value
// tree (members keep insertion order, so output is deterministic) for documents, details and
// records; hot paths may drive JsonWriter directly.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace contract {

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
bool valid_utf8(std::string_view s);

// RFC 4648 base64 with padding.
std::string base64(std::string_view bytes);
// Decodes padded RFC 4648 base64; false on malformed input.
bool unbase64(std::string_view text, std::string& out);

// Renders bytes for a human sentence: valid UTF-8 as is, every other byte as \xNN.
std::string printable(std::string_view bytes);

// Hands what has been written so far on (Out::maybe_flush), so that a large value streamed
// into the writer is never held whole. The writer only ever appends: its output string may be
// emptied by a drain between any two values.
class Drain {
 public:
  Drain() = default;
  template <class F>
    requires std::is_invocable_v<F&>
  Drain(F flush) : flush_(std::move(flush)) {}
  // `stable` takes bytes that lie ready in memory (Out::stable).
  Drain(std::function<void()> flush, std::function<void(std::string_view)> stable)
      : flush_(std::move(flush)), stable_(std::move(stable)) {}
  explicit operator bool() const { return static_cast<bool>(flush_); }
  void operator()() const { flush_(); }
  // Appends `bytes`, which must never change again, after what `out` holds: handed on as they
  // lie where the drain can (no copy into `out`), else appended to `out`.
  void stable(std::string& out, std::string_view bytes) const {
    if (stable_)
      stable_(bytes);
    else
      out += bytes;
  }

 private:
  std::function<void()> flush_;
  std::function<void(std::string_view)> stable_;
};
// A value rendered on demand: appends its serialization to `out`, calling `drain` (when set)
// between pieces. See Json::stream.
using StreamFn = std::function<void(std::string& out, const Drain& drain)>;

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out, Drain drain = {}) : out_(out), drain_(std::move(drain)) {}
  void null() { sep(); out_ += "null"; }
  void boolean(bool b) { sep(); out_ += b ? "true" : "false"; }
  void integer(int64_t v);
  void unsigned_integer(uint64_t v);
  // A string known to be text (keys, messages, tags). Invalid UTF-8 is rendered \xNN-escaped
  // as by printable(): a message is for a person and must never carry U+FFFD.
  void string(std::string_view s);
  // text_or_bytes: a JSON string when the bytes are UTF-8, else {"b64":"…"}.
  void bytes(std::string_view s);
  // Already-serialized JSON, written verbatim (jsonq's values as the document wrote them).
  void raw(std::string_view json) { sep(); out_ += json; }
  // A streamed value (Json::stream): written in pieces, drained between them.
  void stream(const StreamFn& fn) {
    sep();
    fn(out_, drain_);
  }
  void begin_object() { sep(); out_ += '{'; first_ = true; }
  void end_object() { out_ += '}'; first_ = false; }
  void begin_array() { sep(); out_ += '['; first_ = true; }
  void end_array() { out_ += ']'; first_ = false; }
  void key(std::string_view k);

 private:
  void sep() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) out_ += ',';
    first_ = false;
  }
  void quoted(std::string_view s);
  std::string& out_;
  Drain drain_;
  bool first_ = true;
  bool after_key_ = false;
};

struct JsonMember;

class Json {
 public:
  enum class Type { Null, Bool, Int, Uint, Str, Bytes, Raw, Stream, Array, Object };
  using Member = std::pair<std::string, Json>;

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b) : type_(Type::Bool), u_(b) {}
  Json(int v) : type_(Type::Int), i_(v) {}
  Json(long v) : type_(Type::Int), i_(v) {}
  Json(long long v) : type_(Type::Int), i_(v) {}
  Json(unsigned v) : type_(Type::Uint), u_(v) {}
  Json(unsigned long v) : type_(Type::Uint), u_(v) {}
  Json(unsigned long long v) : type_(Type::Uint), u_(v) {}
  Json(const char* s) : type_(Type::Str), s_(s) {}
  Json(std::string_view s) : type_(Type::Str), s_(s) {}
  Json(std::string s) : type_(Type::Str), s_(std::move(s)) {}

  static Json bytes(std::string_view b) {
    Json j;
    j.type_ = Type::Bytes;
    j.s_ = b;
    return j;
  }
  static Json raw(std::string_view text) {
    Json j;
    j.type_ = Type::Raw;
    j.s_ = text;
    return j;
  }
  // The same, taking the string over rather than copying it (large pre-rendered pieces).
  static Json raw_owned(std::string text) {
    Json j;
    j.type_ = Type::Raw;
    j.s_ = std::move(text);
    return j;
  }
  // A large value rendered only when the document is written, straight into the output in
  // pieces: its size costs no memory (peek's lines). `fn` must render the same bytes each
  // time it is called and cannot fail: everything it needs is decided before it is made.
  static Json stream(StreamFn fn) {
    Json j;
    j.type_ = Type::Stream;
    j.fn_ = std::make_shared<const StreamFn>(std::move(fn));
    return j;
  }
  static Json array(std::vector<Json> items = {}) {
    Json j;
    j.type_ = Type::Array;
    j.arr_ = std::move(items);
    return j;
  }
  // Its members taken over, not copied (JsonMember).
  static Json object(std::initializer_list<JsonMember> members = {});

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::Null; }
  // Appends (array) or appends a member (object; a repeated key is replaced in place).
  Json& push(Json v);
  Json& set(std::string_view key, Json v);
  const Json* get(std::string_view key) const;
  const std::vector<Member>& members() const { return obj_; }
  const std::vector<Json>& items() const { return arr_; }
  const std::string& str() const { return s_; }
  // A stream's bytes appended to `out` (drained when `drain` is set); nothing for other types.
  void render(std::string& out, const Drain& drain = {}) const {
    if (fn_) (*fn_)(out, drain);
  }
  int64_t as_int() const { return type_ == Type::Uint ? static_cast<int64_t>(u_) : i_; }
  uint64_t as_uint() const { return type_ == Type::Int ? static_cast<uint64_t>(i_) : u_; }
  bool as_bool() const { return u_ != 0; }

  void write(JsonWriter& w) const;
  std::string dump() const;

 private:
  Type type_ = Type::Null;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  std::string s_;
  std::vector<Json> arr_;
  std::vector<Member> obj_;
  std::shared_ptr<const StreamFn> fn_;
};

// One member of an object being made, `{"key", value}`. Its value is mutable so that
// Json::object takes it over rather than copying it (the elements of an initializer list are
// const): a large value (a diff, its lines) is not copied again at each level it is put in.
// (The key is a view: whatever it views lives to the end of the full expression that makes
// the object, and object() copies it.)
struct JsonMember {
  std::string_view key;
  mutable Json value;
};

inline Json Json::object(std::initializer_list<JsonMember> members) {
  Json j;
  j.type_ = Type::Object;
  j.obj_.reserve(members.size());
  for (const JsonMember& m : members) j.obj_.emplace_back(m.key, std::move(m.value));
  return j;
}

}  // namespace contract
