// replace_stream.cpp — see replace_stream.h.
#include "writer/replace_stream.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "os/hash.h"

namespace writer {

using contract::Json;

size_t window_for(int fd) {
  struct stat st {};
  const uint64_t size = fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return static_cast<size_t>(std::min<uint64_t>(kWindow, size + 1));
}

contract::Error changed_meanwhile(const std::string& path) {
  contract::Error err = contract::make_error(
      "io.read-failed",
      "'" + contract::printable(path) +
          "' changed while it was being rewritten (by a writer that does not take tack's "
          "lock); nothing was written.",
      Json::object({{"path", Json::bytes(path)}, {"stage", "reread"}}));
  err.repair = contract::Repair::none("read the file again, then decide");
  return err;
}

os::Result<Scanned> scan(int fd, const std::string& path, std::vector<text::Finder>& finders,
                         uint64_t max_bytes) {
  size_t longest = 0;
  for (const text::Finder& f : finders) longest = std::max(longest, f.needle().size());
  mem::Bytes win;
  if (!win.reserve(window_for(fd) + longest))
    return os::errno_error(ENOMEM, path, "read");
  os::Sha hash;
  Check check;
  text::EolTally eols;
  Scanned out;
  uint64_t base = 0, lines_at_base = 0;
  for (bool eof = false, first = true; !eof; first = false) {
    const size_t room = win.capacity() - win.size();
    long long n = os::pread_full(fd, win.data() + win.size(), room, base + win.size());
    if (n < 0) return os::errno_error(static_cast<int>(-n), path, "read");
    const std::string_view piece(win.data() + win.size(), static_cast<size_t>(n));
    eof = static_cast<size_t>(n) < room;
    hash.update(piece);
    check.update(piece);
    eols.add(piece);
    out.total += static_cast<uint64_t>(n);
    out.marks.mark(out.total, hash);
    win.set_size(win.size() + static_cast<size_t>(n));
    if (first) {
      out.bom = text::has_bom(win.view());
      for (text::Finder& f : finders) f.skip_below(out.bom ? 3 : 0);
    }
    out.over = out.over || out.total > max_bytes;
    uint64_t keep = base + win.size();
    if (!out.over)
      for (text::Finder& f : finders) {
        f.scan(win.view(), base, lines_at_base, eof);
        keep = std::min(keep, f.keep_from());
      }
    const size_t drop = static_cast<size_t>(keep - base);
    std::memmove(win.data(), win.data() + drop, win.size() - drop);
    win.set_size(win.size() - drop);
    base = keep;
    // Every '\n' read so far (the tally counted them) less those in the few bytes kept.
    lines_at_base = eols.newlines() - text::newlines(win.view());
  }
  out.sha256 = hash.hex();
  out.check = check.digest();
  out.eol = eols.result();
  return out;
}

std::optional<contract::Error> diff_regions(int fd, const std::string& path,
                                            const std::vector<text::Found>& at,
                                            const std::string& old_raw, const std::string& new_raw,
                                            size_t context, text::DiffBuilder& diff) {
  std::vector<char> scratch(64 * 1024);
  std::optional<contract::Error> read_error;
  auto back = [&](uint64_t pos, size_t n) -> std::optional<std::pair<uint64_t, uint64_t>> {
    uint64_t end = pos, seen = 0;
    while (end > 0) {
      const uint64_t start = end - std::min<uint64_t>(end, scratch.size());
      long long got = os::pread_full(fd, scratch.data(), static_cast<size_t>(end - start), start);
      if (got < 0) {
        read_error = os::errno_error(static_cast<int>(-got), path, "read");
        return std::nullopt;
      }
      for (size_t i = static_cast<size_t>(got); i-- > 0;)
        if (scratch[i] == '\n' && ++seen == n) return std::pair(start + i + 1, seen - 1);
      if (static_cast<uint64_t>(got) < end - start) break;  // shrank meanwhile: pass 2 tells
      end = start;
    }
    return std::pair(uint64_t{0}, seen);
  };
  auto forward = [&](uint64_t pos, size_t n) -> std::optional<uint64_t> {
    size_t seen = 0;
    for (uint64_t from = pos;;) {
      long long got = os::pread_full(fd, scratch.data(), scratch.size(), from);
      if (got < 0) {
        read_error = os::errno_error(static_cast<int>(-got), path, "read");
        return std::nullopt;
      }
      for (size_t i = 0; i < static_cast<size_t>(got); ++i)
        if (scratch[i] == '\n' && ++seen == n) return from + i + 1;
      from += static_cast<uint64_t>(got);
      if (static_cast<size_t>(got) < scratch.size()) return from;
    }
  };
  const auto regions = text::regions(at, old_raw.size(), context, back, forward);
  if (!regions) return std::move(*read_error);

  const int64_t shift =
      static_cast<int64_t>(text::newlines(new_raw)) - static_cast<int64_t>(text::newlines(old_raw));
  int64_t delta = 0;  // lines the new file has more than the old before the region
  for (const text::Region& r : *regions) {
    mem::Bytes old_region;
    if (!old_region.reserve(static_cast<size_t>(r.end - r.start)))
      return os::errno_error(ENOMEM, path, "read");
    long long got =
        os::pread_full(fd, old_region.data(), static_cast<size_t>(r.end - r.start), r.start);
    if (got < 0) return os::errno_error(static_cast<int>(-got), path, "read");
    if (static_cast<uint64_t>(got) != r.end - r.start) return changed_meanwhile(path);
    old_region.set_size(static_cast<size_t>(got));
    std::string new_region;
    text::splice(old_region.view(), r.start, &at[r.first], r.last - r.first, old_raw.size(),
                 new_raw, new_region);
    diff.add(old_region.view(), new_region, r.line,
             static_cast<uint64_t>(static_cast<int64_t>(r.line) + delta));
    delta += shift * static_cast<int64_t>(r.last - r.first);
  }
  return std::nullopt;
}

os::Result<Rewritten> rewrite(int fd, const std::string& path, const Scanned& first,
                              const std::vector<text::Found>& at, size_t old_len,
                              std::string_view new_raw, os::TempFile* tmp) {
  const size_t window = static_cast<size_t>(std::min<uint64_t>(kWindow, first.total + 1));
  mem::Bytes win;
  if (!win.reserve(window)) return os::errno_error(ENOMEM, path, "read");
  Check check;
  uint64_t first_change = first.total;
  for (const text::Found& f : at) first_change = std::min(first_change, f.pos);
  RewriteSink sink(tmp, &first.marks, first_change);
  auto emit = [&](std::string_view piece) { sink(piece); };
  text::Splicer splicer(at, old_len, new_raw);
  uint64_t pos = 0;
  for (bool eof = false; !eof && !sink.error();) {
    long long n = os::pread_full(fd, win.data(), window, pos);
    if (n < 0) return os::errno_error(static_cast<int>(-n), path, "read");
    const std::string_view chunk(win.data(), static_cast<size_t>(n));
    eof = static_cast<size_t>(n) < window;
    check.update(chunk);
    splicer.feed(chunk, pos, emit);
    pos += static_cast<uint64_t>(n);
  }
  if (sink.error()) return std::move(*sink.error());
  if (!first.check || check.digest() != first.check || !splicer.done() || pos != first.total)
    return changed_meanwhile(path);
  return sink.result();
}

}  // namespace writer
