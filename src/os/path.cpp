// path.cpp — lexical path checks (CONTRACT.md §5). Pure string work: nothing here touches the
// file system except getcwd for a relative --root, so every verdict is the same on any machine.
#include "os/path.h"

#include <unistd.h>

#include <cerrno>
#include <vector>

#include "contract/json.h"

namespace os {
namespace {

// Splits on '/', dropping empty and `.` components: `a//./b/` and `a/b` are the same name.
std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view c = path.substr(i, j - i);
    if (!c.empty() && c != ".") out.push_back(c);
    i = j + 1;
  }
  return out;
}

bool has_dotdot(std::string_view path) {
  for (std::string_view c : components(path)) {
    if (c == "..") return true;
  }
  return false;
}

// True when the normal absolute path `p` is `root` or lies beneath it. Both are normal forms,
// so a prefix that ends on a component boundary is a component-wise prefix: `/rootevil` is
// not beneath `/root`.
bool beneath(std::string_view root, std::string_view p) {
  if (root == "/") return !p.empty() && p[0] == '/';
  if (p.size() < root.size() || p.compare(0, root.size(), root) != 0) return false;
  return p.size() == root.size() || p[root.size()] == '/';
}

// The spelling of `p` relative to `root`, given beneath(root, p): "." for the root itself.
std::string relative_to(std::string_view root, std::string_view p) {
  size_t skip = root == "/" ? 1 : root.size() + 1;
  if (p.size() <= skip) return ".";
  return std::string(p.substr(skip));
}

// Built by appending: g++ 12 at -O3 warns falsely (-Wrestrict) on "'" + std::string.
std::string quoted(std::string_view path) {
  std::string out(1, '\'');
  out += contract::printable(path);
  out += '\'';
  return out;
}

CheckedPath with_issue(std::string path, std::string_view rule, std::string message,
                       std::optional<std::string> replacement = std::nullopt) {
  return CheckedPath{std::move(path), PathIssue{rule, std::move(message), std::move(replacement)}};
}

}  // namespace

std::string normalize(std::string_view path, bool resolve_dotdot) {
  const bool absolute = !path.empty() && path[0] == '/';
  std::vector<std::string_view> kept;
  for (std::string_view c : components(path)) {
    if (resolve_dotdot && c == "..") {
      if (!kept.empty() && kept.back() != "..") {
        kept.pop_back();
        continue;
      }
      // `/..` is `/`; a relative `..` above the start has nothing to cancel and stays.
      if (absolute) continue;
    }
    kept.push_back(c);
  }
  std::string out;
  if (absolute) out += '/';
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) out += '/';
    out += kept[i];
  }
  if (out.empty()) out.push_back('.');
  return out;
}

void join_into(std::string& out, std::string_view dir, std::string_view name) {
  if (dir.empty() || dir == ".") {
    out.assign(name);
    return;
  }
  out.reserve(dir.size() + 1 + name.size());
  out.assign(dir);
  if (dir.back() != '/') out += '/';
  out += name;
}

std::string join(std::string_view dir, std::string_view name) {
  std::string out;
  join_into(out, dir, name);
  return out;
}

std::string absolute_root(std::string_view root) {
  if (!root.empty() && root[0] == '/') return normalize(root, true);
  // getcwd with a growing buffer: a working directory can be deeper than PATH_MAX.
  std::string cwd(4096, '\0');
  while (getcwd(cwd.data(), cwd.size()) == nullptr) {
    // An unreachable or deleted working directory: there is no honest absolute spelling, so
    // keep the relative one; check_path then treats every absolute operand as outside.
    if (errno != ERANGE) return normalize(root, true);
    cwd.resize(cwd.size() * 2);
  }
  cwd.resize(cwd.find('\0'));
  return normalize(cwd + "/" + std::string(root), true);
}

CheckedPath check_path(std::string_view root_abs, std::string_view path) {
  if (path.empty()) return with_issue("", "path.empty", "the path is empty");
  if (path.size() > kPathMax) {
    return with_issue(std::string(path), "path.too-long",
                      "the path is " + std::to_string(path.size()) +
                          " bytes long, past the limit of " + std::to_string(kPathMax) + " bytes");
  }
  // A NUL cannot be part of a name: the kernel would stop reading at it and open another file.
  if (path.find('\0') != std::string_view::npos) {
    return with_issue(std::string(path), "path.bad-name",
                      "the path " + quoted(path) + " contains a NUL byte");
  }
  if (root_abs.empty()) return CheckedPath{normalize(path, false), std::nullopt};

  if (path[0] == '/') {
    std::string normal = normalize(path, true);
    if (root_abs[0] == '/' && beneath(root_abs, normal)) {
      std::string rel = relative_to(root_abs, normal);
      return with_issue(normal, "path.absolute",
                        "the path " + quoted(path) +
                            " is absolute; paths are relative to the root, which it spells " +
                            quoted(rel),
                        rel);
    }
    return with_issue(normal, "path.outside-root",
                      "the path " + quoted(path) + " is outside the root " + quoted(root_abs));
  }

  if (has_dotdot(path)) {
    std::string normal = normalize(path, true);
    if (normal == ".." || normal.starts_with("../")) {
      return with_issue(normalize(path, false), "path.dotdot",
                        "the path " + quoted(path) + " has a '..' component that leaves the root");
    }
    return with_issue(
        normal, "path.dotdot",
        "the path " + quoted(path) + " has a '..' component; its normal form is " + quoted(normal),
        normal);
  }
  return CheckedPath{normalize(path, false), std::nullopt};
}

std::optional<std::string> beneath_form(std::string_view root_abs, std::string_view path) {
  CheckedPath c = check_path(root_abs, path);
  if (!c.issue) return std::move(c.path);
  if (c.issue->rule == "path.absolute" && c.issue->replacement) return *c.issue->replacement;
  return std::nullopt;
}

}  // namespace os
