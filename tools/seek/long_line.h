// long_line.h — seek's limit.line-too-long: the error a file's long matching lines raise, and
// its repair (the same search on that file with a cap that holds them, or past the ceiling
// peek on the bytes around the first occurrence).
#pragma once

#include <string>
#include <vector>

#include "contract/error.h"
#include "text/scan.h"
#include "tools/seek/args.h"

namespace seek {

// Bytes shown either side of an occurrence in a long line: peek --bytes reads that window.
constexpr uint64_t kWindowSide = 256;

// The error for the long lines of one file scanned into `r`; `read` reads its bytes.
contract::Error long_line_error(const Args& a, const std::string& path, const text::ScanResult& r,
                                const text::ReadAt& read);

// What a repair repeats of the call that raised the error.
struct Invocation {
  std::string self;   // argv[0]
  std::string root;   // --root as given, or empty
  bool text = false;  // --format text
  bool max_count_given = false;
};

// Sets the repair and hint of a limit.line-too-long error made by long_line_error.
void repair_long_line(contract::Error& e, const Args& a, const Invocation& call);

// The repair's argv when the longest line is within the ceiling: the same search on that one
// file with --max-line-bytes at its longest line.
std::vector<std::string> show_long_lines(const Args& a, const Invocation& call,
                                         const std::string& path, uint64_t longest);

// The repair's argv past the ceiling: peek, the tool beside this one, on bytes `range`.
std::vector<std::string> peek_window(const Invocation& call, const std::string& path,
                                     const std::string& range);

}  // namespace seek
