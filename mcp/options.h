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
  // What a tool result's content holds: the tool's text rendering (a model reads it), or the
  // JSON answer (for clients that read content as JSON); structuredContent is the JSON either way.
  bool content_json = false;
  size_t max_content = 64u << 10;  // content past this many bytes is cut at a line and says so
};

// Parses argv into `o` (the root made real); false with `error` ("rule: message") otherwise.
bool parse_options(int argc, char** argv, Options& o, std::string& error);

// The real path of `p`, or empty when it cannot be resolved.
std::string real(const std::string& p);

}  // namespace mcp
