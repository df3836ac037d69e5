// kept.cpp — see kept.h.
#include "os/kept.h"

#include <simdjson.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "text/json_escape.h"

namespace os {

namespace {

// At most this much is taken in one piece: a read's bytes are still in the cache when they are
// checked and escaped.
constexpr size_t kPiece = 256 * 1024;

// The bytes at the end of p[0..n) that begin a UTF-8 sequence the end cuts short (0 to 3): they
// are checked with the bytes that follow them. (A byte that begins none is for the check to
// refuse: a cut sequence starts at a lead byte.)
size_t cut_sequence(const char* p, size_t n) {
  for (size_t back = 1; back <= std::min<size_t>(n, 3); ++back) {
    unsigned char c = static_cast<unsigned char>(p[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return len > back ? back : 0;
  }
  return 0;
}

}  // namespace

Kept::Kept(uint64_t cap) : cap_(cap), slack_(cap / 16 + 64 * 1024) {}

Kept::~Kept() {
  if (base_) munmap(base_, mapped_);
}

std::span<char> Kept::room(size_t want) {
  if (sealed_ || raw_ >= cap_ || map_failed_) return {};
  if (!base_) {
    // Mapped once for the most the cap and the escapes may take, and touched only as it fills,
    // so the peak is the bytes kept, never a reallocation's double.
    mapped_ = cap_ + slack_;
    void* m = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      map_failed_ = true;
      return {};
    }
    base_ = static_cast<char*>(m);
    // A large flood faults in 2 MiB at a time: measured here, 64 MiB touched in 4 KiB pages
    // cost 95-360 ms, in huge pages 10-16 ms (the clearing itself, most of what keeping costs).
    madvise(base_, mapped_, MADV_HUGEPAGE);
  }
  // The escapes so far stay within the slack, so the cap's rest always fits after them.
  return {base_ + stored_, static_cast<size_t>(std::min<uint64_t>({want, kPiece, cap_ - raw_}))};
}

void Kept::commit(size_t n) {
  if (n > 0) take(stored_, n);
}

bool Kept::add(const char* p, size_t n) {
  while (n > 0) {
    std::span<char> r = room(n);
    if (r.empty()) return false;
    std::memcpy(r.data(), p, r.size());
    commit(r.size());
    p += r.size();
    n -= r.size();
  }
  return true;
}

// The program's bytes base_[at..at+n) just arrived (at == stored_).
void Kept::take(size_t at, size_t n) {
  raw_ += n;
  if (!escaped_) {
    stored_ += n;
    if (valid_) check(at - unchecked_, stored_);
    return;
  }
  // A sequence cut at the end of the last piece is checked with this one. Its bytes (all 0x80
  // or above) need no escape, so they lie in memory as they came.
  const size_t from = at - unchecked_, end = at + n;
  const size_t cut = cut_sequence(base_ + from, end - from);
  if (!simdjson::validate_utf8(base_ + from, end - cut - from)) {
    to_raw(n, false);
    return;
  }
  unchecked_ = cut;
  escapes_.clear();
  size_t growth = text::json_escapes({base_ + at, n}, escapes_);
  if (stored_ + n + growth - raw_ > slack_) {
    to_raw(n, true);
    return;
  }
  if (growth) text::json_escape_in_place(base_ + at, n, escapes_, growth);
  stored_ += n + growth;
}

// From the escaped form to the program's bytes, in place; the n bytes after stored_ are raw
// already and move down to follow them.
void Kept::to_raw(size_t n, bool still_valid) {
  size_t before = text::json_unescape_in_place(base_, stored_);
  std::memmove(base_ + before, base_ + stored_, n);
  stored_ = before + n;
  escaped_ = false;
  valid_ = still_valid;
}

// Raw form: checks base_[from..to) but a sequence cut at its end.
void Kept::check(size_t from, size_t to) {
  unchecked_ = cut_sequence(base_ + from, to - from);
  if (!simdjson::validate_utf8(base_ + from, to - unchecked_ - from)) valid_ = false;
}

void Kept::seal() {
  if (sealed_) return;
  sealed_ = true;
  if (unchecked_ == 0 || !valid_) return;
  // The bytes end inside a sequence: not UTF-8.
  if (escaped_)
    to_raw(0, false);
  else
    valid_ = false;
}

std::string Kept::copy() const {
  std::string s(stored());
  if (escaped_) s.resize(text::json_unescape_in_place(s.data(), s.size()));
  return s;
}

}  // namespace os
