// os/supervise: the watch over one program ends at its exit, its deadline or its output cap,
// and leaves nothing of its tree. Each case runs in a forked subreaper of its own.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include "os/supervise.h"
#include "subreaper_fixture.h"

namespace {

using namespace std::chrono_literals;

using subreaper_fixture::in_helper;

// Starts `sh -c script` with its streams on pipes and watches it.
os::Watch watch(const char* script, uint64_t timeout_ms, uint64_t max_output) {
  int out[2], err[2];
  os::Watch w;
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return w;
  int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int cwd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const char* argv[] = {"sh", "-c", script, nullptr};
  const char* envp[] = {"PATH=/usr/bin:/bin", nullptr};
  os::Spawn s{.path = "/bin/sh",
              .argv = const_cast<char* const*>(argv),
              .envp = const_cast<char* const*>(envp),
              .in = null,
              .out = out[1],
              .err = err[1],
              .cwd = cwd,
              .ruleset = -1,
              .join = {},
              .drop_capabilities = true,
              .nproc = 0,
              .filter = {}};
  if (os::spawn(s, w.child)) return w;
  close(out[1]);
  close(err[1]);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  w.out = {.fd = out[0], .to = 1, .kept = std::make_shared<os::Kept>(max_output)};
  w.err = {.fd = err[0], .to = 2, .kept = std::make_shared<os::Kept>(max_output)};
  w.timeout_ms = timeout_ms;
  w.max_output = max_output;
  w.grace = 20ms;
  w.loop();
  return w;
}

bool tree_is_gone() {
  siginfo_t info{};
  return waitid(P_ALL, 0, &info, WEXITED | WNOHANG) == -1 && errno == ECHILD;
}

TEST(OsSupervise, AProgramThatEndsIsReapedWithItsOutput) {
  EXPECT_EQ(in_helper([] {
              os::Watch w = watch("echo out; echo err >&2; exit 3", 5000, 100);
              bool ok = w.stop_reason == os::Stop::None && WIFEXITED(w.status) &&
                        WEXITSTATUS(w.status) == 3 && w.out.kept->copy() == "out\n" &&
                        w.err.kept->copy() == "err\n" && w.killed == 0;
              return ok && tree_is_gone() ? 0 : 1;
            }),
            0);
}

TEST(OsSupervise, TheDeadlineEndsTheTree) {
  EXPECT_EQ(in_helper([] {
              os::Watch w = watch("sleep 30 & sleep 30", 100, 100);
              bool ok = w.stop_reason == os::Stop::Timeout && WIFSIGNALED(w.status) &&
                        w.killed == 3;  // sh, and its two sleeps
              return ok && tree_is_gone() ? 0 : 1;
            }),
            0);
}

TEST(OsSupervise, TheOutputCapCutsAndEnds) {
  EXPECT_EQ(in_helper([] {
              os::Watch w = watch("while :; do echo yyyyyyyyyyyyyyyyyyy >&2; done", 5000, 1000);
              bool ok = w.stop_reason == os::Stop::Output && w.killed_stream &&
                        std::string_view(w.killed_stream) == "stderr" && w.err.cut &&
                        w.err.total > 1000 && w.err.kept->copy().size() == 1000 && w.out.total == 0;
              return ok && tree_is_gone() ? 0 : 1;
            }),
            0);
}

TEST(OsSupervise, LeftoversAreEndedWhenTheProgramExits) {
  EXPECT_EQ(in_helper([] {
              os::Watch w = watch("setsid sleep 30 >/dev/null 2>&1 & echo done", 5000, 100);
              bool ok = w.stop_reason == os::Stop::None && w.out.kept->copy() == "done\n" &&
                        w.killed == 1;
              return ok && tree_is_gone() ? 0 : 1;
            }),
            0);
}

}  // namespace
