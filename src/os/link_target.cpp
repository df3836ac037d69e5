// link_target.cpp — see link_target.h.
#include "os/link_target.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>

#include "os/path.h"

namespace os {
namespace {

std::atomic<bool> g_no_proc{false};

// The name the kernel gives the open file: its absolute path as resolved, links followed.
std::optional<std::string> fd_name(int fd) {
  if (g_no_proc) return std::nullopt;
  std::string proc = "/proc/self/fd/" + std::to_string(fd);
  std::string buf(PATH_MAX, '\0');
  for (;;) {
    ssize_t n = readlink(proc.c_str(), buf.data(), buf.size());
    if (n < 0) return std::nullopt;
    if (static_cast<size_t>(n) < buf.size()) {
      buf.resize(static_cast<size_t>(n));
      return buf;
    }
    if (buf.size() >= 16 * PATH_MAX) return std::nullopt;  // a name that long is not a path
    buf.resize(buf.size() * 2);
  }
}

// True when some prefix of `spelled` (each component in turn, the last included) is a
// symbolic link. `.` and empty components add nothing; `..` is looked up as written.
bool has_link_component(std::string_view spelled) {
  std::string prefix;
  if (!spelled.empty() && spelled[0] == '/') prefix = "/";
  size_t i = 0;
  while (i < spelled.size()) {
    size_t j = spelled.find('/', i);
    if (j == std::string_view::npos) j = spelled.size();
    std::string_view c = spelled.substr(i, j - i);
    i = j + 1;
    if (c.empty() || c == ".") continue;
    if (!prefix.empty() && prefix.back() != '/') prefix += '/';
    prefix += c;
    struct stat st {};
    if (lstat(prefix.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return true;
  }
  return false;
}

}  // namespace

void force_no_proc_for_tests(bool on) {
  g_no_proc = on;
}

std::optional<std::string> link_target(int fd, std::string_view spelled) {
  if (spelled.empty() || spelled.find('\0') != std::string_view::npos) return std::nullopt;
  std::optional<std::string> name = fd_name(fd);
  if (name) {
    // absolute_root gives the lexical absolute form (cwd joined, `.`, `//` and `..` folded);
    // the kernel's name has no link in it, so the two agree exactly when none was followed.
    if (*name == absolute_root(spelled)) return std::nullopt;
    if (!has_link_component(spelled)) return std::nullopt;
    return name;
  }
  // No /proc (a bare chroot or container): the components, then the C library's resolution.
  if (!has_link_component(spelled)) return std::nullopt;
  std::string path(spelled);
  std::unique_ptr<char, decltype(&free)> real(realpath(path.c_str(), nullptr), &free);
  if (!real) return std::nullopt;
  return std::string(real.get());
}

}  // namespace os
