// content.cpp — write's content, read and hashed: see content.h.
#include "tools/write/content.h"

#include <unistd.h>

#include "os/hash.h"
#include "os/open.h"
#include "os/whole_file.h"
#include "writer/table.h"
#include "writer/writer.h"

namespace write_tool {

using contract::Json;

std::optional<Content> read_content(const std::optional<std::string>& content_file,
                                    uint64_t max_bytes, contract::Context& ctx) {
  Content content;
  os::Sha hash;
  std::string source = content_file ? *content_file : "-";
  auto too_large = [&](uint64_t size, bool exact) {
    ctx.error(writer::too_large({.where = Json::object({{"source", Json::bytes(source)}}),
                                 .what = "the content",
                                 .bytes = size,
                                 .exact = exact,
                                 .max_bytes = max_bytes,
                                 .larger = "the content"},
                                ctx));
    return std::nullopt;
  };
  if (content_file) {
    auto opened = os::open_read(ctx.root_fd(), *content_file, os::Want::File, *content_file);
    if (auto* e = std::get_if<contract::Error>(&opened)) {
      ctx.error(std::move(*e));
      return std::nullopt;
    }
    auto& f = std::get<os::Opened>(opened);
    uint64_t size = static_cast<uint64_t>(f.st.st_size);
    if (size > max_bytes) return too_large(size, true);
    auto read = os::read_whole(f.fd.get(), *content_file, &content.bytes, max_bytes,
                               [](std::string_view) {});
    if (auto* e = std::get_if<contract::Error>(&read)) {
      ctx.error(std::move(*e));
      return std::nullopt;
    }
    // The file grew while it was read: its size is what the cap is about.
    if (!std::get<os::WholeFile>(read).kept)
      return too_large(std::get<os::WholeFile>(read).bytes, true);
    content.hashing = os::sha256_later(content.bytes.view());
    return content;
  }
  // stdin: keep up to the cap; past it, count on (discarding) up to the ceiling so the error
  // can name the size a retry needs.
  const os::CappedRead r = os::read_capped(STDIN_FILENO, max_bytes, writer::kMaxBytesCeiling,
                                           [&](std::string_view piece) {
                                             if (!content.bytes.append(piece)) return false;
                                             hash.update(piece);
                                             return true;
                                           });
  if (r.error) {
    ctx.error(os::errno_error(r.error, "standard input", "read"));
    return std::nullopt;
  }
  if (r.total > writer::kMaxBytesCeiling) return too_large(writer::kMaxBytesCeiling, false);
  if (r.total > max_bytes) return too_large(r.total, true);
  content.hex = hash.hex();
  return content;
}

}  // namespace write_tool
