// whole_file.h — a file read whole into memory (a huge-page buffer, mem/big_alloc.h), every
// piece handed on as it arrives so the writers hash it while it is still in the cache.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "mem/big_alloc.h"
#include "os/open.h"

namespace os {

struct WholeFile {
  uint64_t bytes = 0;  // bytes read, the whole file
  bool kept = false;   // they are in *keep
};

// Reads an open file from offset 0 to its end with pread (its position untouched), handing
// every piece to `each` in order as it arrives (to hash it while it is in the cache). When
// `keep` is given and the file is no larger than keep_max, its bytes are left in *keep (kept:
// true), read straight into a buffer sized once from fstat (the size is only a hint: a file
// that grows meanwhile is followed); a larger file is read in bounded memory and *keep is
// emptied. io.read-failed (or io.permission-denied...) naming `shown`.
Result<WholeFile> read_whole(int fd, std::string_view shown, mem::Bytes* keep, uint64_t keep_max,
                             const std::function<void(std::string_view)>& each);

}  // namespace os
