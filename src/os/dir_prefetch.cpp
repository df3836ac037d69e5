// dir_prefetch.cpp — the read-ahead thread of a walk.
#include "os/dir_prefetch.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace os {

int open_dir_at(int parent, const char* name) {
  int fd;
  do fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  return fd < 0 ? -errno : fd;
}

int read_dir_names(int fd, DirNames& out) {
  alignas(8) char buf[32768];
  for (;;) {
    ssize_t n = getdents64(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (n == 0) break;
    for (ssize_t off = 0; off < n;) {
      auto* d = reinterpret_cast<struct dirent64*>(buf + off);
      off += d->d_reclen;
      const char* name = d->d_name;
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
      out.emplace_back(name, d->d_type);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return 0;
}

DirPrefetch::~DirPrefetch() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DirPrefetch::ask(const std::shared_ptr<const Fd>& parent,
                      const std::vector<std::string>& names) {
  if (names.empty()) return;
  {
    std::lock_guard lk(mu_);
    for (auto it = names.rbegin(); it != names.rend(); ++it) queue_.push_front({parent, *it});
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  work_cv_.notify_one();
}

std::optional<DirListing> DirPrefetch::take(const Fd* parent, const std::string& name) {
  std::unique_lock lk(mu_);
  const Key key{reinterpret_cast<uintptr_t>(parent), name};
  auto it = ready_.find(key);
  if (it == ready_.end()) {  // not started: the caller reads it; the request goes
    std::erase_if(queue_, [&](const Job& j) { return j.parent.get() == parent && j.name == name; });
    return std::nullopt;
  }
  done_cv_.wait(lk, [&] { return ready_.at(key).has_value(); });
  it = ready_.find(key);
  std::optional<DirListing> out = std::move(it->second);
  ready_.erase(it);
  parents_.erase(key);
  work_cv_.notify_one();  // room for one more
  return out;
}

void DirPrefetch::forget(const Fd* parent) {
  std::unique_lock lk(mu_);
  std::erase_if(queue_, [&](const Job& j) { return j.parent.get() == parent; });
  // Under way: wait for it (it holds the parent), then drop it with the rest.
  const uintptr_t p = reinterpret_cast<uintptr_t>(parent);
  done_cv_.wait(lk, [&] {
    for (auto it = ready_.lower_bound({p, ""}); it != ready_.end() && it->first.first == p; ++it)
      if (!it->second) return false;
    return true;
  });
  for (auto it = ready_.lower_bound({p, ""}); it != ready_.end() && it->first.first == p;) {
    parents_.erase(it->first);
    it = ready_.erase(it);
  }
  work_cv_.notify_one();
}

void DirPrefetch::loop() {
  std::unique_lock lk(mu_);
  for (;;) {
    work_cv_.wait(lk, [&] { return stop_ || (!queue_.empty() && ready_.size() < kAhead); });
    if (stop_) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    const Key key{reinterpret_cast<uintptr_t>(job.parent.get()), job.name};
    if (ready_.count(key)) continue;  // asked twice: one read serves
    ready_.emplace(key, std::nullopt);
    parents_.emplace(key, job.parent);
    lk.unlock();
    DirListing l;
    const int fd = open_dir_at(job.parent->get(), job.name.c_str());
    if (fd < 0) {
      l.open_err = -fd;
    } else {
      l.fd = Fd(fd);
      const int rc = read_dir_names(fd, l.names);
      if (rc < 0) l.read_err = -rc;
    }
    lk.lock();
    ready_[key] = std::move(l);
    done_cv_.notify_all();
  }
}

}  // namespace os
