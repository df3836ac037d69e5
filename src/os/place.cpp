// place.cpp — a file's directory opened beneath the root following no link, --parents made
// one component at a time, and the name looked at without following it (see place.h).
#include "os/place.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "contract/json.h"
#include "os/path.h"
#include "os/write_error.h"

namespace os {
namespace {

using contract::Json;

int retry_openat(int dir, const char* name, int flags, mode_t mode = 0) {
  int fd;
  do fd = openat(dir, name, flags, mode);
  while (fd < 0 && errno == EINTR);
  return fd;
}

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK;

std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view c = path.substr(i, j - i);
    if (!c.empty() && c != ".") out.emplace_back(c);
    i = j + 1;
  }
  return out;
}

// One directory component beneath `at`. With a root: openat2 RESOLVE_NO_SYMLINKS, whose
// answer for a link (ELOOP) comes from the same lookup that would have followed it, so a
// name flipping between a directory and a link is never misreported; openat with
// O_NOFOLLOW|O_DIRECTORY (ENOTDIR or ELOOP for a link) where openat2 is missing. Returns the
// fd, or -1 with errno set.
int open_dir_component(int at, const std::string& name, bool beneath) {
  if (!beneath) return retry_openat(at, name.c_str(), kDirFlags);
  open_how how{};
  how.flags = kDirFlags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0;; ++attempt) {
    long fd = syscall(SYS_openat2, at, name.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno == EINTR || (errno == EAGAIN && attempt < 16)) continue;
    if (errno == ENOSYS || errno == EPERM || errno == E2BIG) break;
    return -1;
  }
  return retry_openat(at, name.c_str(), kDirFlags | O_NOFOLLOW);
}

// --parents: the directory part, one component at a time from `base` (a real descriptor).
// With a root every component is opened beneath the last following no link (a link is
// path.symlink, made or found) and never `..` (check_path refused those); without one the
// path is followed as given.
Result<Place> walk_parents(int base, bool beneath, Place place, Parents parents) {
  std::vector<std::string> names = components(place.parent);
  Fd cur;  // invalid while at `base`
  auto at = [&] { return cur.valid() ? cur.get() : base; };
  std::string so_far = place.parent.starts_with('/') ? "/" : "";
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string& name = names[k];
    std::string here = join(so_far, name);
    int fd = open_dir_component(at(), name, beneath);
    if (fd < 0 && errno == ENOENT) {
      if (parents == Parents::Plan) {
        for (size_t r = k; r < names.size(); ++r) {
          place.missing.push_back(here);
          if (r + 1 < names.size()) here = join(here, names[r + 1]);
        }
        return place;
      }
      // 0777 less the umask, as mkdir -p makes them.
      bool made = mkdirat(at(), name.c_str(), 0777) == 0;
      if (!made && errno != EEXIST) return write_error(errno, here, "mkdir");
      // The new entry is durable only once the directory holding it is.
      if (made && fsync(at()) != 0) return write_error(errno, here, "fsync-directory");
      if (made) {
        int dup_fd = fcntl(at(), F_DUPFD_CLOEXEC, 0);
        if (dup_fd >= 0) place.made.emplace_back(Fd(dup_fd), name);
        place.created.push_back(here);
      }
      fd = open_dir_component(at(), name, beneath);
    }
    if (fd < 0) return errno_error(errno, here, "open");
    cur = Fd(fd);
    so_far = here;
  }
  if (!cur.valid()) {
    int fd = fcntl(base, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return errno_error(errno, place.path, "open");
    cur = Fd(fd);
  }
  if (fstat(cur.get(), &place.dir_st) != 0) return errno_error(errno, place.path, "open");
  place.dir = std::move(cur);
  return place;
}

}  // namespace

Result<Place> open_place(int root_fd, std::string_view path, Parents parents) {
  Place place;
  place.path = std::string(path);
  size_t slash = path.rfind('/');
  place.name = std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
  place.parent = slash == std::string_view::npos ? "." : std::string(path.substr(0, slash));
  if (place.parent.empty()) place.parent = "/";
  if (place.name.empty() || place.name == "." || place.name == "..") {
    return contract::make_error("io.is-a-directory",
                                "cannot use " + quoted(path) + " as a file: it names a directory",
                                Json::object({{"path", Json::bytes(path)}}));
  }
  if (place.name.size() > NAME_MAX) return errno_error(ENAMETOOLONG, path, "open");

  const bool beneath = root_fd >= 0;
  auto direct = open_read(root_fd, place.parent, Want::Directory, path);
  if (auto* opened = std::get_if<Opened>(&direct)) {
    place.dir = std::move(opened->fd);
    place.dir_st = opened->st;
    return place;
  }
  contract::Error& e = std::get<contract::Error>(direct);
  if (parents == Parents::Refuse || e.rule != "io.not-found") return std::move(e);

  // Some directory is missing: walk from the root (or from where the path starts).
  Fd base;
  int fd;
  if (beneath)
    fd = retry_openat(root_fd, ".", kDirFlags);
  else
    fd = retry_openat(AT_FDCWD, place.parent.starts_with('/') ? "/" : ".", kDirFlags);
  if (fd < 0) return errno_error(errno, path, "open");
  base = Fd(fd);
  return walk_parents(base.get(), beneath, std::move(place), parents);
}

Result<Entry> look(const Place& place) {
  Entry e;
  if (place.planned_only()) return e;
  if (fstatat(place.dir.get(), place.name.c_str(), &e.st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return e;
    return errno_error(errno, place.path, "stat");
  }
  const mode_t m = e.st.st_mode;
  e.kind = S_ISREG(m)   ? Entry::Kind::File
           : S_ISLNK(m) ? Entry::Kind::Link
           : S_ISDIR(m) ? Entry::Kind::Directory
                        : Entry::Kind::Special;
  return e;
}

contract::Error wrong_kind(const Place& place, const Entry& e) {
  Json detail = Json::object({{"path", Json::bytes(place.path)}});
  switch (e.kind) {
    case Entry::Kind::Link: {
      char buf[PATH_MAX];
      ssize_t n = readlinkat(place.dir.get(), place.name.c_str(), buf, sizeof buf);
      detail.set("kind", "symlink");
      if (n >= 0) detail.set("target", Json::bytes(std::string_view(buf, static_cast<size_t>(n))));
      return contract::make_error(
          "path.symlink",
          "refusing " + quoted(place.path) + ": it is a symbolic link, which tack does not follow",
          std::move(detail));
    }
    case Entry::Kind::Directory:
      return contract::make_error("io.is-a-directory",
                                  "cannot write " + quoted(place.path) + ": it is a directory",
                                  std::move(detail));
    default: {
      const mode_t m = e.st.st_mode;
      const char* kind = S_ISFIFO(m)   ? "fifo"
                         : S_ISSOCK(m) ? "socket"
                         : S_ISCHR(m)  ? "char-device"
                         : S_ISBLK(m)  ? "block-device"
                                       : "other";
      detail.set("kind", kind);
      return contract::make_error(
          "io.special-file",
          "refusing " + quoted(place.path) + ": it is a " + kind + ", which tack does not write",
          std::move(detail));
    }
  }
}

Result<Opened> open_existing(const Place& place) {
  Opened out;
  int fd = retry_openat(place.dir.get(), place.name.c_str(),
                        O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    Entry e;
    if (err == ELOOP) {
      e.kind = Entry::Kind::Link;
      return wrong_kind(place, e);
    }
    return errno_error(err, place.path, "open");
  }
  out.fd = Fd(fd);
  if (fstat(fd, &out.st) != 0) return errno_error(errno, place.path, "open");
  if (!S_ISREG(out.st.st_mode)) {
    Entry e;
    e.st = out.st;
    e.kind = S_ISDIR(out.st.st_mode) ? Entry::Kind::Directory : Entry::Kind::Special;
    return wrong_kind(place, e);
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return out;
}

void undo_parents(Place& place) {
  for (auto it = place.made.rbegin(); it != place.made.rend(); ++it)
    unlinkat(it->first.get(), it->second.c_str(), AT_REMOVEDIR);
  place.made.clear();
  place.created.clear();
}

}  // namespace os
