// tree_floor.cpp — the floor under any search of a tree (make bench, seek.sh): every regular
// file beneath the current directory opened, read and closed, nothing searched, nothing
// written, no sandbox. What a search cannot go under on this machine, whatever it does with
// the bytes: the walk, the opens, the copies out of the page cache and the closes.
//
// It reads what seek reads and no more, so that it stays a floor: hidden names skipped (seek's
// default), symbolic links not followed, a file with a NUL in its first 8 KiB read only that
// far (seek's binary probe), the rest read whole in 256 KiB reads into an aligned buffer, a
// short read taken as the end. It walks the way the fastest searcher does, not the way seek
// does: THREADS threads share a queue of directories, each lists one, queues its
// subdirectories and reads its files (ripgrep's parallel walk), so no thread waits on another.
//
//   tree_floor [THREADS]   prints "FILES files BYTES bytes"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kRead = 256 << 10;
constexpr size_t kProbe = 8192;

struct Queue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::string> dirs;
  int busy = 0;  // threads listing a directory, which may queue more
};

struct Totals {
  uint64_t files = 0, bytes = 0;
};

uint64_t read_file(int dir, const char* name, char* buf) {
  const int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return 0;
  uint64_t at = 0;
  for (;;) {
    const ssize_t n = pread(fd, buf, kRead, static_cast<off_t>(at));
    if (n <= 0) break;
    if (at == 0 && memchr(buf, 0, std::min<size_t>(static_cast<size_t>(n), kProbe))) {
      at = static_cast<uint64_t>(n);
      break;  // binary: seek reads no further
    }
    at += static_cast<uint64_t>(n);
    if (static_cast<size_t>(n) < kRead) break;
  }
  close(fd);
  return at;
}

void list(const std::string& path, char* buf, std::vector<char>& ents, Totals& t,
          std::vector<std::string>& subdirs) {
  const int dir = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return;
  for (;;) {
    const long n = syscall(SYS_getdents64, dir, ents.data(), ents.size());
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(ents.data() + off);
      off += e->d_reclen;
      if (e->d_name[0] == '.') continue;  // hidden, and . and ..
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st {};
        if (fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
      }
      if (type == DT_DIR) {
        subdirs.push_back(path + "/" + e->d_name);
      } else if (type == DT_REG) {
        t.bytes += read_file(dir, e->d_name, buf);
        ++t.files;
      }
    }
  }
  close(dir);
}

void work(Queue& q, Totals& t) {
  void* mem = nullptr;
  if (posix_memalign(&mem, 4096, kRead) != 0) std::abort();
  char* buf = static_cast<char*>(mem);
  std::vector<char> ents(32 << 10);
  std::vector<std::string> subdirs;
  for (;;) {
    std::string dir;
    {
      std::unique_lock lk(q.mu);
      q.cv.wait(lk, [&] { return !q.dirs.empty() || q.busy == 0; });
      if (q.dirs.empty()) break;
      dir = std::move(q.dirs.front());
      q.dirs.pop_front();
      ++q.busy;
    }
    subdirs.clear();
    list(dir, buf, ents, t, subdirs);
    {
      std::lock_guard lk(q.mu);
      for (auto& s : subdirs) q.dirs.push_back(std::move(s));
      --q.busy;
    }
    q.cv.notify_all();
  }
  free(mem);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::max(1, atoi(argv[1])) : 2;
  Queue q;
  q.dirs.push_back(".");
  std::vector<Totals> totals(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(work, std::ref(q), std::ref(totals[i]));
  for (auto& th : pool) th.join();
  Totals all;
  for (const Totals& t : totals) {
    all.files += t.files;
    all.bytes += t.bytes;
  }
  printf("%llu files %llu bytes\n", static_cast<unsigned long long>(all.files),
         static_cast<unsigned long long>(all.bytes));
}
