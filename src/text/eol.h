// eol.h — the line-ending policy shared by every reader and editor (TOOLS.md): a file in
// which every '\n' follows a '\r' is CRLF; any other file (LF, mixed, none) is taken raw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace text {

enum class Eol { None, Lf, Crlf, Mixed };
std::string_view eol_name(Eol e);  // "none" | "lf" | "crlf" | "mixed"

// Fed line by line (text without '\n', newline = it ended with '\n').
class EolCounter {
 public:
  void add(std::string_view line, bool newline) {
    if (!newline) return;
    if (!line.empty() && line.back() == '\r')
      ++crlf_;
    else
      ++lf_;
  }
  Eol result() const {
    if (crlf_ == 0 && lf_ == 0) return Eol::None;
    if (lf_ == 0) return Eol::Crlf;
    if (crlf_ == 0) return Eol::Lf;
    return Eol::Mixed;
  }
  bool mixed() const { return crlf_ != 0 && lf_ != 0; }

 private:
  uint64_t crlf_ = 0, lf_ = 0;
};

// The line as shown under the policy: without its trailing '\r' when the file is CRLF.
inline std::string_view shown_line(std::string_view line, Eol e) {
  if (e == Eol::Crlf && !line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

inline constexpr std::string_view kBom = "\xEF\xBB\xBF";
inline bool has_bom(std::string_view head) { return head.substr(0, 3) == kBom; }

// How a writer turns the content it was given into the bytes it writes. Crlf puts a '\r'
// before every '\n' that has none (a "\r\n" stays, a lone '\r' stays); Lf takes the '\r'
// out of every "\r\n" (one pass: "\r\r\n" gives "\r\n"). Add puts a BOM first unless one
// is there; Remove takes one leading BOM off. The BOM is settled first, then the line endings.
enum class EolWrite { AsGiven, Lf, Crlf };
enum class BomWrite { AsGiven, Add, Remove };

struct Rewrite {
  uint64_t size = 0;     // the bytes it gives
  bool changed = false;  // they differ from the input
};
// At most 2 * in.size() + 3 bytes (Crlf of nothing but '\n', and a BOM).
Rewrite rewritten_size(std::string_view in, EolWrite eol, BomWrite bom);
// Writes the rewritten bytes to out, which has room for rewritten_size(in, eol, bom).size;
// returns how many it wrote.
size_t rewrite(std::string_view in, EolWrite eol, BomWrite bom, char* out);
std::string rewritten(std::string_view in, EolWrite eol, BomWrite bom);

}  // namespace text
