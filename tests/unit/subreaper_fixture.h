// subreaper_fixture.h — what the process tests share: a forked helper that is a child
// subreaper, so what the code under test starts is reparented to it and not to the test runner.
#pragma once

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

namespace subreaper_fixture {

// Runs `body` in a forked subreaper; returns its exit status (or -1 when it died).
inline int in_helper(const std::function<int()>& body) {
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    _exit(body());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace subreaper_fixture
