// fuzz-sources: src/text/edits.cpp src/text/witness.cpp src/contract/json.cpp src/text/json_bytes.cpp
// libFuzzer target: the edits-list parser of replace --edits-file and edit. Any bytes parse
// into a list of edits or one error, never crash. An error is well formed (a sentence; a syntax
// error's offset inside the input; a shape error's index inside the list). A list that parses
// keeps its invariants (1..kMaxEdits edits; replace: "old" non-empty and != "new", expect >= 1,
// and expect == 1 when all; edit: witness parses to its value, no line holds '\n') and round
// trips: written back with tack's own JsonWriter (text_or_bytes), it parses to the same edits.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "contract/json.h"
#include "text/edits.h"
#include "text/witness.h"

namespace {

void check_error(const text::EditsError& e, std::string_view in) {
  if (e.message.empty() || e.message.back() != '.') __builtin_trap();
  if (e.kind == text::EditsError::Kind::Syntax && e.offset > in.size()) __builtin_trap();
  if (e.kind == text::EditsError::Kind::Shape &&
      (e.index < -1 || e.index >= static_cast<int64_t>(text::kMaxEdits)))
    __builtin_trap();
}

std::string write_replace(const std::vector<text::ReplaceEdit>& edits) {
  std::string out;
  contract::JsonWriter w(out);
  w.begin_array();
  for (auto& e : edits) {
    w.begin_object();
    w.key("old");
    w.bytes(e.old_text);
    w.key("new");
    w.bytes(e.new_text);
    if (e.all) {
      w.key("all");
      w.boolean(true);
    } else {
      w.key("expect");
      w.unsigned_integer(e.expect);
    }
    w.end_object();
  }
  w.end_array();
  return out;
}

std::string write_lines(const std::vector<text::LineEdit>& edits) {
  std::string out;
  contract::JsonWriter w(out);
  w.begin_array();
  for (auto& e : edits) {
    w.begin_object();
    w.key("witness");
    w.string(e.witness);
    w.key("lines");
    w.begin_array();
    for (auto& l : e.lines) w.bytes(l);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  return out;
}

void replace(std::string_view in) {
  auto r = text::parse_replace_edits(in);
  if (auto* e = std::get_if<text::EditsError>(&r)) {
    check_error(*e, in);
    if (e->kind == text::EditsError::Kind::Shape && e->index >= 0 && e->field.empty() &&
        e->message.find("not a JSON object") == std::string::npos)
      __builtin_trap();
    return;
  }
  auto& edits = std::get<std::vector<text::ReplaceEdit>>(r);
  if (edits.empty() || edits.size() > text::kMaxEdits) __builtin_trap();
  for (auto& e : edits) {
    if (e.old_text.empty() || e.old_text == e.new_text || e.expect == 0) __builtin_trap();
    if (e.all && e.expect != 1) __builtin_trap();
  }
  std::string again_text = write_replace(edits);
  auto again = text::parse_replace_edits(again_text);
  auto* a = std::get_if<std::vector<text::ReplaceEdit>>(&again);
  if (!a || a->size() != edits.size()) __builtin_trap();
  for (size_t i = 0; i < edits.size(); ++i) {
    const auto &x = edits[i], &y = (*a)[i];
    if (x.old_text != y.old_text || x.new_text != y.new_text || x.expect != y.expect || x.all != y.all)
      __builtin_trap();
  }
}

void lines(std::string_view in) {
  auto r = text::parse_line_edits(in);
  if (auto* e = std::get_if<text::EditsError>(&r)) {
    check_error(*e, in);
    return;
  }
  auto& edits = std::get<std::vector<text::LineEdit>>(r);
  if (edits.empty() || edits.size() > text::kMaxEdits) __builtin_trap();
  for (auto& e : edits) {
    uint32_t v = 0;
    if (!text::parse_witness(e.witness, v) || v != e.value) __builtin_trap();
    for (auto& l : e.lines)
      if (l.find('\n') != std::string::npos) __builtin_trap();
  }
  std::string again_text = write_lines(edits);
  auto again = text::parse_line_edits(again_text);
  auto* a = std::get_if<std::vector<text::LineEdit>>(&again);
  if (!a || a->size() != edits.size()) __builtin_trap();
  for (size_t i = 0; i < edits.size(); ++i)
    if (edits[i].witness != (*a)[i].witness || edits[i].value != (*a)[i].value ||
        edits[i].lines != (*a)[i].lines)
      __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  replace(in);
  lines(in);
  return 0;
}
