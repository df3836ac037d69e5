// eol.h — the line-ending policy shared by every reader and editor (TOOLS.md): a file in
// which every '\n' follows a '\r' is CRLF; any other file (LF, mixed, none) is taken raw.
#pragma once

#include <cstdint>
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

}  // namespace text
