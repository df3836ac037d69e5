// atomic.cpp — open a file's directory beneath the root, lock it, replace or rename a name in
// it without a window in which the target is partial or a link is followed (see atomic.h).
#include "os/atomic.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace os {
namespace {

using contract::Json;

std::string errno_tag(int err) {
  if (const char* name = strerrorname_np(err)) return name;
  return "errno " + std::to_string(err);
}

std::string quoted(std::string_view path) {
  std::string out(1, '\'');
  out += contract::printable(path);
  out += '\'';
  return out;
}

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

std::string join(std::string_view a, std::string_view b) {
  if (a.empty() || a == ".") return std::string(b);
  std::string out(a);
  if (out.back() != '/') out += '/';
  out += b;
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

// A temporary file of this name left by a killed writer: removed (a regular file only; a
// link or anything else at the name is not ours, and is refused rather than touched).
std::optional<contract::Error> remove_stale_temp(const Place& place) {
  const std::string tmp = temp_name(place.name);
  struct stat st {};
  if (fstatat(place.dir.get(), tmp.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  if (!S_ISREG(st.st_mode)) {
    contract::Error e = write_error(EEXIST, place.path, "create-temporary");
    e.detail.set("temporary", Json::bytes(tmp));
    return e;
  }
  if (unlinkat(place.dir.get(), tmp.c_str(), 0) != 0 && errno != ENOENT)
    return write_error(errno, place.path, "remove-stale-temporary");
  return std::nullopt;
}

}  // namespace

contract::Error write_error(int err, std::string_view shown, std::string_view stage) {
  std::string_view rule = "io.write-failed";
  if (err == EACCES || err == EPERM || err == EROFS) rule = "io.permission-denied";
  // The directory being written in was removed (or replaced) while this call ran.
  if (err == ENOENT) rule = "io.not-found";
  std::string what = "cannot write " + quoted(shown) + " (" + std::string(stage) + "): ";
  what += std::strerror(err);
  return contract::make_error(
      rule, std::move(what),
      Json::object({{"path", Json::bytes(shown)}, {"stage", stage}, {"errno", errno_tag(err)}}));
}

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

DirLock::~DirLock() {
  for (int fd : fds_) flock(fd, LOCK_UN);
}

Result<DirLock> lock(const Place& a, const Place* b) {
  DirLock held;
  std::vector<const Place*> places{&a};
  if (b && (b->dir_st.st_dev != a.dir_st.st_dev || b->dir_st.st_ino != a.dir_st.st_ino))
    places.push_back(b);
  std::sort(places.begin(), places.end(), [](const Place* x, const Place* y) {
    return std::pair(x->dir_st.st_dev, x->dir_st.st_ino) <
           std::pair(y->dir_st.st_dev, y->dir_st.st_ino);
  });
  for (const Place* p : places) {
    if (p->planned_only()) continue;
    // 1, 2, 4, ... 64 ms, then 64 ms steps: about a second in all. Counted in steps, not
    // read from a clock.
    long wait_ms = 1, waited_ms = 0;
    while (true) {
      if (flock(p->dir.get(), LOCK_EX | LOCK_NB) == 0) break;
      int err = errno;
      if (err == EINTR) continue;
      if (err != EWOULDBLOCK) return write_error(err, p->parent, "lock");
      if (waited_ms >= 1000) {
        contract::Error e = contract::make_error(
            "conflict.locked",
            "another tack writer holds the lock on " + quoted(p->parent) +
                "; it was still held after waiting about a second",
            Json::object({{"path", Json::bytes(p->path)}, {"directory", Json::bytes(p->parent)}}));
        e.repair = contract::Repair::none(
            "another writer is changing this directory now; read the file again once it is "
            "done, then decide");
        return e;
      }
      timespec ts{0, wait_ms * 1'000'000};
      while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
      }
      waited_ms += wait_ms;
      wait_ms = std::min(wait_ms * 2, 64L);
    }
    held.fds_.push_back(p->dir.get());
    // Under the lock no other tack writer is in this directory, so a temporary file of this
    // name found now was left by one that was killed: the next call that locks removes it,
    // whether or not it then changes anything. Best effort here: commit_file, which needs the
    // name, repeats it and reports what stands in the way.
    (void)remove_stale_temp(*p);
  }
  return held;
}

std::string temp_name(std::string_view name) {
  // 1 + 240 + 9 bytes: within NAME_MAX whatever the target's name.
  std::string out(1, '.');
  out += name.substr(0, 240);
  out += ".tack-tmp";
  return out;
}

bool has_stale_temp(const Place& place) {
  if (place.planned_only()) return false;
  struct stat st {};
  return fstatat(place.dir.get(), temp_name(place.name).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(st.st_mode);
}

std::optional<contract::Error> commit_file(const Place& place, std::string_view content,
                                           const CommitOptions& opt) {
  const int dir = place.dir.get();
  const std::string tmp = temp_name(place.name);
  const std::string& shown = place.path;

  if (auto e = remove_stale_temp(place)) return e;

  // New files: 0644, less the umask, applied by the kernel. A replacement is created private
  // and given the old file's mode just before it is renamed into place.
  int fd = retry_openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        opt.mode ? 0600 : 0644);
  if (fd < 0) return write_error(errno, shown, "create-temporary");
  // A raw descriptor, not an Fd: close() is checked (NFS reports write errors there), and the
  // descriptor is gone after it whatever it answered.
  auto fail = [&](int err, std::string_view stage) {
    if (fd >= 0) close(fd);
    unlinkat(dir, tmp.c_str(), 0);
    return write_error(err, shown, stage);
  };

  size_t done = 0;
  while (done < content.size()) {
    ssize_t n =
        ::write(fd, content.data() + done, std::min<size_t>(content.size() - done, 1 << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errno, "write");
    }
    if (n == 0) return fail(ENOSPC, "write");
    done += static_cast<size_t>(n);
  }
  if (opt.owner) {
    struct stat mine {};
    if (fstat(fd, &mine) == 0 &&
        (mine.st_uid != opt.owner->first || mine.st_gid != opt.owner->second)) {
      // EPERM: not ours to give away; the file stays the writer's (documented in atomic.h).
      if (fchown(fd, opt.owner->first, opt.owner->second) != 0 && errno != EPERM)
        return fail(errno, "chown");
    }
  }
  if (opt.mode && fchmod(fd, *opt.mode) != 0) return fail(errno, "chmod");
  if (fsync(fd) != 0) return fail(errno, "fsync");
  int closed = close(fd);
  fd = -1;
  if (closed != 0 && errno != EINTR) return fail(errno, "close");

  int r;
  if (opt.replace == Replace::Allow) {
    r = renameat(dir, tmp.c_str(), dir, place.name.c_str());
  } else {
    r = renameat2(dir, tmp.c_str(), dir, place.name.c_str(), RENAME_NOREPLACE);
  }
  if (r != 0) {
    int err = errno;
    unlinkat(dir, tmp.c_str(), 0);
    if (opt.replace == Replace::Never && err == EEXIST) {
      return contract::make_error(
          "conflict.exists",
          "cannot create " + quoted(shown) + ": the name appeared while this call ran",
          Json::object({{"path", Json::bytes(shown)}}));
    }
    if (opt.replace == Replace::Never && (err == EINVAL || err == ENOSYS)) {
      return contract::make_error(
          "io.rename-unsupported",
          "cannot create " + quoted(shown) +
              ": the filesystem cannot refuse to replace an existing name (RENAME_NOREPLACE), "
              "and tack never falls back to a rename that could",
          Json::object({{"path", Json::bytes(shown)}, {"errno", errno_tag(err)}}));
    }
    return write_error(err, shown, "rename");
  }
  if (fsync(dir) != 0) {
    contract::Error e = write_error(errno, shown, "fsync-directory");
    e.detail.set("renamed", true);  // the new content is in place; only its durability failed
    return e;
  }
  return std::nullopt;
}

std::optional<contract::Error> rename_noreplace(const Place& from, const Place& to) {
  if (renameat2(from.dir.get(), from.name.c_str(), to.dir.get(), to.name.c_str(),
                RENAME_NOREPLACE) != 0) {
    int err = errno;
    Json detail = Json::object({{"from", Json::bytes(from.path)},
                                {"to", Json::bytes(to.path)},
                                {"errno", errno_tag(err)}});
    switch (err) {
      case EEXIST:
        return contract::make_error("conflict.exists",
                                    "cannot move to " + quoted(to.path) + ": the name exists",
                                    std::move(detail));
      case EINVAL:
      case ENOSYS:
      case EXDEV:
        return contract::make_error(
            "io.rename-unsupported",
            err == EXDEV ? "cannot move " + quoted(from.path) + " to " + quoted(to.path) +
                               ": they are on different filesystems, and tack does not copy"
                         : "cannot move " + quoted(from.path) +
                               ": the filesystem cannot refuse to replace an existing name "
                               "(RENAME_NOREPLACE), and tack never falls back to a rename "
                               "that could",
            std::move(detail));
      case ENOENT:
        return errno_error(err, from.path, "move");
      default: {
        contract::Error e = write_error(err, from.path, "rename");
        e.detail.set("to", Json::bytes(to.path));
        return e;
      }
    }
  }
  if (fsync(to.dir.get()) != 0) return write_error(errno, to.path, "fsync-directory");
  if ((from.dir_st.st_dev != to.dir_st.st_dev || from.dir_st.st_ino != to.dir_st.st_ino) &&
      fsync(from.dir.get()) != 0)
    return write_error(errno, from.path, "fsync-directory");
  return std::nullopt;
}

void undo_parents(Place& place) {
  for (auto it = place.made.rbegin(); it != place.made.rend(); ++it)
    unlinkat(it->first.get(), it->second.c_str(), AT_REMOVEDIR);
  place.made.clear();
  place.created.clear();
}

}  // namespace os
