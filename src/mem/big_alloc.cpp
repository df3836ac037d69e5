// big_alloc.cpp — large buffers in 2 MiB-aligned mappings advised into huge pages (see
// big_alloc.h), and the byte buffer grown in them.
#include "mem/big_alloc.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace mem {
namespace {
constexpr size_t kHugePage = 2 << 20;
size_t round_up(size_t n, size_t to) {
  return (n + to - 1) / to * to;
}
}  // namespace

void* big_alloc(size_t bytes) noexcept {
  if (bytes < kBigAlloc) return std::malloc(bytes ? bytes : 1);
  if (bytes > SIZE_MAX - 2 * kHugePage) return nullptr;
  const size_t len = round_up(bytes, kHugePage);
  // One huge page more than asked, then the unaligned ends cut off: the kernel can back only
  // whole 2 MiB-aligned ranges with huge pages.
  void* raw = mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto* base = static_cast<char*>(raw);
  auto* p = reinterpret_cast<char*>(round_up(reinterpret_cast<uintptr_t>(base), kHugePage));
  if (p > base) munmap(base, static_cast<size_t>(p - base));
  const size_t tail = static_cast<size_t>(base + len + kHugePage - (p + len));
  if (tail) munmap(p + len, tail);
  madvise(p, len, MADV_HUGEPAGE);
  return p;
}

void big_free(void* p, size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kBigAlloc)
    std::free(p);
  else
    munmap(p, round_up(bytes, kHugePage));
}

Bytes& Bytes::operator=(Bytes&& o) noexcept {
  if (this != &o) {
    release();
    p_ = std::exchange(o.p_, nullptr);
    size_ = std::exchange(o.size_, 0);
    cap_ = std::exchange(o.cap_, 0);
  }
  return *this;
}

bool Bytes::reserve(size_t n) {
  if (n <= cap_) return true;
  // Geometric growth for a stream of unknown length; a size known up front is asked once.
  size_t want = std::max(n, cap_ + cap_ / 2);
  if (want >= kBigAlloc) want = round_up(want, kHugePage);
  auto* q = static_cast<char*>(big_alloc(want));
  if (!q) return false;
  if (size_) std::memcpy(q, p_, size_);
  big_free(p_, cap_);
  p_ = q;
  cap_ = want;
  return true;
}

bool Bytes::append(std::string_view s) {
  if (s.size() > SIZE_MAX - size_ || !reserve(size_ + s.size())) return false;
  if (!s.empty()) std::memcpy(p_ + size_, s.data(), s.size());
  size_ += s.size();
  return true;
}

void Bytes::release() {
  big_free(p_, cap_);
  p_ = nullptr;
  size_ = cap_ = 0;
}

}  // namespace mem
