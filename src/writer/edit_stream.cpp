// edit_stream.cpp — see edit_stream.h.
#include "writer/edit_stream.h"

#include <cstring>

#include "mem/big_alloc.h"
#include "os/hash.h"
#include "text/diff.h"
#include "text/witness.h"

namespace writer {

namespace {

// A line that spans two windows is gathered up to this many bytes and hashed whole; a longer
// one is hashed as it is read back in pieces. Lines that long are rare, and reading one again
// costs less than holding it.
constexpr size_t kCarry = 256 * 1024;

// Reads fd from offset 0 to its end in windows of kWindow (or the file's size, when smaller):
// chunk(piece, pos) for each window, which answers whether lines are still wanted; while they
// are (and `lines` asked for them), line(hash, start) for each line, hashed as text::line_hash
// hashes it. The total read, or the read's error.
template <class Chunk, class Line>
os::Result<uint64_t> walk(int fd, const std::string& path, bool lines, Chunk&& chunk, Line&& line) {
  const size_t window = window_for(fd);
  mem::Bytes win;
  if (!win.reserve(window)) return os::errno_error(ENOMEM, path, "read");
  const auto read_back = [fd](char* buf, size_t len, uint64_t off) {
    return os::pread_full(fd, buf, len, off);
  };
  std::string carry;       // the part of a line read in earlier windows (at most kCarry bytes)
  uint64_t carry_len = 0;  // its length, counted past kCarry
  uint64_t start = 0;      // where the line being read starts
  auto finish = [&](std::string_view tail, uint64_t next) {
    uint64_t h;
    if (carry_len == 0) {
      h = text::line_hash(tail);
    } else if (carry_len + tail.size() <= kCarry) {
      carry.append(tail);
      h = text::line_hash(carry);
    } else {
      h = text::line_hash_read(read_back, start, carry_len + tail.size());
    }
    line(h, start);
    carry.clear();
    carry_len = 0;
    start = next;
  };
  uint64_t pos = 0;
  for (bool eof = false; !eof;) {
    const long long n = os::pread_full(fd, win.data(), window, pos);
    if (n < 0) return os::errno_error(static_cast<int>(-n), path, "read");
    const std::string_view piece(win.data(), static_cast<size_t>(n));
    eof = static_cast<size_t>(n) < window;
    lines = chunk(piece, pos) && lines;
    if (lines) {
      size_t i = 0;
      if (pos == 0 && text::has_bom(piece)) start = i = 3;  // line 1 starts after the BOM
      while (i < piece.size()) {
        const void* nl = std::memchr(piece.data() + i, '\n', piece.size() - i);
        if (!nl) {
          const size_t len = piece.size() - i;
          if (carry_len + len <= kCarry) carry.append(piece.substr(i));
          carry_len += len;
          break;
        }
        const size_t e = static_cast<size_t>(static_cast<const char*>(nl) - piece.data());
        finish(piece.substr(i, e - i), pos + e + 1);
        i = e + 1;
      }
    }
    pos += static_cast<uint64_t>(n);
  }
  if (lines && carry_len > 0) finish({}, pos);  // the last line, without '\n'
  return pos;
}

}  // namespace

os::Result<EditScan> scan_lines(int fd, const std::string& path, text::WitnessSearch& search,
                                uint64_t max_bytes) {
  os::Sha hash;
  Check check;
  text::EolTally eols;
  EditScan out;
  auto walked = walk(
      fd, path, true,
      [&](std::string_view piece, uint64_t pos) {
        hash.update(piece);
        check.update(piece);
        eols.add(piece);
        if (pos == 0) out.bom = text::has_bom(piece);
        out.total += piece.size();
        out.marks.mark(out.total, hash);
        out.over = out.over || out.total > max_bytes;
        return !out.over;
      },
      [&](uint64_t h, uint64_t start) { search.add(h, start); });
  if (auto* e = std::get_if<contract::Error>(&walked)) return std::move(*e);
  out.sha256 = hash.hex();
  out.check = check.digest();
  out.eol = eols.result();
  if (!out.over) search.end_first(out.total);
  return out;
}

os::Result<Rewritten> rewrite_lines(int fd, const std::string& path, const EditScan& first,
                                    text::WitnessSearch* search, const std::vector<text::Cut>* cuts,
                                    os::TempFile* tmp) {
  Check check;
  // Cuts come sorted by where they start: the new file is the old one up to the first.
  RewriteSink sink(tmp, &first.marks, cuts && !cuts->empty() ? cuts->front().start : first.total);
  auto emit = [&](std::string_view piece) { sink(piece); };
  std::optional<text::CutSplicer> splicer;
  if (cuts) splicer.emplace(*cuts);
  auto walked = walk(
      fd, path, search != nullptr,
      [&](std::string_view piece, uint64_t pos) {
        check.update(piece);
        if (splicer) splicer->feed(piece, pos, emit);
        return true;
      },
      [&](uint64_t h, uint64_t) { search->count(h); });
  if (auto* e = std::get_if<contract::Error>(&walked)) return std::move(*e);
  if (sink.error()) return std::move(*sink.error());
  if (!first.check || check.digest() != first.check || std::get<uint64_t>(walked) != first.total ||
      (splicer && !splicer->done()))
    return changed_meanwhile(path);
  return cuts ? sink.result() : Rewritten{};
}

}  // namespace writer
