// options.cpp — tack-mcp's command line (see options.h).
#include "mcp/options.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>

namespace mcp {

const char* const kUsage =
    "usage: tack-mcp --root DIR [--tools NAME,...] [--read-only] [--max-concurrent N]\n"
    "                [--timeout-ms N] [--max-output N] [--content text|json] [--max-content N]\n"
    "Serves the tack tools over MCP (stdio). Every call runs the tool's own binary beneath DIR;\n"
    "roots the client declares can only narrow DIR. --read-only offers only the tools that\n"
    "change nothing. --content json puts the JSON answer in each result's content instead of\n"
    "the compact text a model reads (structuredContent holds the JSON either way).\n"
    "Each tool a session has called keeps two processes started ahead of its next calls\n"
    "(TOOL --tack-mcp-waiting, a mode only a tack-mcp parent can use): each takes one call's\n"
    "argv on its stdin, parses it and installs its own sandbox as a fresh start would (its\n"
    "seccomp filter, which depends on the tool alone, is loaded while it waits).\n";

std::string real(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool parse_options(int argc, char** argv, Options& o, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string value;
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq);
    auto need = [&]() -> bool {
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        return true;
      }
      if (i + 1 >= argc) {
        error = "args.missing-value: " + name + " needs a value";
        return false;
      }
      value = argv[++i];
      return true;
    };
    auto number = [&](uint64_t& out) {
      if (!need()) return false;
      if (value.empty() || value.size() > 12 || value.find_first_not_of("0123456789") != std::string::npos ||
          std::stoull(value) == 0) {
        error = "args.bad-value: " + name + " takes a whole number above 0";
        return false;
      }
      out = std::stoull(value);
      return true;
    };
    if (name == "--root") {
      if (!need()) return false;
      o.root = value;
    } else if (name == "--tools") {
      if (!need()) return false;
      o.tools.clear();
      for (size_t k = 0; k <= value.size();) {
        size_t c = value.find(',', k);
        if (c == std::string::npos) c = value.size();
        if (c > k) o.tools.push_back(value.substr(k, c - k));
        k = c + 1;
      }
    } else if (name == "--read-only" && eq == std::string::npos) {
      o.read_only = true;
    } else if (name == "--max-concurrent") {
      uint64_t v;
      if (!number(v)) return false;
      o.max_concurrent = std::min<uint64_t>(v, 64);
    } else if (name == "--timeout-ms") {
      if (!number(o.timeout_ms)) return false;
    } else if (name == "--max-output") {
      uint64_t v;
      if (!number(v)) return false;
      o.max_output = static_cast<size_t>(std::min<uint64_t>(v, 1ull << 30));
    } else if (name == "--content") {
      if (!need()) return false;
      if (value != "text" && value != "json") {
        error = "args.bad-value: --content takes text or json";
        return false;
      }
      o.content_json = value == "json";
    } else if (name == "--max-content") {
      uint64_t v;
      if (!number(v)) return false;
      o.max_content = static_cast<size_t>(std::min<uint64_t>(v, 64ull << 20));
    } else {
      error = "args.unknown-flag: unknown flag " + a;
      return false;
    }
  }
  if (o.root.empty()) {
    error = "args.required-flag: --root DIR is required (the directory every call stays beneath)";
    return false;
  }
  std::string r = real(o.root);
  struct stat st;
  if (r.empty() || stat(r.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    error = "io.not-found: --root " + o.root + " is not a directory";
    return false;
  }
  o.root = r;
  return true;
}

}  // namespace mcp
