// key_counter.h — distinct keys and their counts in memory set by the keys, not the input:
// tally's table.
#pragma once

#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace text {

// Distinct keys and their counts: open addressing with linear probing over 8-byte slots (the
// hash's high half beside the entry index, so a probe rarely touches an entry that is not the
// one), entries in insertion order in fixed blocks and key bytes in an arena of fixed blocks,
// neither of which ever moves: growing costs a rehash of the slots, never a copy of the rest.
// Lookups come in batches: the slot, then the entry, then the key of each are prefetched
// before any is compared, so the cache misses of a batch overlap instead of queueing.
class KeyCounter {
 public:
  struct Entry {
    const char* key;
    uint32_t len;
    uint64_t hash;
    uint64_t count;
    uint64_t pending;  // free for the caller (tally: counted this file under its CRLF policy)
  };

  KeyCounter() { resize(1024); }

  static uint64_t hash(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }
  // Stage 0, 1, 2 of a lookup's prefetch: its first slot, that slot's entry, the entry's key.
  void prefetch(uint64_t h, int stage) const {
    if (stage == 0) return __builtin_prefetch(&slots_[h & mask_]);
    uint64_t s = slots_[h & mask_];
    if (s == 0) return;
    const Entry& e = at((s & 0xffffffffu) - 1);
    if (stage == 1) return __builtin_prefetch(&e);
    __builtin_prefetch(e.key);
  }

  // The entry of `key` (whose hash is h), or npos when it is new and `grow` is false. A new
  // key has count 0.
  static constexpr size_t npos = SIZE_MAX;
  size_t find(std::string_view key, uint64_t h, bool grow) {
    uint64_t tag = h >> 32;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      uint64_t s = slots_[i];
      if (s == 0) {
        if (!grow) return npos;
        return insert(key, h, i);
      }
      if ((s >> 32) == tag) {
        const Entry& e = at((s & 0xffffffffu) - 1);
        if (e.hash == h && e.len == key.size() && std::memcmp(e.key, key.data(), key.size()) == 0)
          return (s & 0xffffffffu) - 1;
      }
    }
  }
  Entry& at(size_t i) { return blocks_of_entries_[i / kPerBlock][i % kPerBlock]; }
  const Entry& at(size_t i) const { return blocks_of_entries_[i / kPerBlock][i % kPerBlock]; }
  size_t size() const { return size_; }  // entries, including those whose count fell to 0

 private:
  size_t insert(std::string_view key, uint64_t h, size_t slot);
  // Zeroed slots from calloc: a large table comes as fresh zero pages, with no memset.
  void resize(size_t n);
  void rehash();
  const char* store(std::string_view key);
  static constexpr size_t kBlock = 256 * 1024;
  struct Free {
    void operator()(uint64_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint64_t[], Free> slots_;
  size_t mask_ = 0;
  static constexpr size_t kPerBlock = 16384;
  std::vector<std::unique_ptr<Entry[]>> blocks_of_entries_;
  size_t size_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_, big_;
  size_t used_ = 0;
};

}  // namespace text
