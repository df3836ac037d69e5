// big_alloc.h — memory for large buffers: whole files the writers hold (write's content and
// the file it replaces) and the diff's tables. The bottom of the layers: it includes nothing
// of tack's, so text/ and os/ both stand on it.
//
// Where tack runs under a hypervisor the first touch of every fresh 4 KiB page is most of
// what such a call costs: measured on this project's KVM guest, 8 MiB touched page by page
// cost 24-40 ms of CPU, the same 8 MiB in 2 MiB transparent huge pages 0.8 ms (a 1 MiB write
// touched 1300 fresh pages, about 20 ms of its 40). So a large buffer is an anonymous mapping
// of its own, 2 MiB-aligned and advised MADV_HUGEPAGE, given back whole when freed. The
// advice is a hint: where THP is off it is ordinary pages, as malloc would have given.
// Below kBigAlloc bytes, malloc: a huge page would cost more than the pages it saves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

namespace mem {

inline constexpr size_t kBigAlloc = 256 * 1024;
void* big_alloc(size_t bytes) noexcept;  // nullptr when the memory is not there
void big_free(void* p, size_t bytes) noexcept;

template <class T>
struct BigAllocator {
  using value_type = T;
  BigAllocator() = default;
  template <class U>
  BigAllocator(const BigAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    void* p = big_alloc(n * sizeof(T));
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept { big_free(p, n * sizeof(T)); }
  friend bool operator==(const BigAllocator&, const BigAllocator&) { return true; }
};
template <class T>
using BigVector = std::vector<T, BigAllocator<T>>;

// Bytes in a big_alloc buffer that is never zero-filled: read() writes straight into it.
class Bytes {
 public:
  Bytes() = default;
  Bytes(Bytes&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        cap_(std::exchange(o.cap_, 0)) {}
  Bytes& operator=(Bytes&& o) noexcept;
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  ~Bytes() { release(); }

  char* data() { return p_; }
  const char* data() const { return p_; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {p_, size_}; }
  // At least n bytes of room, the contents kept; false when the memory is not there.
  bool reserve(size_t n);
  // The first n bytes (n <= capacity) are the contents: the caller has written them.
  void set_size(size_t n) { size_ = n; }
  bool append(std::string_view s);
  void release();

 private:
  char* p_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

}  // namespace mem
