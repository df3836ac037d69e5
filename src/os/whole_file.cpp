// whole_file.cpp — read a file whole, straight into a buffer sized from fstat (see
// whole_file.h).
#include "os/whole_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>

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
    if (keeping) {
      // Full (the file is at least the size fstat gave): grow for what may follow, as far as
      // keep_max allows; one byte past it shows the file is too large. (The size kept never
      // passes keep_max, so there is always room for at least that byte.)
      if (keep->size() == keep->capacity()) {
        uint64_t want = std::min<uint64_t>(keep_max + 1, keep->size() + uint64_t{kPiece});
        if (want > keep->size() && !keep->reserve(static_cast<size_t>(want)))
          return errno_error(ENOMEM, shown, "read");
      }
      dst = keep->data() + keep->size();
      room = std::min(kPiece, keep->capacity() - keep->size());
    } else {
      if (spill.capacity() < kPiece && !spill.reserve(kPiece))
        return errno_error(ENOMEM, shown, "read");
      dst = spill.data();
      room = kPiece;
    }
    long long n = pread_full(fd, dst, room, out.bytes);
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
