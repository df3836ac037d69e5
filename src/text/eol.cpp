// eol.cpp — names of the line-ending kinds, as every answer about a file reports them.

#include "text/eol.h"

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

}  // namespace text
