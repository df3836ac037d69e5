// sandbox.cpp — the kernel-held part of a tool's authority. Today: no_new_privs, so nothing a
// tool starts can gain privileges. The Landlock ruleset and the seccomp filter built from the
// tool's effects are the next layer on this same entry point.
#include "os/sandbox.h"

#include <sys/prctl.h>

namespace os {

std::optional<contract::Error> apply_sandbox(const contract::Tool&, int) {
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  return std::nullopt;
}

}  // namespace os
