// maxrss — runs a command with stdout sent to /dev/null and prints its peak resident set in
// KiB. A tiny static launcher, so the measuring process's own memory (which the kernel
// carries across exec into the child's figure) stays far below what is measured.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: maxrss PROGRAM [ARG...]\n");
    return 2;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  if (posix_spawn(&pid, argv[1], &fa, nullptr, argv + 1, environ) != 0) {
    std::perror("maxrss: spawn");
    return 1;
  }
  int status = 0;
  struct rusage ru {};
  if (wait4(pid, &status, 0, &ru) < 0) return 1;
  std::printf("%ld\n", ru.ru_maxrss);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
