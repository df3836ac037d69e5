// content.h — what write stores: the content from stdin or --content-file, at most
// --max-bytes of it, and its SHA-256.
#pragma once

#include <cstdint>
#include <future>
#include <optional>
#include <string>

#include "contract/context.h"
#include "mem/big_alloc.h"

namespace write_tool {

// The content, from stdin or --content-file, at most max_bytes of it, and its hash: a pipe's
// computed piece by piece as it is read, while each piece is still in the cache; a file's on a
// second thread once it is read (os::sha256_later), while the call goes on to the file it
// replaces.
struct Content {
  mem::Bytes bytes;  // declared first: the hashing (which reads them) is joined before they go
  std::future<std::string> hashing;
  std::string hex;
  const std::string& sha256() {
    if (hashing.valid()) hex = hashing.get();
    return hex;
  }
};

// The content, or none with the error given to ctx: io.* for a --content-file that cannot be
// read (confined beneath the root like any path), limit.input-too-large past max_bytes (with
// the retry's size; a pipe is counted on, not kept, up to the ceiling).
std::optional<Content> read_content(const std::optional<std::string>& content_file,
                                    uint64_t max_bytes, contract::Context& ctx);

}  // namespace write_tool
