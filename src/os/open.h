// open.h — opening files beneath a root without following links, and refusing special files
// without blocking. Checks and use share one descriptor: there is no window in which a name
// swapped for a link can be followed.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "contract/error.h"

namespace os {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // The descriptor, no longer owned (not closed by this Fd).
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

template <class T>
using Result = std::variant<T, contract::Error>;

enum class Want { File, Directory, Any };

struct Opened {
  Fd fd;
  struct stat st {};
};

// Leaves `fd` open until the process exits (and `fd` empty), for at most 64 files a process;
// past that it is closed now. For a writer's earlier file: the commit unlinked it, and its last
// close frees the inode (on ext4 an orphan-list update, ~0.3 ms), which then comes after the
// answer is printed rather than before it.
void close_at_exit(Fd& fd);

// The root directory as the operator spelled it (links in its own spelling are followed).
// Errors: io.not-found, io.not-a-directory, io.permission-denied, io.read-failed.
Result<Fd> open_root(std::string_view root);

// Opens `path` for reading. With root_fd >= 0, `path` must be a normal relative path (from
// check_path) and is resolved beneath root_fd following no symbolic link at all (openat2
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS, or an O_NOFOLLOW walk where
// openat2 is missing). With root_fd < 0 the path is opened as given. The open uses O_NONBLOCK,
// then fstat: a FIFO, socket or device is io.special-file; a directory where a file is
// wanted is io.is-a-directory; a file where a directory is wanted is io.not-a-directory.
// `shown` is the path as it appears in messages and detail.
Result<Opened> open_read(int root_fd, std::string_view path, Want want, std::string_view shown);

// Makes open_read with a root use the O_NOFOLLOW walk from now on: the reader's seccomp filter
// refuses openat2 (os/seccomp_profile.cpp), and a call known to fail is not made.
void avoid_openat2();

// Makes open_read with a root use the O_NOFOLLOW walk instead of openat2, so the unit tests
// can hold both resolutions to the same answers on a kernel that has openat2.
void force_walk_fallback_for_tests(bool on);

// errno after a failed open or read of `shown` → a tagged error with detail {path, errno}.
contract::Error errno_error(int err, std::string_view shown, std::string_view doing);

// Reads up to `len` bytes at `offset`, retrying on EINTR and short reads; returns bytes read
// (short only at EOF) or -errno.
long long pread_full(int fd, char* buf, size_t len, unsigned long long offset);

// Reads a stream (standard input) to its end: while the total stays within `keep` bytes each
// piece goes to `take` (false: out of memory, the read stops with ENOMEM); past `keep` the rest
// is counted and dropped, so a refusal can name the size a retry needs, until the total passes
// `ceiling`, where the read stops. `error`: 0 or the errno that stopped it.
struct CappedRead {
  uint64_t total = 0;  // bytes read; past `ceiling` only by the last piece
  int error = 0;
};
CappedRead read_capped(int fd, uint64_t keep, uint64_t ceiling,
                       const std::function<bool(std::string_view)>& take);

}  // namespace os
