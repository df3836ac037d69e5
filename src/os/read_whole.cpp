// read_whole.cpp — see read_whole.h.
#include "os/read_whole.h"

#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace os {

namespace {
constexpr size_t kChunk = 64 * 1024;
}  // namespace

PaddedBuffer::~PaddedBuffer() {
  if (p) munmap(p, cap + pad);
}

bool PaddedBuffer::reserve(size_t n) {
  const int anon = MAP_PRIVATE | MAP_ANONYMOUS;
  void* q = p ? mremap(p, cap + pad, n + pad, MREMAP_MAYMOVE)
              : mmap(nullptr, n + pad, PROT_READ | PROT_WRITE, anon, -1, 0);
  if (q == MAP_FAILED) return false;
  p = static_cast<char*>(q), cap = n;
  madvise(p, cap + pad, MADV_HUGEPAGE);  // advice only: its failure changes nothing
  return true;
}

ssize_t read_some(int fd, char* buf, size_t len) {
  while (true) {
    ssize_t n = ::read(fd, buf, len);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return -errno;
    pollfd p{fd, POLLIN, 0};
    poll(&p, 1, -1);
  }
}

WholeRead read_whole(int fd, const struct stat* st, uint64_t max, uint64_t ceiling,
                     PaddedBuffer& buf) {
  using Kind = WholeRead::Kind;
  const bool regular = st && S_ISREG(st->st_mode);
  if (regular && static_cast<uint64_t>(st->st_size) > max)
    return {Kind::TooLarge, 0, static_cast<uint64_t>(st->st_size)};
  uint64_t want = std::min<uint64_t>(regular ? st->st_size + uint64_t{1} : kChunk, max + 1);
  while (buf.size <= max) {
    if (buf.size == buf.cap && !buf.reserve(want)) return {Kind::NoMemory, 0, want};
    want = std::min<uint64_t>(std::max(buf.cap * 2, kChunk), max + 1);
    ssize_t n = read_some(fd, buf.p + buf.size, buf.cap - buf.size);
    if (n < 0) return {Kind::Failed, static_cast<int>(-n), std::nullopt};
    if (n == 0) return {};  // what follows the input is still zero
    buf.size += static_cast<size_t>(n);
  }
  uint64_t total = buf.size;
  char scratch[kChunk];
  while (total <= ceiling) {
    ssize_t n = read_some(fd, scratch, sizeof scratch);
    if (n < 0) return {Kind::Failed, static_cast<int>(-n), std::nullopt};
    if (n == 0) return {Kind::TooLarge, 0, total};
    total += static_cast<uint64_t>(n);
  }
  return {Kind::TooLarge, 0, std::nullopt};
}

}  // namespace os
