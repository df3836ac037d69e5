// link_target.h — whether a path a reader opened as given (no --root) ran through a symbolic
// link, and where it led. Readers follow links without a root (CONTRACT.md §5); this lets the
// answer say so, so that `notes/todo.md` through a linked `notes` is never silently a file
// somewhere else.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace os {

// `fd` is the descriptor `spelled` was opened as (relative to the working directory, or
// absolute). When some component of `spelled`, a directory or the last one, is a symbolic
// link: the absolute path the kernel resolved it to. Otherwise nullopt, also when it cannot be
// told. Cheap when nothing is a link: the descriptor's /proc/self/fd name is compared with the
// lexical absolute spelling (one readlink, and a getcwd for a relative path); only when they
// differ are the components looked at (lstat each), so a renamed-away file or a bind mount is
// not taken for a link. Without /proc it looks at the components and resolves with realpath.
// No open and no write: it works under a read-only Landlock and seccomp profile.
std::optional<std::string> link_target(int fd, std::string_view spelled);

// Makes link_target take the way it takes without /proc, so the unit tests can hold both ways
// to the same answers.
void force_no_proc_for_tests(bool on);

}  // namespace os
