// fuzz-sources: src/os/path.cpp src/contract/json.cpp
// libFuzzer target: the lexical path checks. Any bytes must classify without crashing; a
// path that passes is in normal form and passes again unchanged; a suggested replacement
// passes the check as it stands.
#include <cstdint>
#include <string>

#include "os/path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path(reinterpret_cast<const char*>(data), size);
  for (const char* root : {"/srv/root", ""}) {
    os::CheckedPath c = os::check_path(root, path);
    if (!c.issue) {
      os::CheckedPath again = os::check_path(root, c.path);
      if (again.issue || again.path != c.path) __builtin_trap();
      if (*root && (c.path == ".." || c.path.starts_with("../") || c.path[0] == '/'))
        __builtin_trap();
    } else if (c.issue->replacement) {
      os::CheckedPath fixed = os::check_path(root, *c.issue->replacement);
      if (fixed.issue) __builtin_trap();
    }
  }
  return 0;
}
