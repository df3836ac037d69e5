// seccomp_profile.cpp — see seccomp_profile.h. Every refusal is EPERM (ENOSYS for clone3), so
// a refused call surfaces as a tagged error, never a dead process.
#include "os/seccomp_profile.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>

#include <cerrno>
#include <initializer_list>

namespace os {

namespace {

int refuse(scmp_filter_ctx f, int err, int nr) { return seccomp_rule_add(f, SCMP_ACT_ERRNO(err), nr, 0); }

}  // namespace

scmp_filter_ctx seccomp_started_profile() {
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
  if (!f) return nullptr;
  int rc = 0;
  for (int nr : {SCMP_SYS(socket), SCMP_SYS(socketpair)})
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), nr, 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
  if (rc != 0) {
    seccomp_release(f);
    return nullptr;
  }
  return f;
}

scmp_filter_ctx seccomp_profile(bool start_programs, bool write_files, bool network) {
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
  if (!f) return nullptr;
  // A binary tree of system call numbers, not a chain: the kernel runs the filter over every
  // system call number when it is loaded (to cache the ones always allowed), and a chain made
  // that cost most of a tool's start-up.
  int rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  // Networking for every tool, and a list nothing in tack needs. A tool that starts programs
  // hands this filter on to them: they keep local (AF_UNIX) sockets, every other family is
  // refused (and Landlock refuses TCP bind and connect where the kernel has the rules).
  if (start_programs && network) {
    // each program's own filter (seccomp_started_profile) refuses them unless granted
  } else if (start_programs) {
    for (int nr : {SCMP_SYS(socket), SCMP_SYS(socketpair)})
      rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), nr, 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
  } else {
    for (int nr : {SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind),
                   SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4)})
      rc |= refuse(f, EPERM, nr);
  }
  for (int nr : {SCMP_SYS(ptrace), SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root),
                 SCMP_SYS(bpf), SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key),
                 SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
                 SCMP_SYS(userfaultfd), SCMP_SYS(perf_event_open), SCMP_SYS(unshare),
                 SCMP_SYS(setns), SCMP_SYS(process_vm_writev), SCMP_SYS(kexec_load)})
    rc |= refuse(f, EPERM, nr);
  if (!start_programs) {
    for (int nr : {SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork)})
      rc |= refuse(f, EPERM, nr);
    // A thread shares the address space and is allowed; a new process is not. clone3 passes
    // its flags in memory a filter cannot read, so it is answered ENOSYS and the C library
    // falls back to clone, whose flags the filter does read.
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    rc |= refuse(f, ENOSYS, SCMP_SYS(clone3));
  }
  if (!write_files) {
    for (int nr : {SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2), SCMP_SYS(unlink),
                   SCMP_SYS(unlinkat), SCMP_SYS(rmdir), SCMP_SYS(mkdir), SCMP_SYS(mkdirat),
                   SCMP_SYS(truncate), SCMP_SYS(ftruncate), SCMP_SYS(chmod), SCMP_SYS(fchmod),
                   SCMP_SYS(fchmodat), SCMP_SYS(chown), SCMP_SYS(fchown), SCMP_SYS(lchown),
                   SCMP_SYS(fchownat), SCMP_SYS(link), SCMP_SYS(linkat), SCMP_SYS(symlink),
                   SCMP_SYS(symlinkat), SCMP_SYS(mknod), SCMP_SYS(mknodat), SCMP_SYS(creat),
                   SCMP_SYS(setxattr), SCMP_SYS(lsetxattr), SCMP_SYS(fsetxattr),
                   SCMP_SYS(removexattr), SCMP_SYS(lremovexattr), SCMP_SYS(fremovexattr),
                   SCMP_SYS(utimensat), SCMP_SYS(utimes), SCMP_SYS(utime), SCMP_SYS(futimesat)})
      rc |= refuse(f, EPERM, nr);
    // An open for writing, or truncating (O_RDONLY|O_TRUNC truncates too, with a read-only
    // descriptor). openat2 keeps its flags in memory, where a filter cannot read them.
    for (scmp_datum_t bit : {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND}) {
      rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(open), 1,
                             SCMP_A1(SCMP_CMP_MASKED_EQ, bit, bit));
      rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat), 1,
                             SCMP_A2(SCMP_CMP_MASKED_EQ, bit, bit));
    }
  }
  if (!write_files && !start_programs) {
    // A reader refuses the opens whose flags it cannot check: openat2 (a root's paths take
    // the O_NOFOLLOW walk instead, os/open.cpp) and open_by_handle_at. Then this filter alone
    // refuses every way to truncate, and the reader's Landlock ruleset need not handle
    // truncation, which the kernel checks on every open by walking up to / (os/sandbox.cpp).
    // A supervisor keeps openat2 for what it starts, and its ruleset handles truncation.
    for (int nr : {SCMP_SYS(openat2), SCMP_SYS(open_by_handle_at)}) rc |= refuse(f, EPERM, nr);
  }
  if (rc != 0) {
    seccomp_release(f);
    return nullptr;
  }
  return f;
}

}  // namespace os
