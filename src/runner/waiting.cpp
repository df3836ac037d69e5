// waiting.cpp — see waiting.h.
#include "runner/waiting.h"

#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "os/sandbox.h"

namespace contract::waiting {

namespace {

std::string link_text(const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::string beside(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash) + "/tack-mcp";
}

// Whether the parent is the tack-mcp beside this binary: beside the file it runs, or beside
// the path it was started as (the server starts each tool as DIR/TOOL from its own DIR, which
// may hold a link to the tool). A server whose binary was replaced while it runs reads as
// "PATH (deleted)": still the program that was at that path.
bool parent_is_server(const char* argv0) {
  std::string parent = link_text("/proc/" + std::to_string(getppid()) + "/exe");
  constexpr std::string_view kDeleted = " (deleted)";
  if (parent.ends_with(kDeleted)) parent.resize(parent.size() - kDeleted.size());
  if (parent.empty()) return false;
  return parent == beside(link_text("/proc/self/exe")) || parent == beside(argv0);
}

bool read_exact(char* p, size_t n) {
  while (n > 0) {
    ssize_t got = ::read(0, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

std::string encode(const std::vector<std::string>& argv, RootId root) {
  std::string body;
  for (auto& a : argv) {
    body += a;
    body += '\0';
  }
  uint32_t n = static_cast<uint32_t>(body.size());
  const uint64_t id[2] = {root.dev, root.ino};
  std::string msg(reinterpret_cast<const char*>(&n), sizeof n);
  msg.append(reinterpret_cast<const char*>(id), sizeof id);
  return msg + body;
}

bool receive(const Tool& tool, int argc, char** argv, Received& out) {
  if (argc != 2 || std::strcmp(argv[1], kFlag) != 0) return false;
  // A waiting process dies with the server (set before the check: a server that died just
  // before it was a parent this check no longer sees, and the flag is then refused).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (!parent_is_server(argv[0])) return false;
  // Not loaded here (a kernel without seccomp, a tool that starts programs): contract::main
  // loads it after parsing, or says why it could not.
  os::apply_seccomp_ahead(tool);
  uint32_t n = 0;
  uint64_t id[2] = {0, 0};
  if (!read_exact(reinterpret_cast<char*>(&n), sizeof n) || n == 0 || n > kMaxMessage ||
      !read_exact(reinterpret_cast<char*>(id), sizeof id))
    std::_Exit(0);
  out.root = {id[0], id[1]};
  std::string body(n, '\0');
  if (!read_exact(body.data(), n) || body.back() != '\0') std::_Exit(0);
  for (size_t k = 0; k < body.size();) {
    size_t e = body.find('\0', k);
    out.argv.emplace_back(body, k, e - k);
    k = e + 1;
  }
  return true;
}

}  // namespace contract::waiting
