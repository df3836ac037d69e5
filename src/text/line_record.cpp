// line_record.cpp — match and context records written without building a Json tree: the
// fixed parts from a stack buffer, the text through a SIMD check for the common plain case.
#include "text/line_record.h"

#include <emmintrin.h>

#include <charconv>
#include <cstring>

#include "contract/json.h"

namespace text {
namespace {

void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// A JSON string for bytes that need no escaping and are ASCII (most source lines), 16 bytes
// at a time; anything else goes through the one serializer, which owns escaping, UTF-8 and
// the text_or_bytes choice.
void append_text(std::string& out, std::string_view t) {
  const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'),
                slash = _mm_set1_epi8('\\');
  size_t i = 0;
  bool plain = true;
  for (; plain && i + 16 <= t.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + i));
    // a signed compare: bytes from 0x80 up are negative, so "below 0x20" catches them too
    const __m128i bad = _mm_or_si128(
        _mm_or_si128(_mm_cmpgt_epi8(space, v), _mm_cmpeq_epi8(v, quote)), _mm_cmpeq_epi8(v, slash));
    plain = _mm_movemask_epi8(bad) == 0;
  }
  for (; plain && i < t.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    plain = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
  }
  if (!plain) {
    contract::JsonWriter(out).bytes(t);
    return;
  }
  out += '"';
  out.append(t);
  out += '"';
}

// A small stack buffer for the fixed parts of a record (keys, numbers), appended to the
// output in one piece: a million matches should not cost ten million tiny appends.
class Fields {
 public:
  void put(std::string_view s) {
    std::memcpy(w_, s.data(), s.size());
    w_ += s.size();
  }
  void put(char c) { *w_++ = c; }
  void num(uint64_t v) { w_ = std::to_chars(w_, w_ + 20, v).ptr; }
  size_t room() const { return static_cast<size_t>(buf_ + sizeof buf_ - w_); }
  void flush(std::string& out) {
    out.append(buf_, static_cast<size_t>(w_ - buf_));
    w_ = buf_;
  }

 private:
  char buf_[512];
  char* w_ = buf_;
};

}  // namespace

void LineRecords::set_path(const std::string& path) {
  path_ = &path;
  heads_ready_ = false;
}

void LineRecords::heads() const {
  if (heads_ready_) return;
  std::string path_json;
  contract::JsonWriter(path_json).bytes(*path_);
  match_head_ = R"({"type":"match","path":)" + path_json + R"(,"line":)";
  context_head_ = R"({"type":"context","path":)" + path_json + R"(,"line":)";
  heads_ready_ = true;
}

size_t LineRecords::line_at(bool match) const {
  if (form_ == RecordForm::Text) return path_->size() + 1;
  heads();
  return (match ? match_head_ : context_head_).size();
}

void LineRecords::text_head(std::string& out, char sep, uint64_t line) const {
  out += *path_;
  out += sep;
  append_uint(out, line);
  out += sep;
}

void LineRecords::match(std::string& out, const LineEvent& ev, const std::string* witness) const {
  using namespace std::string_view_literals;
  if (form_ == RecordForm::Text) {
    text_head(out, ':', ev.line);
    out.append(ev.text);
    out += '\n';
    return;
  }
  heads();
  out += match_head_;
  Fields f;
  f.num(ev.line);
  f.put(R"(,"offset":)"sv);
  f.num(ev.offset);
  f.put(R"(,"spans":[)"sv);
  bool first = true;
  for (const Span& sp : *ev.spans) {
    if (f.room() < 64) f.flush(out);
    f.put(first ? "["sv : ",["sv);
    first = false;
    f.num(sp.start);
    f.put(',');
    f.num(sp.end);
    f.put(']');
  }
  f.put(']');
  if (ev.patterns) {
    f.put(R"(,"patterns":[)"sv);
    first = true;
    for (uint32_t i : *ev.patterns) {
      if (f.room() < 64) f.flush(out);
      if (!first) f.put(',');
      first = false;
      f.num(i);
    }
    f.put(']');
  }
  f.put(R"(,"text":)"sv);
  f.flush(out);
  append_text(out, ev.text);
  if (witness) {
    out += R"(,"witness":")"sv;
    out += *witness;
    out += '"';
  }
  out += "}\n"sv;
}

void LineRecords::context(std::string& out, const LineEvent& ev) const {
  using namespace std::string_view_literals;
  if (form_ == RecordForm::Text) {
    text_head(out, '-', ev.line);
    if (ev.too_long)
      out += "[" + std::to_string(ev.length) + " bytes, longer than --max-line-bytes]";
    else
      out.append(ev.text);
    out += '\n';
    return;
  }
  heads();
  out += context_head_;
  Fields f;
  f.num(ev.line);
  f.put(R"(,"offset":)"sv);
  f.num(ev.offset);
  f.flush(out);
  if (ev.too_long) {
    out += R"(,"text":null,"length":)"sv;
    append_uint(out, ev.length);
  } else {
    out += R"(,"text":)"sv;
    append_text(out, ev.text);
  }
  out += "}\n"sv;
}

}  // namespace text
