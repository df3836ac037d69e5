// temp_file.cpp — new content under a temporary name beside the target, fsynced, then renamed
// over it in one step (see temp_file.h).
#include "os/temp_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "os/write_error.h"

namespace os {

using contract::Json;

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

Json planned_write(const Place& place, std::string_view path,
                   const std::optional<std::string>& before, const std::string& after,
                   uint64_t bytes) {
  Json planned = Json::array();
  if (has_stale_temp(place))
    planned.push(Json::object(
        {{"op", "remove-stale-temporary"}, {"path", Json::bytes(temp_name(place.name))}}));
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
    : place_(o.place_),
      opt_(o.opt_),
      fd_(std::exchange(o.fd_, -1)),
      exists_(std::exchange(o.exists_, false)),
      pending_(std::move(o.pending_)),
      written_(o.written_),
      started_(o.started_),
      synced_(std::move(o.synced_)) {}

TempFile::~TempFile() {
  wait_sync();  // the descriptor is closed only once the second thread is done with it
  if (fd_ >= 0) close(fd_);
  if (exists_) unlinkat(place_->dir.get(), temp_name(place_->name).c_str(), 0);
}

Result<TempFile> TempFile::create(const Place& place, const CommitOptions& opt) {
  if (auto e = remove_stale_temp(place)) return std::move(*e);
  // New files: 0644, less the umask, applied by the kernel. A replacement is created private
  // and given the old file's mode just before it is renamed into place: were it created
  // with, say, 0666, another user could write into it before the rename.
  int fd;
  do {
    fd = openat(place.dir.get(), temp_name(place.name).c_str(),
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, opt.mode ? 0600 : 0644);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return write_error(errno, place.path, "create-temporary");
  return TempFile(place, opt, fd);
}

contract::Error TempFile::fail(int err, std::string_view stage) {
  // A raw descriptor, not an Fd: close() is checked (NFS reports write errors there), and
  // the descriptor is gone after it whatever it answered. The destructor removes the name.
  wait_sync();
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
  wait_sync();  // an fsync of fewer bytes than the file will hold: commit() syncs again
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

TempFile::Synced TempFile::settle_file(int fd, const CommitOptions& opt) {
  if (opt.owner) {
    struct stat mine {};
    if (fstat(fd, &mine) == 0 &&
        (mine.st_uid != opt.owner->first || mine.st_gid != opt.owner->second)) {
      // EPERM: not ours to give away; the file stays the writer's (documented in temp_file.h).
      if (fchown(fd, opt.owner->first, opt.owner->second) != 0 && errno != EPERM)
        return {errno, "chown"};
    }
  }
  if (opt.mode && fchmod(fd, *opt.mode) != 0) return {errno, "chmod"};
  // fsync, not fdatasync. fdatasync would write the data and the size and block map needed
  // to read it back, but need not write the rest of the inode, and the mode and owner just
  // set by fchmod/fchown are that rest: after a crash the renamed file could be 0600 and the
  // writer's. Nor would it be cheaper here: a file created by this call has its inode and
  // block map to commit anyway, so both wait for the same journal commit (measured on ext4:
  // 1.8-5 ms for 1 MiB either way).
  if (fsync(fd) != 0) return {errno, "fsync"};
  return {};
}

std::optional<TempFile::Synced> TempFile::wait_sync() {
  if (!synced_.valid()) return std::nullopt;
  return synced_.get();
}

void TempFile::sync_ahead() {
  if (fd_ < 0 || synced_.valid()) return;
  // Pieces still gathered in memory are written first; should that fail, commit() reports it
  // (they are not written again: part of them may be in the file already).
  if (!pending_.empty()) {
    const int err = write_all(fd_, pending_);
    written_ += pending_.size();
    pending_.clear();
    if (err != 0) {
      std::promise<Synced> failed;
      failed.set_value({err, "write"});
      synced_ = failed.get_future();
      return;
    }
  }
  // std::async: the thread is joined by wait_sync() (or by the future's own destructor), and
  // its answer carried back whole. Should no thread start, commit() syncs in place.
  try {
    synced_ = std::async(std::launch::async, settle_file, fd_, opt_);
  } catch (const std::system_error&) {
  }
}

std::optional<contract::Error> TempFile::restart() {
  wait_sync();  // its answer is of bytes about to be replaced
  if (fd_ < 0) return fail(EBADF, "write");
  pending_.clear();
  if (ftruncate(fd_, 0) != 0) return fail(errno, "write");
  if (lseek(fd_, 0, SEEK_SET) != 0) return fail(errno, "write");
  written_ = started_ = 0;
  return std::nullopt;
}

std::optional<contract::Error> TempFile::commit() {
  if (auto e = flush()) return e;
  if (fd_ < 0) return fail(EBADF, "write");
  const int dir = place_->dir.get();
  const std::string tmp = temp_name(place_->name);
  const std::string& shown = place_->path;
  std::optional<Synced> synced = wait_sync();
  if (!synced) synced = settle_file(fd_, opt_);
  if (synced->err != 0) return fail(synced->err, synced->stage);
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

}  // namespace os
