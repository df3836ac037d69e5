// read_whole.h — a whole input read into memory, a file or a pipe, up to a cap: jsonq's
// document. The buffer is zeroed anonymous memory with readable padding past its end (a
// parser that reads ahead, simdjson, needs it), grown without a copy.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace os {

// `pad` readable zero bytes past `cap`; grown by mremap, on huge pages where offered (64 MiB:
// 32 page faults, not 16,384).
struct PaddedBuffer {
  explicit PaddedBuffer(size_t pad_bytes) : pad(pad_bytes) {}
  ~PaddedBuffer();
  PaddedBuffer(const PaddedBuffer&) = delete;
  PaddedBuffer& operator=(const PaddedBuffer&) = delete;
  // Capacity `n`, keeping the bytes held; false when the memory is refused.
  bool reserve(size_t n);

  const size_t pad;
  char* p = nullptr;
  size_t size = 0, cap = 0;
};

// read(2) that waits out a non-blocking descriptor (an inherited O_NONBLOCK stdin) and EINTR;
// -errno on failure.
ssize_t read_some(int fd, char* buf, size_t len);

struct WholeRead {
  enum class Kind { Done, Failed, TooLarge, NoMemory } kind = Kind::Done;
  int error = 0;  // Failed: the errno
  // TooLarge: the input's size, or none when it is past the ceiling; NoMemory: the bytes asked.
  std::optional<uint64_t> size;
};

// All of `fd` into `buf`, at most `max` bytes. `st` (may be null) is fd's fstat: a regular file
// larger than `max` is refused unread, and read into one buffer of its size otherwise; a
// stream's buffer doubles from 64 KiB. Past `max` the rest is counted, not held, up to
// `ceiling`, so that the size which would do can be named.
WholeRead read_whole(int fd, const struct stat* st, uint64_t max, uint64_t ceiling,
                     PaddedBuffer& buf);

}  // namespace os
