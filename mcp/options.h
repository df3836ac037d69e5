// options.h — tack-mcp's command line, and the path helpers its roots use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mcp {

extern const char* const kUsage;

struct Options {
  std::string root;
  std::vector<std::string> tools;
  bool read_only = false;
  size_t max_concurrent = 8;
  uint64_t timeout_ms = 60000;
  size_t max_output = 64u << 20;
};

// Parses argv into `o` (the root made real); false with `error` ("rule: message") otherwise.
bool parse_options(int argc, char** argv, Options& o, std::string& error);

// The real path of `p`, or empty when it cannot be resolved.
std::string real(const std::string& p);

}  // namespace mcp
