// output.cpp — the checked writer.
#include "contract/output.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace contract {

bool Out::flush() {
  flushed_ += buf_.size();
  if (err_ == 0) send(buf_, false);
  buf_.clear();
  return err_ == 0;
}

void Out::send(std::string_view bytes, bool by_reference) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n;
    if (by_reference && pipe_ == 1) {
      // The pipe takes references to the pages: the reader copies them, this process does not.
      iovec v{const_cast<char*>(bytes.data() + done), bytes.size() - done};
      n = vmsplice(fd_, &v, 1, 0);
      if (n < 0 && (errno == EINVAL || errno == ENOSYS || errno == EPERM)) {
        pipe_ = 0;  // not a pipe vmsplice takes (or a filter refuses it): written instead
        continue;
      }
    } else {
      n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        // A non-blocking stdout that is full is not a failure: wait until it drains.
        struct pollfd p {fd_, POLLOUT, 0};
        if (poll(&p, 1, -1) >= 0 || errno == EINTR) continue;
      }
      err_ = errno;
      return;
    }
    if (n == 0) {
      err_ = EIO;
      return;
    }
    done += static_cast<size_t>(n);
  }
}

void Out::stable(std::string_view bytes) {
  // Below this a copy costs less than the calls that spare it.
  constexpr size_t kHandOver = 64 * 1024;
  constexpr int kWide = 1 << 20;
  if (bytes.size() < kHandOver) {
    write(bytes);
    return;
  }
  if (flush()) {
    if (pipe_ < 0) {
      struct stat st {};
      pipe_ = fstat(fd_, &st) == 0 && S_ISFIFO(st.st_mode);
      // A wider pipe (best effort: pipe-max-size may refuse it) takes the bytes in a
      // sixteenth of the rounds of waking the reader and waiting for it.
      if (pipe_ && fcntl(fd_, F_GETPIPE_SZ) < kWide) fcntl(fd_, F_SETPIPE_SZ, kWide);
    }
    send(bytes, true);
  }
  flushed_ += bytes.size();  // counted whether written or not, as flush() counts its buffer
}

}  // namespace contract
