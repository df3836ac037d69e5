// atomic.cpp — open a file's directory beneath the root, lock it, replace or rename a name in
// it without a window in which the target is partial or a link is followed (see atomic.h).
#include "os/atomic.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
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
    // whether or not it then changes anything. Best effort here: TempFile::create, which needs
    // the name, repeats it and reports what stands in the way.
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

Json planned_write(const Place& place, std::string_view path,
                   const std::optional<std::string>& before, const std::string& after,
                   uint64_t bytes) {
  Json planned = Json::array();
  if (has_stale_temp(place))
    planned.push(Json::object({{"op", "remove-stale-temporary"},
                               {"path", Json::bytes(temp_name(place.name))}}));
  planned.push(Json::object({{"op", before ? "replace" : "create"},
                             {"path", Json::bytes(path)},
                             {"before_sha256", before ? Json(*before) : Json()},
                             {"after_sha256", after},
                             {"bytes", bytes}}));
  return planned;
}

TempFile::TempFile(const Place& place, const CommitOptions& opt, int fd)
    : place_(&place), opt_(opt), fd_(fd), exists_(true) {}

TempFile::TempFile(TempFile&& o) noexcept
    : place_(o.place_), opt_(o.opt_), fd_(std::exchange(o.fd_, -1)),
      exists_(std::exchange(o.exists_, false)), pending_(std::move(o.pending_)),
      written_(o.written_), started_(o.started_) {}

TempFile::~TempFile() {
  if (fd_ >= 0) close(fd_);
  if (exists_) unlinkat(place_->dir.get(), temp_name(place_->name).c_str(), 0);
}

Result<TempFile> TempFile::create(const Place& place, const CommitOptions& opt) {
  if (auto e = remove_stale_temp(place)) return std::move(*e);
  // New files: 0644, less the umask, applied by the kernel. A replacement is created private
  // and given the old file's mode just before it is renamed into place: were it created
  // with, say, 0666, another user could write into it before the rename.
  int fd = retry_openat(place.dir.get(), temp_name(place.name).c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        opt.mode ? 0600 : 0644);
  if (fd < 0) return write_error(errno, place.path, "create-temporary");
  return TempFile(place, opt, fd);
}

contract::Error TempFile::fail(int err, std::string_view stage) {
  // A raw descriptor, not an Fd: close() is checked (NFS reports write errors there), and
  // the descriptor is gone after it whatever it answered. The destructor removes the name.
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  return write_error(err, place_->path, stage);
}

namespace {
// Writes all of `bytes` at the file position; 0 or errno.
int write_all(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, std::min<size_t>(bytes.size() - done, 1 << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENOSPC;
    done += static_cast<size_t>(n);
  }
  return 0;
}
constexpr size_t kGather = 256 * 1024;  // pieces smaller than this are gathered
// Writeback is started every this many bytes. Not much less: on ext4 sync_file_range
// allocates the blocks in the caller (0.2-0.7 ms a call), and a 1 MiB step made a 10 MiB
// replace slower (48 ms against 46).
constexpr uint64_t kWritebackStep = 8 << 20;
}  // namespace

std::optional<contract::Error> TempFile::flush() {
  if (pending_.empty()) return std::nullopt;
  if (fd_ < 0) return fail(EBADF, "write");
  if (int err = write_all(fd_, pending_)) return fail(err, "write");
  written_ += pending_.size();
  pending_.clear();
  return std::nullopt;
}

std::optional<contract::Error> TempFile::write(std::string_view bytes) {
  if (fd_ < 0) return fail(EBADF, "write");
  if (pending_.size() + bytes.size() <= kGather) {
    if (pending_.capacity() < kGather) pending_.reserve(kGather);
    pending_ += bytes;
    return std::nullopt;
  }
  if (auto e = flush()) return e;
  if (bytes.size() < kGather) {
    pending_ += bytes;
  } else {
    if (int err = write_all(fd_, bytes)) return fail(err, "write");
    written_ += bytes.size();
  }
  if (written_ - started_ >= kWritebackStep) start_writeback();
  return std::nullopt;
}

void TempFile::start_writeback() {
  if (fd_ < 0 || flush()) return;
  // Best effort (a filesystem without it answers an error, which changes nothing here).
  if (written_ > started_)
    sync_file_range(fd_, static_cast<off_t>(started_), static_cast<off_t>(written_ - started_),
                    SYNC_FILE_RANGE_WRITE);
  started_ = written_;
}

std::optional<contract::Error> TempFile::commit() {
  if (auto e = flush()) return e;
  if (fd_ < 0) return fail(EBADF, "write");
  const int dir = place_->dir.get();
  const std::string tmp = temp_name(place_->name);
  const std::string& shown = place_->path;
  if (opt_.owner) {
    struct stat mine {};
    if (fstat(fd_, &mine) == 0 &&
        (mine.st_uid != opt_.owner->first || mine.st_gid != opt_.owner->second)) {
      // EPERM: not ours to give away; the file stays the writer's (documented in atomic.h).
      if (fchown(fd_, opt_.owner->first, opt_.owner->second) != 0 && errno != EPERM)
        return fail(errno, "chown");
    }
  }
  if (opt_.mode && fchmod(fd_, *opt_.mode) != 0) return fail(errno, "chmod");
  // fsync, not fdatasync. fdatasync would write the data and the size and block map needed
  // to read it back, but need not write the rest of the inode, and the mode and owner just
  // set by fchmod/fchown are that rest: after a crash the renamed file could be 0600 and the
  // writer's. Nor would it be cheaper here: a file created by this call has its inode and
  // block map to commit anyway, so both wait for the same journal commit (measured on ext4:
  // 1.8-5 ms for 1 MiB either way).
  if (fsync(fd_) != 0) return fail(errno, "fsync");
  int closed = close(fd_);
  fd_ = -1;
  if (closed != 0 && errno != EINTR) return fail(errno, "close");

  int r;
  if (opt_.replace == Replace::Allow) {
    r = renameat(dir, tmp.c_str(), dir, place_->name.c_str());
  } else {
    r = renameat2(dir, tmp.c_str(), dir, place_->name.c_str(), RENAME_NOREPLACE);
  }
  if (r != 0) {
    int err = errno;
    if (opt_.replace == Replace::Never && err == EEXIST) {
      return contract::make_error(
          "conflict.exists",
          "cannot create " + quoted(shown) + ": the name appeared while this call ran",
          Json::object({{"path", Json::bytes(shown)}}));
    }
    if (opt_.replace == Replace::Never && (err == EINVAL || err == ENOSYS)) {
      return contract::make_error(
          "io.rename-unsupported",
          "cannot create " + quoted(shown) +
              ": the filesystem cannot refuse to replace an existing name (RENAME_NOREPLACE), "
              "and tack never falls back to a rename that could",
          Json::object({{"path", Json::bytes(shown)}, {"errno", errno_tag(err)}}));
    }
    return write_error(err, shown, "rename");
  }
  exists_ = false;  // the name is the target's now
  // The rename is durable only once the directory is: one fsync, of the one directory whose
  // entry changed (the lock takes no file of its own, and --parents fsyncs only directories
  // it made).
  if (fsync(dir) != 0) {
    contract::Error e = write_error(errno, shown, "fsync-directory");
    e.detail.set("renamed", true);  // the new content is in place; only its durability failed
    return e;
  }
  return std::nullopt;
}

std::optional<contract::Error> commit_file(const Place& place, std::string_view content,
                                           const CommitOptions& opt) {
  auto made = TempFile::create(place, opt);
  if (auto* e = std::get_if<contract::Error>(&made)) return std::move(*e);
  TempFile& tmp = std::get<TempFile>(made);
  if (auto e = tmp.write(content)) return e;
  return tmp.commit();
}

// --- Whole files in memory -------------------------------------------------------------------

namespace {
constexpr size_t kHugePage = 2 << 20;
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
}  // namespace

void* big_alloc(size_t bytes) noexcept {
  if (bytes < kBigAlloc) return std::malloc(bytes ? bytes : 1);
  if (bytes > SIZE_MAX - 2 * kHugePage) return nullptr;
  const size_t len = round_up(bytes, kHugePage);
  // One huge page more than asked, then the unaligned ends cut off: the kernel can back only
  // whole 2 MiB-aligned ranges with huge pages.
  void* raw = mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto* base = static_cast<char*>(raw);
  auto* p = reinterpret_cast<char*>(round_up(reinterpret_cast<uintptr_t>(base), kHugePage));
  if (p > base) munmap(base, static_cast<size_t>(p - base));
  const size_t tail = static_cast<size_t>(base + len + kHugePage - (p + len));
  if (tail) munmap(p + len, tail);
  madvise(p, len, MADV_HUGEPAGE);
  return p;
}

void big_free(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kBigAlloc)
    std::free(p);
  else
    munmap(p, round_up(bytes, kHugePage));
}

Bytes& Bytes::operator=(Bytes&& o) noexcept {
  if (this != &o) {
    release();
    p_ = std::exchange(o.p_, nullptr);
    size_ = std::exchange(o.size_, 0);
    cap_ = std::exchange(o.cap_, 0);
  }
  return *this;
}

bool Bytes::reserve(size_t n) {
  if (n <= cap_) return true;
  // Geometric growth for a stream of unknown length; a size known up front is asked once.
  size_t want = std::max(n, cap_ + cap_ / 2);
  if (want >= kBigAlloc) want = round_up(want, kHugePage);
  auto* q = static_cast<char*>(big_alloc(want));
  if (!q) return false;
  if (size_) std::memcpy(q, p_, size_);
  big_free(p_, cap_);
  p_ = q;
  cap_ = want;
  return true;
}

bool Bytes::append(std::string_view s) {
  if (s.size() > SIZE_MAX - size_ || !reserve(size_ + s.size())) return false;
  if (!s.empty()) std::memcpy(p_ + size_, s.data(), s.size());
  size_ += s.size();
  return true;
}

void Bytes::release() {
  big_free(p_, cap_);
  p_ = nullptr;
  size_ = cap_ = 0;
}

Result<WholeFile> read_whole(int fd, std::string_view shown, Bytes* keep, uint64_t keep_max,
                             const std::function<void(std::string_view)>& each) {
  // Pieces of 256 KiB: hashed right after they are read, while they are still in the cache.
  constexpr size_t kPiece = 256 * 1024;
  WholeFile out;
  bool keeping = keep != nullptr;
  if (keep) {
    keep->set_size(0);
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size >= 0 && static_cast<uint64_t>(st.st_size) <= keep_max &&
        !keep->reserve(static_cast<size_t>(st.st_size)))
      return errno_error(ENOMEM, shown, "read");
  }
  Bytes spill;  // the piece buffer once the content is not kept
  while (true) {
    char* dst;
    size_t room;
    if (keeping) {
      // Full (the file is at least the size fstat gave): grow for what may follow, as far as
      // keep_max allows; one byte past it shows the file is too large. (The size kept never
      // passes keep_max, so there is always room for at least that byte.)
      if (keep->size() == keep->capacity()) {
        uint64_t want = std::min<uint64_t>(keep_max + 1, keep->size() + uint64_t{kPiece});
        if (want > keep->size() && !keep->reserve(static_cast<size_t>(want)))
          return errno_error(ENOMEM, shown, "read");
      }
      dst = keep->data() + keep->size();
      room = std::min(kPiece, keep->capacity() - keep->size());
    } else {
      if (spill.capacity() < kPiece && !spill.reserve(kPiece)) return errno_error(ENOMEM, shown, "read");
      dst = spill.data();
      room = kPiece;
    }
    long long n = pread_full(fd, dst, room, out.bytes);
    if (n < 0) {
      if (keep) keep->release();
      return errno_error(static_cast<int>(-n), shown, "read");
    }
    std::string_view piece(dst, static_cast<size_t>(n));
    if (each && n > 0) each(piece);
    out.bytes += static_cast<uint64_t>(n);
    if (keeping) {
      keep->set_size(keep->size() + static_cast<size_t>(n));
      if (out.bytes > keep_max) {
        keeping = false;
        keep->release();
      }
    }
    if (static_cast<size_t>(n) < room) break;
  }
  out.kept = keeping;
  return out;
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
