// whole_file.cpp — read a file whole, straight into a buffer sized from fstat (see
// whole_file.h).
#include "os/whole_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

namespace os {

Result<WholeFile> read_whole(int fd, std::string_view shown, mem::Bytes* keep, uint64_t keep_max,
                             const std::function<void(std::string_view)>& each) {
  // Pieces of 256 KiB: hashed right after they are read, while they are still in the cache.
  constexpr size_t kPiece = 256 * 1024;
  WholeFile out;
  bool keeping = keep != nullptr;
  if (keep) {
    keep->set_size(0);
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size >= 0 && static_cast<uint64_t>(st.st_size) <= keep_max &&
        !keep->reserve(static_cast<size_t>(st.st_size)))
      return errno_error(ENOMEM, shown, "read");
  }
  mem::Bytes spill;  // the piece buffer once the content is not kept
  while (true) {
    char* dst;
    size_t room;
    long long n;
    if (keeping && keep->size() == keep->capacity()) {
      // Full (the file is at least the size fstat gave). Most files end here, which one small
      // read says without growing the buffer: growing copies it, and a large one faults in
      // fresh pages, a cost a one-line file would otherwise pay on every call. Else grow for
      // what follows, as far as keep_max allows; one byte past it shows the file is too large.
      // (The size kept never passes keep_max, so there is always room for that byte.)
      char probe[4096];
      n = pread_full(fd, probe, sizeof probe, out.bytes);
      if (n == 0) break;
      if (n > 0) {
        const uint64_t want = std::min<uint64_t>(
            keep_max + 1, keep->size() + std::max<uint64_t>(kPiece, static_cast<uint64_t>(n)));
        if (!keep->reserve(static_cast<size_t>(want))) return errno_error(ENOMEM, shown, "read");
        n = std::min<long long>(n, static_cast<long long>(want - keep->size()));
        std::memcpy(keep->data() + keep->size(), probe, static_cast<size_t>(n));
      }
      dst = keep->data() + keep->size();
      room = n > 0 ? static_cast<size_t>(n) : 1;  // not the end yet: read on
    } else if (keeping) {
      dst = keep->data() + keep->size();
      room = std::min(kPiece, keep->capacity() - keep->size());
      n = pread_full(fd, dst, room, out.bytes);
    } else {
      if (spill.capacity() < kPiece && !spill.reserve(kPiece))
        return errno_error(ENOMEM, shown, "read");
      dst = spill.data();
      room = kPiece;
      n = pread_full(fd, dst, room, out.bytes);
    }
    if (n < 0) {
      if (keep) keep->release();
      return errno_error(static_cast<int>(-n), shown, "read");
    }
    std::string_view piece(dst, static_cast<size_t>(n));
    if (each && n > 0) each(piece);
    out.bytes += static_cast<uint64_t>(n);
    if (keeping) {
      keep->set_size(keep->size() + static_cast<size_t>(n));
      if (out.bytes > keep_max) {
        keeping = false;
        keep->release();
      }
    }
    if (static_cast<size_t>(n) < room) break;
  }
  out.kept = keeping;
  return out;
}

}  // namespace os
