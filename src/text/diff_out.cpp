// diff_out.cpp — a Diff given out: as JSON (the writers' answers), as diff -u text, and
// applied back to the old text (how the tests prove a diff exact). See diff.h.
#include <string>
#include <vector>

#include "text/diff.h"
#include "text/eol.h"

namespace text {
namespace {

// Only a line that ends in '\n' has a line ending to hide: a '\r' at the very end of a file
// without a final newline is a byte of the last line, and showing it keeps the diff exact.
// Line 1 of a file with a BOM is shown without it. `first`: the line is line 1 of the file
// it is shown under.
std::string_view shown(const DiffLine& l, Eol old_eol, Eol new_eol, bool first, bool bom) {
  std::string_view t = l.text;
  if (first && bom && has_bom(t)) t.remove_prefix(kBom.size());
  if (!l.newline) return t;
  return shown_line(t, l.op == '-' ? old_eol : new_eol);
}

}  // namespace

bool apply(std::string_view old_text, const Diff& diff, std::string& out) {
  struct LineRef {
    std::string_view text;
    bool newline;
  };
  std::vector<LineRef> a;
  for (size_t i = 0; i < old_text.size();) {
    size_t j = old_text.find('\n', i);
    if (j == std::string_view::npos) {
      a.push_back({old_text.substr(i), false});
      break;
    }
    a.push_back({old_text.substr(i, j - i), true});
    i = j + 1;
  }
  out.clear();
  size_t i = 0;  // next old line to copy
  auto put = [&](const LineRef& l) {
    out += l.text;
    if (l.newline) out += '\n';
  };
  for (const Hunk& h : diff.hunks) {
    size_t start = h.old_lines ? h.old_start - 1 : h.old_start;
    if (start < i || start > a.size()) return false;
    while (i < start) put(a[i++]);
    for (const DiffLine& l : h.lines) {
      if (l.op == '+') {
        put({l.text, l.newline});
        continue;
      }
      if (i >= a.size() || a[i].text != l.text || a[i].newline != l.newline) return false;
      if (l.op == ' ') put(a[i]);
      ++i;
    }
  }
  while (i < a.size()) put(a[i++]);
  return true;
}

contract::Json diff_json(const Diff& diff) {
  using contract::Json;
  Json hunks = Json::array();
  for (const Hunk& h : diff.hunks) {
    Json lines = Json::array();
    // The number in its file of the next old and new line (a side with no lines in the hunk
    // names the line after which it sits).
    uint64_t old_n = h.old_lines ? h.old_start : h.old_start + 1;
    uint64_t new_n = h.new_lines ? h.new_start : h.new_start + 1;
    for (const DiffLine& l : h.lines) {
      const bool removed = l.op == '-';
      const bool first = removed ? old_n == 1 : new_n == 1;
      const std::string_view text =
          shown(l, diff.old_eol, diff.new_eol, first, removed ? diff.old_bom : diff.new_bom);
      if (l.op != '+') ++old_n;
      if (!removed) ++new_n;
      Json j = Json::object({{"op", std::string(1, l.op)}, {"text", Json::bytes(text)}});
      if (!l.newline) j.set("no_newline", true);
      lines.push(std::move(j));
    }
    hunks.push(Json::object({{"old_start", h.old_start},
                             {"old_lines", h.old_lines},
                             {"new_start", h.new_start},
                             {"new_lines", h.new_lines},
                             {"lines", std::move(lines)}}));
  }
  return Json::object({{"added", diff.added},
                       {"removed", diff.removed},
                       {"old_eol", eol_name(diff.old_eol)},
                       {"new_eol", eol_name(diff.new_eol)},
                       {"old_bom", diff.old_bom},
                       {"new_bom", diff.new_bom},
                       {"hunks", std::move(hunks)}});
}

void render_diff(const contract::Json& diff, std::string& out) {
  auto range = [](uint64_t start, uint64_t count) {
    std::string s = std::to_string(start);
    if (count != 1) s += "," + std::to_string(count);
    return s;
  };
  const contract::Json* hunks = diff.get("hunks");
  if (!hunks) return;
  for (const contract::Json& h : hunks->items()) {
    out += "@@ -" + range(h.get("old_start")->as_uint(), h.get("old_lines")->as_uint()) + " +" +
           range(h.get("new_start")->as_uint(), h.get("new_lines")->as_uint()) + " @@\n";
    for (const contract::Json& l : h.get("lines")->items()) {
      out += l.get("op")->str();
      out += l.get("text")->str();
      out += '\n';
      if (l.get("no_newline")) out += "\\ No newline at end of file\n";
    }
  }
}

}  // namespace text
