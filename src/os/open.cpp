// open.cpp — open beneath a root without following links (CONTRACT.md §5). The kernel does
// the confinement (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS); where openat2 is missing, or
// refused (a read-only tool's seccomp filter refuses it, os/seccomp_profile.cpp), a walk holds
// one descriptor per directory and opens each name with O_NOFOLLOW relative to the last, so a
// name swapped for a link mid-call is refused rather than followed.
#include "os/open.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

namespace os {
namespace {

// O_NONBLOCK so that opening a FIFO or a tty never waits; O_NOCTTY so a terminal never
// becomes ours. O_DIRECTORY is never passed: the kind is decided by fstat on the same fd.
constexpr int kReadFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

std::atomic<bool> g_force_walk{false};
// Set once openat2 proved missing, or once the reader's filter refuses it, so later opens go
// straight to the walk.
std::atomic<bool> g_no_openat2{false};

// Built by appending: g++ 12 at -O3 warns falsely (-Wrestrict) on "'" + std::string.
std::string quoted(std::string_view path) {
  std::string out(1, '\'');
  out += contract::printable(path);
  out += '\'';
  return out;
}

// The symbolic errno name: numbers and strerror texts differ across machines and locales.
std::string errno_name(int err) {
  if (const char* name = strerrorname_np(err)) return name;
  return "errno " + std::to_string(err);
}

// `refused_link`: ELOOP comes from a link tack chose not to follow (O_NOFOLLOW, a --root),
// not from a loop of links the kernel gave up on.
contract::Error mapped_error(int err, std::string_view shown, std::string_view doing,
                             bool refused_link) {
  std::string what = "cannot " + std::string(doing) + " " + quoted(shown) + ": ";
  std::string_view rule;
  switch (err) {
    case ENOENT:
      rule = "io.not-found";
      what += "no such file or directory";
      break;
    case ENOTDIR:
      rule = "io.not-a-directory";
      what += "a component of the path is not a directory";
      break;
    case ELOOP:
      rule = "path.symlink";
      what += refused_link ? "a symbolic link in the path, which tack does not follow"
                           : "too many levels of symbolic links";
      break;
    case EXDEV:
      rule = "path.outside-root";
      what += "the path resolves outside the root";
      break;
    case EACCES:
    case EPERM:
      rule = "io.permission-denied";
      what += "permission denied";
      break;
    case EISDIR:
      rule = "io.is-a-directory";
      what += "it is a directory";
      break;
    case ENAMETOOLONG:
      rule = "path.too-long";
      what += "the name is too long";
      break;
    case ENXIO:
      // open() of a socket, or of a device with no driver behind it.
      rule = "io.special-file";
      what += "it is a socket or device, which tack does not read";
      break;
    default:
      rule = "io.read-failed";
      what += std::strerror(err);  // errno text for a person; detail carries the stable name
      break;
  }
  contract::Json detail =
      contract::Json::object({{"path", contract::Json::bytes(shown)}, {"errno", errno_name(err)}});
  if (err == ENXIO) detail.set("kind", "socket-or-device");
  return contract::make_error(rule, std::move(what), std::move(detail));
}

// Without a root a name is what the operator wrote; only a NUL cannot be a name. With one,
// the same check guards a caller that skipped check_path.
bool has_nul(std::string_view path) {
  return path.find('\0') != std::string_view::npos;
}

contract::Error nul_error(std::string_view shown) {
  return contract::make_error("path.bad-name", "the path " + quoted(shown) + " contains a NUL byte",
                              contract::Json::object({{"path", contract::Json::bytes(shown)}}));
}

// openat2 beneath root_fd; returns the fd or -errno.
int open_beneath_openat2(int root_fd, const std::string& path) {
  open_how how{};
  how.flags = kReadFlags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0;; ++attempt) {
    long fd = syscall(SYS_openat2, root_fd, path.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    // EAGAIN: a concurrent rename made the kernel unsure a `..` stayed beneath; it asks for a
    // retry. Bounded, so an attacker renaming in a loop cannot hold us forever.
    if (errno == EINTR || (errno == EAGAIN && attempt < 16)) continue;
    return -errno;
  }
}

int retry_openat(int dir, const char* name, int flags) {
  int fd;
  do fd = openat(dir, name, flags);
  while (fd < 0 && errno == EINTR);
  return fd;
}

// The same resolution by hand: one O_PATH|O_NOFOLLOW descriptor per directory, each checked
// by fstat on that very descriptor. `..` returns to a descriptor already held (never a
// lookup of ".." that a rename could redirect), and climbing past the root is EXDEV, as
// RESOLVE_BENEATH reports it. Returns the fd or -errno.
int open_beneath_walk(int root_fd, std::string_view path) {
  if (path.empty()) return -ENOENT;
  if (path[0] == '/') return -EXDEV;
  // The kernel refuses a whole path of PATH_MAX bytes or more before resolving a component.
  if (path.size() >= PATH_MAX) return -ENAMETOOLONG;
  // `a/` and `a/.` name a directory: a file there is ENOTDIR, as the kernel says.
  const bool must_be_dir = path.ends_with('/') || path.ends_with("/.");
  std::vector<std::string> names;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view c = path.substr(i, j - i);
    if (!c.empty() && c != ".") names.emplace_back(c);
    i = j + 1;
  }
  std::vector<Fd> stack;  // directories below the root; empty means "at the root"
  auto current = [&] { return stack.empty() ? root_fd : stack.back().get(); };
  // Every name but the last must be a directory; a trailing `..` leaves no last name.
  size_t last = names.size();
  if (!names.empty() && names.back() != "..") last = names.size() - 1;
  for (size_t k = 0; k < last; ++k) {
    if (names[k] == "..") {
      if (stack.empty()) return -EXDEV;
      stack.pop_back();
      continue;
    }
    int fd = retry_openat(current(), names[k].c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -errno;
    Fd dir(fd);
    struct stat st {};
    if (fstat(dir.get(), &st) != 0) return -errno;
    if (S_ISLNK(st.st_mode)) return -ELOOP;
    if (!S_ISDIR(st.st_mode)) return -ENOTDIR;
    stack.push_back(std::move(dir));
  }
  const char* name = last < names.size() ? names[last].c_str() : ".";
  int fd = retry_openat(current(), name, kReadFlags | O_NOFOLLOW);
  if (fd < 0) return -errno;
  if (must_be_dir) {
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
      close(fd);
      return -ENOTDIR;
    }
  }
  return fd;
}

const char* special_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode)) return "char-device";
  if (S_ISBLK(mode)) return "block-device";
  return "other";
}

}  // namespace

void avoid_openat2() { g_no_openat2 = true; }

void force_walk_fallback_for_tests(bool on) {
  g_force_walk = on;
}

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) close(fd_);
}

void close_at_exit(Fd& fd) {
  static int kept = 0;
  if (kept < 64 && fd.valid()) {
    ++kept;
    (void)fd.release();  // the process's exit closes it
  }
  fd = Fd();
}

Result<Fd> open_root(std::string_view root) {
  if (has_nul(root)) return nul_error(root);
  std::string name(root);
  int fd;
  do fd = open(name.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return mapped_error(errno, root, "open", false);
  return Fd(fd);
}

Result<Opened> open_read(int root_fd, std::string_view path, Want want, std::string_view shown) {
  if (has_nul(path)) return nul_error(shown);
  const bool beneath = root_fd >= 0;
  std::string name(path);
  int fd;
  if (beneath) {
    fd = -ENOSYS;
    if (!g_force_walk && !g_no_openat2) {
      fd = open_beneath_openat2(root_fd, name);
      if (fd == -ENOSYS) g_no_openat2 = true;
    }
    // ENOSYS: a kernel before 5.6. EPERM or E2BIG: a seccomp filter (old container runtimes)
    // that refuses the unknown call. The walk gives the same answers from older calls.
    if (fd == -ENOSYS || fd == -EPERM || fd == -E2BIG) fd = open_beneath_walk(root_fd, path);
  } else {
    do fd = open(name.c_str(), kReadFlags);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) fd = -errno;
  }
  if (fd < 0) return mapped_error(-fd, shown, "open", beneath);

  Opened out{Fd(fd), {}};
  if (fstat(out.fd.get(), &out.st) != 0) return mapped_error(errno, shown, "open", beneath);
  const mode_t mode = out.st.st_mode;
  if (S_ISREG(mode)) {
    if (want == Want::Directory) return mapped_error(ENOTDIR, shown, "open", beneath);
    // Reads of a regular file never block anyway; clearing the flag keeps later code (mmap,
    // splice, sendfile) free of EAGAIN surprises.
    int flags = fcntl(out.fd.get(), F_GETFL);
    if (flags < 0 || fcntl(out.fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
      return mapped_error(errno, shown, "open", beneath);
    }
    return out;
  }
  if (S_ISDIR(mode)) {
    if (want == Want::File) return mapped_error(EISDIR, shown, "open", beneath);
    return out;
  }
  // Never read a FIFO, socket or device: it may block forever or never end.
  const char* kind = special_kind(mode);
  return contract::make_error(
      "io.special-file",
      "cannot open " + quoted(shown) + ": it is a " + std::string(kind) +
          ", which tack does not read",
      contract::Json::object({{"path", contract::Json::bytes(shown)}, {"kind", kind}}));
}

contract::Error errno_error(int err, std::string_view shown, std::string_view doing) {
  return mapped_error(err, shown, doing, true);
}

long long pread_full(int fd, char* buf, size_t len, unsigned long long offset) {
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(fd, buf + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -static_cast<long long>(errno);
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return static_cast<long long>(got);
}

CappedRead read_capped(int fd, uint64_t keep, uint64_t ceiling,
                       const std::function<bool(std::string_view)>& take) {
  constexpr size_t kPiece = 256 * 1024;
  auto buf = std::make_unique_for_overwrite<char[]>(kPiece);
  CappedRead r;
  while (r.total <= ceiling) {
    ssize_t n = ::read(fd, buf.get(), kPiece);
    if (n < 0) {
      if (errno == EINTR) continue;
      r.error = errno;
      return r;
    }
    if (n == 0) break;
    r.total += static_cast<uint64_t>(n);
    if (r.total <= keep && !take(std::string_view(buf.get(), static_cast<size_t>(n)))) {
      r.error = ENOMEM;
      return r;
    }
  }
  return r;
}

}  // namespace os
