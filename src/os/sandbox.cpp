// sandbox.cpp — the tool's declared effects, held by the kernel for the rest of the process.
//
// Landlock confines the filesystem: a read-only tool keeps read rights (beneath --root when
// given, else everywhere) and no write right anywhere; a writer also gets the write rights,
// beneath the root (or the target's directory without one) only. seccomp (libseccomp) refuses
// with EPERM the system calls outside the tool's effects: networking for every tool; new
// processes and execve except where declared (threads stay allowed); mutating calls in
// read-only tools; and a list nothing in tack needs (ptrace, mount, bpf, keyctl, io_uring,
// userfaultfd, perf_event_open). A refused call fails with EPERM, so it surfaces as a tagged
// error, never a dead process.
//
// Where the kernel lacks Landlock or seccomp the tool still runs (best effort) and
// `introspect` says which mechanisms hold on this machine: a sandbox is a second wall behind
// tack's own confinement (openat2 beneath the root, no links), not the only one.
#include "os/sandbox.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace os {

namespace {

// Landlock's rights by ABI version; the kernel refuses a ruleset naming rights it lacks.
constexpr uint64_t kFsExecute = 1ull << 0, kFsWriteFile = 1ull << 1, kFsReadFile = 1ull << 2,
                   kFsReadDir = 1ull << 3, kFsRemoveDir = 1ull << 4, kFsRemoveFile = 1ull << 5, kFsMakeDir = 1ull << 7,
                   kFsMakeReg = 1ull << 8, kFsMakeSym = 1ull << 12, kFsRefer = 1ull << 13, kFsTruncate = 1ull << 14;
constexpr uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;

uint64_t fs_rights(int abi) {
  if (abi <= 0) return 0;
  uint64_t all = (1ull << 13) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) all |= kFsRefer;
  if (abi >= 3) all |= kFsTruncate;
  if (abi >= 5) all |= 1ull << 15;  // ioctl on devices
  return all;
}

struct RulesetAttr {  // the kernel's struct, grown by ABI: fs (1), net (4), scoped (6)
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

struct __attribute__((packed)) PathBeneath {
  uint64_t allowed_access;
  int32_t parent_fd;
};

bool allow_beneath(int ruleset, int fd, uint64_t rights) {
  PathBeneath pb{rights, fd};
  return syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == 0;
}

std::optional<contract::Error> landlock(const contract::Tool& tool, int root_fd,
                                        const std::vector<std::string>& write_dirs) {
  int abi = landlock_abi();
  if (abi <= 0) return std::nullopt;  // best effort: reported by introspect
  uint64_t all = fs_rights(abi);
  RulesetAttr attr{all, abi >= 4 ? (kNetBindTcp | kNetConnectTcp) : 0, 0};
  size_t size = abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
  int rs = static_cast<int>(syscall(__NR_landlock_create_ruleset, &attr, size, 0));
  if (rs < 0) return std::nullopt;

  uint64_t read = kFsReadFile | kFsReadDir;
  // REMOVE_DIR only lets a writer take back the directories its own --parents made when the
  // write then fails; no tool deletes anything else (rmdir refuses a non-empty directory).
  // MAKE_SYM: move renames a link as itself, which Landlock counts as making one there.
  uint64_t write = (kFsWriteFile | kFsRemoveFile | kFsRemoveDir | kFsMakeDir | kFsMakeReg |
                    kFsMakeSym | kFsRefer | kFsTruncate | read) & all;
  if (tool.effects & contract::kStartPrograms) read |= kFsExecute;
  bool writer = tool.effects & contract::kWriteFiles;
  bool ok = true;
  if (root_fd >= 0) {
    ok = allow_beneath(rs, root_fd, writer ? write : read);
  } else {
    int slash = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    ok = slash >= 0 && allow_beneath(rs, slash, read);
    if (slash >= 0) close(slash);
    for (std::string dir : write_dirs) {
      if (!writer) break;
      // --parents may create the directory: grant beneath its nearest existing ancestor.
      int fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      while (fd < 0 && errno == ENOENT && dir != "." && dir != "/") {
        size_t slash = dir.rfind('/');
        dir = slash == std::string::npos ? "." : slash == 0 ? "/" : dir.substr(0, slash);
        fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      }
      if (fd < 0) continue;  // the tool's own open reports it
      ok = ok && allow_beneath(rs, fd, write);
      close(fd);
    }
  }
  if (ok) ok = syscall(__NR_landlock_restrict_self, rs, 0) == 0;
  close(rs);
  if (!ok)
    return contract::make_error("io.permission-denied",
                                "the tool's Landlock profile could not be installed.",
                                contract::Json::object({{"mechanism", "landlock"}}));
  return std::nullopt;
}

int rule(scmp_filter_ctx f, int err, int nr) { return seccomp_rule_add(f, SCMP_ACT_ERRNO(err), nr, 0); }

std::optional<contract::Error> seccomp(const contract::Tool& tool) {
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
  if (!f) return std::nullopt;
  int rc = 0;
  for (int nr : {SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind),
                 SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4), SCMP_SYS(ptrace),
                 SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(bpf),
                 SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key),
                 SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
                 SCMP_SYS(userfaultfd), SCMP_SYS(perf_event_open), SCMP_SYS(unshare),
                 SCMP_SYS(setns), SCMP_SYS(process_vm_writev), SCMP_SYS(kexec_load)})
    rc |= rule(f, EPERM, nr);
  if (!(tool.effects & contract::kStartPrograms)) {
    for (int nr : {SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork)})
      rc |= rule(f, EPERM, nr);
    // A thread shares the address space and is allowed; a new process is not. clone3 passes
    // its flags in memory a filter cannot read, so it is answered ENOSYS and the C library
    // falls back to clone, whose flags the filter does read.
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    rc |= rule(f, ENOSYS, SCMP_SYS(clone3));
  }
  if (!(tool.effects & contract::kWriteFiles)) {
    for (int nr : {SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2), SCMP_SYS(unlink),
                   SCMP_SYS(unlinkat), SCMP_SYS(rmdir), SCMP_SYS(mkdir), SCMP_SYS(mkdirat),
                   SCMP_SYS(truncate), SCMP_SYS(ftruncate), SCMP_SYS(chmod), SCMP_SYS(fchmod),
                   SCMP_SYS(fchmodat), SCMP_SYS(chown), SCMP_SYS(fchown), SCMP_SYS(lchown),
                   SCMP_SYS(fchownat), SCMP_SYS(link), SCMP_SYS(linkat), SCMP_SYS(symlink),
                   SCMP_SYS(symlinkat), SCMP_SYS(mknod), SCMP_SYS(mknodat), SCMP_SYS(creat),
                   SCMP_SYS(setxattr), SCMP_SYS(lsetxattr), SCMP_SYS(fsetxattr),
                   SCMP_SYS(removexattr), SCMP_SYS(lremovexattr), SCMP_SYS(fremovexattr),
                   SCMP_SYS(utimensat), SCMP_SYS(utimes), SCMP_SYS(utime), SCMP_SYS(futimesat)})
      rc |= rule(f, EPERM, nr);
    // An open for writing; openat2 keeps its flags in memory, and Landlock refuses its writes.
    for (scmp_datum_t bit : {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND}) {
      rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(open), 1,
                             SCMP_A1(SCMP_CMP_MASKED_EQ, bit, bit));
      rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat), 1,
                             SCMP_A2(SCMP_CMP_MASKED_EQ, bit, bit));
    }
  }
  if (rc == 0) rc = seccomp_load(f);
  seccomp_release(f);
  if (rc != 0)
    return contract::make_error("io.permission-denied",
                                "the tool's seccomp profile could not be installed.",
                                contract::Json::object({{"mechanism", "seccomp"}}));
  return std::nullopt;
}

}  // namespace

int landlock_abi() {
  long v = syscall(__NR_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : static_cast<int>(v);
}

bool seccomp_available() { return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0; }

std::optional<contract::Error> apply_sandbox(const contract::Tool& tool, int root_fd,
                                             const std::vector<std::string>& write_dirs) {
  // no_new_privs first: Landlock and an unprivileged seccomp filter both need it, and nothing
  // the tool starts can gain privileges through a set-uid file.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return contract::make_error("io.permission-denied", "no_new_privs could not be set.",
                                contract::Json::object({{"mechanism", "no_new_privs"}}));
  if (auto e = landlock(tool, root_fd, write_dirs)) return e;
  return seccomp(tool);
}

contract::Json authority(const contract::Tool& tool) {
  using contract::Json;
  int abi = landlock_abi();
  bool writer = tool.effects & contract::kWriteFiles;
  return Json::object({
      {"files",
       writer ? "read and write beneath --root (without it: read anywhere, write beneath the "
                "target's directory)"
              : "read only: beneath --root when given, else anywhere; no write right anywhere"},
      {"programs", (tool.effects & contract::kStartPrograms) ? "may start programs" : "none: execve, fork and new processes refused"},
      {"network", "none: sockets refused"},
      {"mechanisms", Json::object({{"landlock_abi", abi > 0 ? Json(abi) : Json()},
                                   {"seccomp", seccomp_available()},
                                   {"no_new_privs", true}})},
      {"without_mechanism", "best effort: the tool runs with tack's own confinement (openat2 "
                            "beneath the root, no symbolic links) and introspect reports "
                            "which mechanisms hold"},
  });
}

}  // namespace os
