// journal_files.cpp — the journal's small files on disk: see journal_files.h.
#include "writer/journal_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "os/write_error.h"

namespace writer {

std::optional<contract::Error> write_all(int fd, std::string_view bytes, std::string_view shown) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return os::write_error(errno, shown, "write");
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return std::nullopt;
}

std::optional<contract::Error> put_new(int dir, const std::string& tmp, std::string_view bytes,
                                       std::string_view shown, os::TempFile* alongside) {
  int fd = openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return os::write_error(errno, shown, "create");
  os::Fd owned(fd);
  if (auto e = write_all(fd, bytes, shown)) {
    unlinkat(dir, tmp.c_str(), 0);
    return e;
  }
  if (alongside) alongside->sync_ahead();
  if (fsync(fd) != 0) {
    int err = errno;
    unlinkat(dir, tmp.c_str(), 0);
    return os::write_error(err, shown, "fsync");
  }
  return std::nullopt;
}

std::optional<contract::Error> put_temp(int dir, const std::string& name, std::string_view bytes,
                                        std::string_view shown, os::TempFile* alongside) {
  const std::string tmp = name + ".tmp";
  unlinkat(dir, tmp.c_str(), 0);  // left by a writer that was killed (under the lock)
  return put_new(dir, tmp, bytes, shown, alongside);
}

std::optional<contract::Error> rename_temp(int dir, const std::string& name,
                                           std::string_view shown) {
  const std::string tmp = name + ".tmp";
  if (renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) {
    int err = errno;
    unlinkat(dir, tmp.c_str(), 0);
    return os::write_error(err, shown, "rename");
  }
  return std::nullopt;
}

std::optional<contract::Error> put_file(int dir, const std::string& name, std::string_view bytes,
                                        std::string_view shown) {
  if (auto e = put_temp(dir, name, bytes, shown)) return e;
  return rename_temp(dir, name, shown);
}

os::Result<std::string> read_small(int dir, const std::string& name, uint64_t max,
                                   std::string_view shown, bool* over) {
  int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return os::errno_error(errno, shown, "open");
  os::Fd owned(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) return os::errno_error(errno, shown, "stat");
  if (!S_ISREG(st.st_mode)) return os::errno_error(EINVAL, shown, "open");
  if (static_cast<uint64_t>(st.st_size) > max) {
    if (over) *over = true;
    return std::string();
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  long long n = os::pread_full(fd, out.data(), out.size(), 0);
  if (n < 0) return os::errno_error(static_cast<int>(-n), shown, "read");
  out.resize(static_cast<size_t>(n));
  return out;
}

std::vector<std::pair<std::string, uint64_t>> files_of(int dir, bool sizes) {
  std::vector<std::pair<std::string, uint64_t>> out;
  int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return out;
  }
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (!sizes) {
      out.emplace_back(name, 0);
      continue;
    }
    struct stat st {};
    if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    out.emplace_back(name, S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0);
  }
  closedir(d);
  return out;
}

}  // namespace writer
