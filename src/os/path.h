// path.h — lexical path checks (CONTRACT.md §5), pure: no system call but getcwd for a
// relative root. They run before anything is opened, so a bad path is refused with a tag and,
// where one exists, the spelling that would have been right.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace os {

inline constexpr size_t kPathMax = 4096;

struct PathIssue {
  // path.empty, path.too-long, path.bad-name (a NUL byte), path.dotdot, path.absolute,
  // path.outside-root
  std::string_view rule;
  std::string message;
  // The spelling to retry with: the normal form of a `..` path that stays inside the root, or
  // the relative spelling of an absolute path under the root. Empty when there is none.
  std::optional<std::string> replacement;
};

struct CheckedPath {
  std::string path;  // normal form: `.` and empty components removed, no trailing `/`;
                     // "." for the root itself. With an issue it is only for display:
                     // never open it (the replacement is the spelling to retry with).
  std::optional<PathIssue> issue;
};

// Lexical normal form of an absolute or relative path: collapses `//`, `.`, a trailing `/`;
// with resolve_dotdot, `a/../b` becomes `b` (a `..` above the start stays as `..`).
std::string normalize(std::string_view path, bool resolve_dotdot);

// `dir`/`name`, or `name` alone where `dir` is "" or "." (no second '/' after a trailing one);
// join_into writes it into `out`'s own storage (a buffer reused for each name of a walk).
void join_into(std::string& out, std::string_view dir, std::string_view name);
std::string join(std::string_view dir, std::string_view name);

// The absolute lexical spelling of `root` (joined to the working directory when relative).
std::string absolute_root(std::string_view root);

// Checks `path` against `root_abs` (from absolute_root; empty when there is no --root).
// Without a root only path.empty and path.too-long apply and the path is kept as given
// (normalized only for `//`, `.` and a trailing `/`).
CheckedPath check_path(std::string_view root_abs, std::string_view path);

// The relative normal form of `path` when it lies lexically beneath `root_abs` (relative,
// without a `..` that leaves it, or absolute under it); nothing otherwise.
std::optional<std::string> beneath_form(std::string_view root_abs, std::string_view path);

}  // namespace os
