// near_miss.cpp — see near_miss.h.
#include "text/near_miss.h"

#include <algorithm>

namespace text {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

// The text as matched: a CRLF file's body without the '\r' of each "\r\n" (then every '\n' in
// it stands for "\r\n"); any other file as it is. Only the near-miss search (an error path)
// builds this view; matching itself works on the file's own bytes (see raw_form).
std::string to_view(std::string_view body, Eol eol) {
  if (eol != Eol::Crlf) return std::string(body);
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i)
    if (!(body[i] == '\r' && i + 1 < body.size() && body[i + 1] == '\n')) out += body[i];
  return out;
}
std::string from_view(std::string_view view, Eol eol) {
  if (eol != Eol::Crlf) return std::string(view);
  std::string out;
  out.reserve(view.size() + view.size() / 16);
  for (char c : view) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// A text as the file stores it. In a CRLF file the caller's "\n" and "\r\n" both mean a line
// ending, stored "\r\n"; elsewhere the bytes are the bytes. Matching these bytes in the file
// finds exactly what matching the caller's text in the view (to_view) would, with one
// exception the Finder removes: a match whose last byte is the '\r' of a "\r\n" (the view has
// no such '\r'). Spans map one to one, so counts, overlaps and containment are the same too,
// and the file never has to be copied into a view.
std::string raw_form(std::string_view text, bool crlf) {
  return crlf ? from_view(to_view(text, Eol::Crlf), Eol::Crlf) : std::string(text);
}

// The whole lines (as matched) spanning [from, to) of the view, and the first one's number.
std::pair<uint64_t, std::string> lines_around(std::string_view view, size_t from, size_t to) {
  size_t start = view.rfind('\n', from == 0 ? 0 : from - 1);
  start = (from == 0 || start == std::string_view::npos) ? 0 : start + 1;
  if (from > 0 && view[from - 1] == '\n') start = from;
  size_t end = view.find('\n', to == 0 ? 0 : to - 1);
  if (to > from && view[to - 1] == '\n') end = to - 1;
  if (end == std::string_view::npos) end = view.size();
  uint64_t line = 1 + static_cast<uint64_t>(std::count(view.begin(), view.begin() + static_cast<long>(start), '\n'));
  return {line, std::string(view.substr(start, end - start))};
}

// Near misses of a needle found nowhere: places that match once blanks (spaces, tabs) are
// ignored, and places an --old holding literal "\n"/"\t" escapes would match with the real
// characters. Each with its line and the exact lines there, so the next call can quote them.
// Searched in place (no squeezed copy of the file, no position table): from every byte equal
// to the needle's first non-blank one, the needle's non-blank bytes in order with only blanks
// between them.
contract::Json near_misses(std::string_view view, std::string_view needle) {
  using contract::Json;
  Json near = Json::array();
  auto full = [&] { return near.items().size() >= kMaxNear; };
  auto add = [&](size_t from, size_t to, std::string_view why) {
    if (full()) return;
    auto [line, lines] = lines_around(view, from, to);
    for (const Json& n : near.items())
      if (n.get("line")->as_uint() == line) return;
    near.push(Json::object({{"line", line}, {"text", Json::bytes(lines)}, {"why", why}}));
  };
  std::string sq;
  for (char c : needle)
    if (!is_blank(c)) sq += c;
  if (!sq.empty()) {
    for (size_t p = view.find(sq[0]); p != std::string_view::npos && !full();
         p = view.find(sq[0], p + 1)) {
      size_t i = p, k = 0, last = p;
      while (k < sq.size() && i < view.size()) {
        if (is_blank(view[i])) {
          ++i;
          continue;
        }
        if (view[i] != sq[k]) break;
        last = i++;
        ++k;
      }
      if (k == sq.size()) add(p, last + 1, "whitespace");
    }
  }
  // Escapes written literally: "\n" as backslash and n (a shell quoting slip).
  if (needle.find("\\n") != std::string_view::npos || needle.find("\\t") != std::string_view::npos) {
    std::string real;
    for (size_t i = 0; i < needle.size(); ++i) {
      if (needle[i] == '\\' && i + 1 < needle.size() && (needle[i + 1] == 'n' || needle[i + 1] == 't')) {
        real += needle[i + 1] == 'n' ? '\n' : '\t';
        ++i;
      } else {
        real += needle[i];
      }
    }
    for (size_t p = view.find(real); p != std::string_view::npos && !full(); p = view.find(real, p + 1))
      add(p, p + real.size(), "escaped-newline");
  }
  return near;
}

// The view of a whole text and the needle as matched there, for the near-miss search.
contract::Json near_of(std::string_view text, bool bom, Eol eol, std::string_view old_text) {
  const std::string view = to_view(text.substr(bom ? 3 : 0), eol);
  const std::string needle = eol == Eol::Crlf ? to_view(old_text, eol) : std::string(old_text);
  return near_misses(view, needle);
}


}  // namespace text
