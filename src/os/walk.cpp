// walk.cpp — the directory walk. One descriptor per directory on the current path, each
// opened from its parent's with O_NOFOLLOW|O_DIRECTORY; names read with getdents64 (the
// descriptor stays ours for openat, which fdopendir would take) and sorted bytewise.
#include "os/walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "os/path.h"

namespace os {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
constexpr int kFileFlags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;

int retry_openat(int dir, const char* name, int flags) {
  int fd;
  do fd = openat(dir, name, flags);
  while (fd < 0 && errno == EINTR);
  return fd;
}

EntryKind kind_of_mode(mode_t m) {
  if (S_ISREG(m)) return EntryKind::File;
  if (S_ISDIR(m)) return EntryKind::Directory;
  if (S_ISLNK(m)) return EntryKind::Link;
  return EntryKind::Other;
}

EntryKind kind_of_dtype(unsigned char t) {
  switch (t) {
    case DT_REG:
      return EntryKind::File;
    case DT_DIR:
      return EntryKind::Directory;
    case DT_LNK:
      return EntryKind::Link;
    default:
      return EntryKind::Other;
  }
}

}  // namespace

std::string_view kind_name(EntryKind k) {
  switch (k) {
    case EntryKind::File:
      return "file";
    case EntryKind::Directory:
      return "directory";
    case EntryKind::Link:
      return "link";
    case EntryKind::Other:
      return "other";
  }
  return "other";
}

SkipCounts& SkipCounts::operator+=(const SkipCounts& o) {
  ignored += o.ignored;
  hidden += o.hidden;
  binary += o.binary;
  special += o.special;
  symlink += o.symlink;
  glob += o.glob;
  return *this;
}

SkipCounts SkipCounts::operator-(const SkipCounts& o) const {
  return {ignored - o.ignored, hidden - o.hidden, binary - o.binary, special - o.special,
          symlink - o.symlink, glob - o.glob};
}

contract::Json SkipCounts::to_json() const {
  return contract::Json::object({{"ignored", ignored},
                                 {"glob", glob},
                                 {"hidden", hidden},
                                 {"binary", binary},
                                 {"special", special},
                                 {"symlink", symlink}});
}

// All names of a directory (without "." and ".."), each NUL-ended in `pool` (so that a
// name is a C string for openat), or -errno.
int Walker::read_names(int fd, std::string& pool, std::vector<Name>& out) {
  alignas(8) char buf[32768];
  for (;;) {
    ssize_t n = getdents64(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (n == 0) return 0;
    for (ssize_t off = 0; off < n;) {
      auto* d = reinterpret_cast<struct dirent64*>(buf + off);
      off += d->d_reclen;
      const char* name = d->d_name;
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
      const size_t len = strlen(name);  // at most NAME_MAX
      out.push_back({pool.size(), static_cast<uint16_t>(len), d->d_type});
      pool.append(name, len + 1);
    }
  }
}

Walker::Walker(WalkOptions opts, Fd dir, std::string shown, int ignore_root, std::string rel)
    : opts_(std::move(opts)) {
  for (auto& g : opts_.globs) globs_.add_line(g);
  if (!opts_.no_ignore && ignore_root >= 0 && !rel.empty()) {
    // The ignore files of the directories between the ignore root and the walked one. Each
    // is opened from the last with O_NOFOLLOW, like the walk itself.
    std::vector<Fd> held;
    int at = ignore_root;
    std::string sofar;
    size_t i = 0;
    for (;;) {
      load_ignores(at, sofar.empty() ? "." : sofar, sofar, true, true);
      size_t j = rel.find('/', i);
      if (j == std::string::npos) break;  // the last component is the walked directory
      std::string comp = rel.substr(i, j - i);
      int fd = retry_openat(at, comp.c_str(), kDirFlags);
      if (fd < 0) {
        error(errno_error(errno, join(sofar, comp), "open"));
        break;
      }
      held.emplace_back(fd);
      at = fd;
      sofar = join(sofar, comp);
      i = j + 1;
    }
  }
  enter(std::make_shared<const Fd>(std::move(dir)), std::move(shown), std::move(rel), 0);
}

void Walker::error(contract::Error e) {
  WalkItem item;
  item.type = WalkItem::Type::Error;
  item.error = std::move(e);
  pending_.push_back(std::move(item));
}

bool Walker::read_ignore(int dirfd, const char* file, const std::string& shown, std::string& out) {
  const std::string path = join(shown, file);
  int fd = retry_openat(dirfd, file, kFileFlags);
  if (fd < 0) {
    // Absent, or a link: git reads no .gitignore through a symbolic link, and neither do we.
    if (errno != ENOENT && errno != ELOOP) error(errno_error(errno, path, "read"));
    return false;
  }
  Fd held(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    error(errno_error(errno, path, "read"));
    return false;
  }
  if (!S_ISREG(st.st_mode)) return false;  // a FIFO or device named .gitignore is not read
  if (static_cast<uint64_t>(st.st_size) > opts_.max_ignore_bytes) {
    error(contract::make_error(
        "limit.input-too-large",
        "the ignore file '" + contract::printable(path) + "' is larger than " +
            std::to_string(opts_.max_ignore_bytes) + " bytes; its rules were not applied",
        contract::Json::object({{"path", contract::Json::bytes(path)},
                                {"bytes", static_cast<uint64_t>(st.st_size)},
                                {"cap", static_cast<uint64_t>(opts_.max_ignore_bytes)}})));
    return false;
  }
  out.resize(static_cast<size_t>(st.st_size));
  long long n = pread_full(fd, out.data(), out.size(), 0);
  if (n < 0) {
    error(errno_error(static_cast<int>(-n), path, "read"));
    return false;
  }
  out.resize(static_cast<size_t>(n));
  return true;
}

void Walker::load_ignores(int dirfd, const std::string& shown, const std::string& rel,
                          bool listed_git, bool listed_dot) {
  Level level;
  level.base = rel.empty() ? 0 : rel.size() + 1;
  std::string content;
  if (listed_dot && read_ignore(dirfd, ".ignore", shown, content)) level.dot.add_file(content);
  if (listed_git && read_ignore(dirfd, ".gitignore", shown, content)) level.git.add_file(content);
  // A level is pushed even when empty, so that frames and levels pop in step.
  levels_.push_back(std::move(level));
}

void Walker::enter(std::shared_ptr<const Fd> dir, std::string shown, std::string rel,
                   uint64_t depth) {
  Frame f;
  int rc = read_names(dir->get(), f.pool, f.names);
  if (rc < 0) {
    error(errno_error(-rc, shown, "read directory"));
    return;
  }
  // Bytewise, as the names' own order: a swap moves 16 bytes, not a string.
  const char* pool = f.pool.data();
  std::sort(f.names.begin(), f.names.end(), [pool](const Name& a, const Name& b) {
    const int c = memcmp(pool + a.at, pool + b.at, std::min(a.len, b.len));
    return c != 0 ? c < 0 : a.len < b.len;
  });
  f.dir = std::move(dir);
  f.depth = depth;
  bool has_git = false, has_dot = false, has_files = false;
  for (const Name& n : f.names) {
    const std::string_view name(pool + n.at, n.len);
    if (name == ".gitignore") has_git = true;
    if (name == ".ignore") has_dot = true;
    if (n.type == DT_REG) has_files = true;
  }
  if (!opts_.no_ignore) {
    load_ignores(f.dir->get(), shown, rel, has_git, has_dot);
    f.level = true;
  }
  f.whole_reads = opts_.fs_kind && has_files && whole_reads_fs(f.dir->get());
  f.shown = std::move(shown);
  f.rel = std::move(rel);
  stack_.push_back(std::move(f));
}

bool Walker::excluded(const std::string& rel, const std::string& name, bool is_dir) {
  if (!globs_.empty()) {
    switch (globs_.match(rel, is_dir)) {
      case text::Verdict::Ignore:
        return false;               // a plain glob matched: included
      case text::Verdict::Include:  // a `!` glob matched: excluded
        ++counts_.glob;
        return true;
      case text::Verdict::None:
        if (globs_.has_plain() && !is_dir) {
          ++counts_.glob;
          return true;
        }
        break;
    }
  }
  if (!opts_.no_ignore) {
    text::Verdict v = text::Verdict::None;
    for (size_t i = levels_.size(); i-- > 0 && v == text::Verdict::None;)
      if (!levels_[i].dot.empty())
        v = levels_[i].dot.match(std::string_view(rel).substr(levels_[i].base), is_dir);
    for (size_t i = levels_.size(); i-- > 0 && v == text::Verdict::None;)
      if (!levels_[i].git.empty())
        v = levels_[i].git.match(std::string_view(rel).substr(levels_[i].base), is_dir);
    if (v == text::Verdict::Ignore) {
      ++counts_.ignored;
      return true;
    }
    if (v == text::Verdict::Include) return false;
  }
  if (!opts_.hidden && !name.empty() && name[0] == '.') {
    ++counts_.hidden;
    return true;
  }
  return false;
}

namespace {

// Whether the directory `name` in `dirfd` holds any entry (one it cannot open: taken to).
bool holds_entries(int dirfd, const std::string& name) {
  const int fd = retry_openat(dirfd, name.c_str(), kDirFlags);
  if (fd < 0) return true;
  alignas(8) char buf[1024];
  bool any = false;
  for (ssize_t n; !any && (n = getdents64(fd, buf, sizeof buf)) > 0;)
    for (ssize_t off = 0; off < n && !any;) {
      auto* d = reinterpret_cast<struct dirent64*>(buf + off);
      off += d->d_reclen;
      const char* nm = d->d_name;
      any = !(nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0)));
    }
  close(fd);
  return any;
}

}  // namespace

bool Walker::next(WalkItem& out) {
  for (;;) {
    if (!pending_.empty()) {
      out = std::move(pending_.front());
      pending_.pop_front();
      return true;
    }
    if (enter_next_) {
      Enter e = std::move(*enter_next_);
      enter_next_.reset();
      int fd = retry_openat(e.parent->get(), e.name.c_str(), kDirFlags);
      if (fd < 0) {
        // Swapped since it was listed. The kernel says ENOTDIR for a link under O_DIRECTORY,
        // so a link is named as what it is: refused, not followed.
        int err = errno;
        struct stat st {};
        if ((err == ENOTDIR || err == ELOOP) &&
            fstatat(e.parent->get(), e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
          err = ELOOP;
        error(errno_error(err, e.shown, "open"));
        continue;
      }
      enter(std::make_shared<const Fd>(Fd(fd)), std::move(e.shown), std::move(e.rel), e.depth);
      continue;
    }
    if (stack_.empty()) return false;
    Frame& f = stack_.back();
    if (f.next == f.names.size()) {
      if (f.level) levels_.pop_back();
      stack_.pop_back();
      continue;
    }
    const Name& n = f.names[f.next++];
    Entry e;
    e.name.assign(f.pool, n.at, n.len);
    e.depth = f.depth + 1;
    e.kind = kind_of_dtype(n.type);
    if (n.type == DT_UNKNOWN || opts_.stat_all) {
      if (fstatat(f.dir->get(), e.name.c_str(), &e.st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;  // gone since it was listed: nothing to report on
        error(errno_error(errno, join(f.shown, e.name), "stat"));
        continue;
      }
      e.has_stat = true;
      e.kind = kind_of_mode(e.st.st_mode);
    }
    const bool is_dir = e.kind == EntryKind::Directory;
    join_into(rel_, f.rel, e.name);  // a file's is needed only here: no string of its own
    if (excluded(rel_, e.name, is_dir)) continue;
    e.path = join(f.shown, e.name);
    e.parent = f.dir;
    e.whole_reads = f.whole_reads;
    if (is_dir && e.depth < opts_.max_depth)
      enter_next_ = Enter{f.dir, e.name, e.path, rel_, e.depth};
    else if (is_dir && opts_.depth_is_a_limit && holds_entries(f.dir->get(), e.name))
      error(contract::make_error(
          "limit.too-deep",
          "'" + contract::printable(e.path) + "' is " + std::to_string(e.depth) +
              " levels down, the deepest a walk goes; what it holds is not listed.",
          contract::Json::object({{"path", contract::Json::bytes(e.path)}, {"depth", e.depth}})));
    out.type = WalkItem::Type::Entry;
    out.entry = std::move(e);
    return true;
  }
}

bool whole_reads_fs(int fd) {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC:  // ext2, ext3 and ext4 share it
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case TMPFS_MAGIC:
      return true;
    default:
      return false;
  }
}

int open_entry(const Entry& e) {
  int fd = retry_openat(e.parent->get(), e.name.c_str(), kFileFlags);
  return fd < 0 ? -errno : fd;
}

int open_entry(const Entry& e, struct stat& st) {
  const int fd = open_entry(e);
  if (fd < 0) return fd;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return -err;
  }
  // O_NONBLOCK stays: it changes nothing for a regular file's reads, and clearing it would
  // cost two system calls per file in a walk of thousands.
  return fd;
}

}  // namespace os
