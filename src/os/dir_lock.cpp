// dir_lock.cpp — flock on the target's directory, waited for a bounded while (see dir_lock.h).
#include "os/dir_lock.h"

#include <sys/file.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <utility>

#include "contract/json.h"
#include "os/temp_file.h"
#include "os/write_error.h"

namespace os {

using contract::Json;

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

}  // namespace os
