// inputs.cpp — operands to inputs: open, then either take the file or walk the directory.
#include "os/inputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>
#include <utility>

namespace os {
namespace {

bool has_dotdot(std::string_view p) {
  return p == ".." || p.starts_with("../") || p.ends_with("/..") ||
         p.find("/../") != std::string_view::npos;
}

}  // namespace

Inputs::Inputs(int root_fd, std::vector<std::string> paths, WalkOptions opts)
    : root_fd_(root_fd), paths_(std::move(paths)), opts_(std::move(opts)) {
  if (paths_.empty()) paths_.push_back(".");
  if (root_fd_ < 0) {
    auto r = open_root(".");
    if (auto* fd = std::get_if<Fd>(&r)) cwd_ = std::move(*fd);
  }
}

SkipCounts Inputs::skipped() const {
  SkipCounts now = counted_;
  if (walker_) now += walker_->counts();
  return now;
}

bool Inputs::next(Input& out) {
  for (;;) {
    if (walker_) {
      WalkItem item;
      if (!walker_->next(item)) {
        counted_ += walker_->counts();
        walker_.reset();
        continue;
      }
      if (item.type == WalkItem::Type::Error) {
        out.type = Input::Type::Error;
        out.error = std::move(item.error);
        out.skipped = skipped();
        return true;
      }
      switch (item.entry.kind) {
        case EntryKind::File:
          out.type = Input::Type::Walked;
          out.path = std::move(item.entry.path);
          out.entry = std::move(item.entry);
          out.skipped = skipped();
          return true;
        case EntryKind::Link:
          ++counted_.symlink;
          break;
        case EntryKind::Other:
          ++counted_.special;
          break;
        case EntryKind::Directory:
          break;
      }
      continue;
    }
    if (next_path_ == paths_.size()) return false;
    const std::string& path = paths_[next_path_++];
    auto opened = open_read(root_fd_, path, Want::Any, path);
    if (auto* e = std::get_if<contract::Error>(&opened)) {
      out.type = Input::Type::Error;
      out.error = std::move(*e);
      out.skipped = counted_;
      return true;
    }
    Opened& o = std::get<Opened>(opened);
    if (!S_ISDIR(o.st.st_mode)) {
      out.type = Input::Type::Named;
      out.path = path;
      out.named = std::move(o);
      out.skipped = counted_;
      return true;
    }
    int ignore_root = root_fd_ >= 0 ? root_fd_ : cwd_.get();
    std::string rel = path == "." ? "" : path;
    if (root_fd_ < 0 && (path.starts_with("/") || has_dotdot(path))) {
      ignore_root = -1;
      rel.clear();
    }
    walker_.emplace(opts_, std::move(o.fd), path, ignore_root, rel);
  }
}

namespace {

// [off, off + len) into buf, from `got` on: to the end, or with `size` (not 0) only up to it,
// so that a file read to the size fstat gave needs no read that finds its end.
long long read_on(int fd, uint64_t size, char* buf, size_t len, uint64_t off, size_t got) {
  size_t want = len;
  if (size > 0 && off + got >= size && got > 0) return static_cast<long long>(got);
  if (size > 0 && off < size) want = static_cast<size_t>(std::min<uint64_t>(len, size - off));
  const long long n = pread_full(fd, buf + got, want - got, off + got);
  return n < 0 ? n : static_cast<long long>(got) + n;
}

}  // namespace

text::ReadAt input_reader(int fd, uint64_t size) {
  return [fd, size](char* buf, size_t len, uint64_t off) -> long long {
    return read_on(fd, size, buf, len, off, 0);
  };
}

text::ReadAt walked_reader(int fd, struct stat& st) {
  constexpr size_t kPage = 4096;  // a multiple of it ends every read cut by an error
  // Two words (fd and known share the first), so that std::function holds it in place.
  return [fd, known = false, &st](char* buf, size_t len, uint64_t off) mutable -> long long {
    if (known) return S_ISREG(st.st_mode) ? read_on(fd, st.st_size, buf, len, off, 0) : 0;
    known = true;
    ssize_t n;
    do n = pread(fd, buf, len, static_cast<off_t>(off));
    while (n < 0 && errno == EINTR);
    const size_t got = n > 0 ? static_cast<size_t>(n) : 0;
    if (n >= 0 && got < len && (got == 0 || (off + got) % kPage != 0)) {
      st.st_mode = S_IFREG;
      st.st_size = static_cast<off_t>(off + got);
      return n;
    }
    const int err = n < 0 ? errno : 0;
    if (fstat(fd, &st) != 0) return -static_cast<long long>(errno);
    if (!S_ISREG(st.st_mode)) return 0;
    if (err) return -static_cast<long long>(err);
    return read_on(fd, st.st_size, buf, len, off, got);
  };
}

}  // namespace os
