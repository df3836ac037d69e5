// key_counter.cpp — see key_counter.h.
#include "text/key_counter.h"

#include <new>

namespace text {

size_t KeyCounter::insert(std::string_view key, uint64_t h, size_t slot) {
  if (size_ % kPerBlock == 0) blocks_of_entries_.emplace_back(new Entry[kPerBlock]);
  at(size_) = {store(key), static_cast<uint32_t>(key.size()), h, 0, 0};
  slots_[slot] = ((h >> 32) << 32) | ++size_;
  if (size_ * 2 > mask_ + 1) rehash();
  return size_ - 1;
}

// Zeroed slots from calloc: a large table comes as fresh zero pages, with no memset.
void KeyCounter::resize(size_t n) {
  auto* p = static_cast<uint64_t*>(std::calloc(n, sizeof(uint64_t)));
  if (!p) throw std::bad_alloc();
  slots_.reset(p);
  mask_ = n - 1;
}

void KeyCounter::rehash() {
  resize(2 * (mask_ + 1));
  constexpr size_t kAhead = 16;  // slots are written at random: fetch them ahead of time
  for (size_t k = 0; k < size_; ++k) {
    if (k + kAhead < size_) __builtin_prefetch(&slots_[at(k + kAhead).hash & mask_], 1);
    uint64_t h = at(k).hash;
    size_t i = h & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = ((h >> 32) << 32) | (k + 1);
  }
}

const char* KeyCounter::store(std::string_view key) {
  if (key.size() > kBlock / 4) {
    big_.emplace_back(new char[key.size()]);
    std::memcpy(big_.back().get(), key.data(), key.size());
    return big_.back().get();
  }
  if (blocks_.empty() || used_ + key.size() > kBlock) {
    blocks_.emplace_back(new char[kBlock]);
    used_ = 0;
  }
  char* p = blocks_.back().get() + used_;
  std::memcpy(p, key.data(), key.size());
  used_ += key.size();
  return p;
}

}  // namespace text
