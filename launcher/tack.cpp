// tack — the launcher: `tack` lists the tools, `tack TOOL ARGS...` executes that tool's own
// binary from lib/tack/bin. It is an exec, not a multi-call binary: each tool keeps its own
// declared authority and sandbox, and the launcher is gone once the tool runs. The tools live
// outside PATH so that none of them shadows a system command of the same name (write, edit).
//
// The list of tools and their summaries is generated at build time from each tool's own
// introspect (gen/launcher.py), so the launcher says nothing about a tool the table does not.

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Entry {
  const char* name;     // what the user types after `tack`
  const char* binary;   // the file in the tools' directory
  const char* summary;  // the first sentence of the tool's summary
};

#include "launcher/tools.inc"  // constexpr Entry kEntries[]

std::string self_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

// Installed, the tools are in PREFIX/lib/tack/bin and the launcher in PREFIX/bin; in a build
// tree they sit next to it.
std::string tools_dir() {
  std::string dir = self_dir();
  std::string installed = dir + "/../lib/tack/bin";
  if (access((installed + "/" + kEntries[0].binary).c_str(), X_OK) == 0) {
    char real[PATH_MAX];
    if (realpath(installed.c_str(), real)) return real;
    return installed;
  }
  return dir;
}

const Entry* find(std::string_view name) {
  for (auto& e : kEntries)
    if (name == e.name || name == e.binary) return &e;
  return nullptr;
}

// Edit distance, for "did you mean" on a mistyped tool name.
size_t distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diag = up;
    }
  }
  return row[b.size()];
}

int list(FILE* out) {
  std::fprintf(out,
               "usage: tack TOOL [ARGS...]   run a tack tool (tack TOOL --help for its use)\n"
               "       tack --version\n\ntools (in %s):\n",
               tools_dir().c_str());
  size_t width = 0;
  for (auto& e : kEntries) width = std::max(width, std::strlen(e.name));
  for (auto& e : kEntries)
    std::fprintf(out, "  %-*s  %s\n", static_cast<int>(width), e.name, e.summary);
  std::fprintf(out, "\nman tack-TOOL for a tool's manual; TOOL skill for its SKILL.md.\n");
  return std::ferror(out) || std::fflush(out) != 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return list(stdout);
  std::string_view first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") return list(stdout);
  if (first == "--version") {
    std::printf("tack %s\n", TACK_VERSION);
    return std::fflush(stdout) != 0 ? 1 : 0;
  }
  const Entry* e = find(first);
  if (!e) {
    const Entry* near = nullptr;
    size_t best = 3;
    for (auto& c : kEntries)
      if (size_t d = distance(first, c.name); d < best) best = d, near = &c;
    std::fprintf(stderr,
                 "tack: args.unknown-tool: '%.*s' is not a tack tool%s%s%s; tack lists them\n",
                 static_cast<int>(first.size()), first.data(), near ? " (did you mean " : "",
                 near ? near->name : "", near ? "?)" : "");
    return 2;
  }
  // The tool sees its own full path as argv[0], so a retry repair it prints (an argv that runs
  // as it stands) names this binary, not a system command that shares the tool's name.
  std::string path = tools_dir() + "/" + e->binary;
  std::vector<char*> args;
  args.push_back(path.data());
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(path.c_str(), args.data());
  std::fprintf(stderr, "tack: io.exec-failed: %s: %s\n", path.c_str(), std::strerror(errno));
  return errno == ENOENT ? 3 : 1;
}
