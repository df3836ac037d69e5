// output.cpp — the checked writer.
#include "contract/output.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace contract {

bool Out::flush() {
  flushed_ += buf_.size();
  if (err_) {
    buf_.clear();
    return false;
  }
  size_t done = 0;
  while (done < buf_.size()) {
    ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        // A non-blocking stdout that is full is not a failure: wait until it drains.
        struct pollfd p {fd_, POLLOUT, 0};
        if (poll(&p, 1, -1) >= 0 || errno == EINTR) continue;
      }
      err_ = errno;
      break;
    }
    if (n == 0) {
      err_ = EIO;
      break;
    }
    done += static_cast<size_t>(n);
  }
  buf_.clear();
  return err_ == 0;
}

}  // namespace contract
