// args.h — seek's arguments, as its table in tools/seek.cpp binds them, shared by its units.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace seek {

struct Args {
  std::string pattern;
  std::vector<std::string> patterns;  // -e, in order: with any, every operand is a PATH
  std::vector<std::string> paths;
  bool regex = false, icase = false, word = false, count = false, files = false;
  uint64_t max_count = 0, skip = 0, context = 0, max_line_bytes = 0, threads = 0;
  uint64_t last = 0;              // --last N: the last N matching lines (0: not asked)
  std::optional<uint64_t> before;  // --before K: with --last, only matches before ordinal K
  uint64_t max_bytes = 0;         // the answer's byte budget
  bool witness = false, hidden = false, no_ignore = false, require_match = false;
  std::vector<std::string> globs;
};

// The ceiling of --max-line-bytes: past it a long line is read in pieces with peek.
constexpr uint64_t kLineCeiling = 16 * 1024 * 1024;
// The most threads --threads takes.
constexpr uint64_t kMaxThreads = 64;

}  // namespace seek
