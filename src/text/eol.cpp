// eol.cpp — names of the line-ending kinds, as every answer about a file reports them, and
// the rewrite a writer applies to its content (line endings and BOM).

#include "text/eol.h"

#include <algorithm>

namespace text {

std::string_view eol_name(Eol e) {
  switch (e) {
    case Eol::None:
      return "none";
    case Eol::Lf:
      return "lf";
    case Eol::Crlf:
      return "crlf";
    case Eol::Mixed:
      return "mixed";
  }
  return "none";  // unreachable for a valid Eol; keeps -Wreturn-type quiet
}

namespace {

// The content without the BOM Remove takes off, and whether Add puts one on.
std::string_view body_of(std::string_view in, BomWrite bom, bool& add) {
  add = bom == BomWrite::Add && !has_bom(in);
  if (bom == BomWrite::Remove && has_bom(in)) in.remove_prefix(kBom.size());
  return in;
}

}  // namespace

Rewrite rewritten_size(std::string_view in, EolWrite eol, BomWrite bom) {
  bool add = false;
  const std::string_view body = body_of(in, bom, add);
  uint64_t size = body.size() + (add ? kBom.size() : 0);
  uint64_t touched = 0;  // line endings rewritten
  if (eol != EolWrite::AsGiven) {
    for (size_t i = body.find('\n'); i != std::string_view::npos; i = body.find('\n', i + 1)) {
      const bool cr = i > 0 && body[i - 1] == '\r';
      if (eol == EolWrite::Crlf && !cr) ++touched, ++size;
      if (eol == EolWrite::Lf && cr) ++touched, --size;
    }
  }
  return {size, add || body.size() != in.size() || touched != 0};
}

size_t rewrite(std::string_view in, EolWrite eol, BomWrite bom, char* out) {
  bool add = false;
  const std::string_view body = body_of(in, bom, add);
  char* w = out;
  if (add) w = std::copy(kBom.begin(), kBom.end(), w);
  if (eol == EolWrite::AsGiven)
    return static_cast<size_t>(std::copy(body.begin(), body.end(), w) - out);
  size_t from = 0;  // copied up to here
  for (size_t i = body.find('\n'); i != std::string_view::npos; i = body.find('\n', i + 1)) {
    const bool cr = i > 0 && body[i - 1] == '\r';
    if (eol == EolWrite::Crlf && !cr) {
      w = std::copy(body.begin() + static_cast<long>(from), body.begin() + static_cast<long>(i), w);
      *w++ = '\r';
      from = i;  // the '\n' goes with the next run
    } else if (eol == EolWrite::Lf && cr) {
      w = std::copy(body.begin() + static_cast<long>(from), body.begin() + static_cast<long>(i - 1),
                    w);
      from = i;
    }
  }
  w = std::copy(body.begin() + static_cast<long>(from), body.end(), w);
  return static_cast<size_t>(w - out);
}

std::string rewritten(std::string_view in, EolWrite eol, BomWrite bom) {
  std::string out(rewritten_size(in, eol, bom).size, '\0');
  out.resize(rewrite(in, eol, bom, out.data()));
  return out;
}

}  // namespace text
