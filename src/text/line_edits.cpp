// line_edits.cpp — see line_edits.h.
#include "text/line_edits.h"

namespace text {

std::vector<Line> split_lines(std::string_view body) {
  std::vector<Line> lines;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    if (nl == std::string_view::npos) {
      lines.push_back({body.substr(pos), false});
      break;
    }
    lines.push_back({body.substr(pos, nl - pos), true});
    pos = nl + 1;
  }
  return lines;
}

std::string apply_line_edits(const std::vector<Line>& lines,
                             const std::vector<const LineEdit*>& edit_of, Eol eol, bool bom) {
  std::string out = bom ? std::string(kBom) : std::string();
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (!edit_of[i]) {
      out += l.raw;
      if (l.newline) out += '\n';
      continue;
    }
    const bool crlf =
        eol == Eol::Crlf || (eol == Eol::Mixed && !l.raw.empty() && l.raw.back() == '\r');
    const auto& repl = edit_of[i]->lines;
    for (size_t j = 0; j < repl.size(); ++j) {
      out += repl[j];
      if (j + 1 < repl.size() || l.newline) out += crlf ? "\r\n" : "\n";
    }
  }
  return out;
}

}  // namespace text
