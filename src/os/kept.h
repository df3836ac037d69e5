// kept.h — what run keeps of one of a program's output streams, up to a cap, made ready for
// the answer while the program still runs.
//
// The answer holds the bytes as a JSON string when they are UTF-8, else as base64; it can only
// be written once the program has ended (its status comes first). So the work is done as the
// bytes arrive, overlapping the program's own: each read lands in the kept memory itself (no
// read buffer to copy from), is checked as UTF-8 while it is still in the cache
// (simdjson::validate_utf8, a sequence cut by a read carried to the next), and is escaped in
// place. At the end the string's contents lie ready in memory that is never changed again, to be
// handed on whole (contract::Drain::stable: a pipe takes its pages without a copy).
//
// Memory is bounded by the cap: escapes may add at most a sixteenth of it (and 64 KiB). Bytes
// that escape more than that, or that are not UTF-8, are turned back into the program's own bytes
// in place and kept as such: they are then escaped, or base64-encoded, as the answer is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace os {

class Kept {
 public:
  explicit Kept(uint64_t cap);
  Kept(const Kept&) = delete;
  Kept& operator=(const Kept&) = delete;
  ~Kept();

  // Where the next read may put its bytes: up to `want` of them, never past the cap. Empty when
  // the cap is reached or the memory could not be mapped.
  std::span<char> room(size_t want);
  // The first n bytes of the last room() hold what the program wrote.
  void commit(size_t n);
  // room() and commit() for bytes that are elsewhere; false when not all of them fit.
  bool add(const char* p, size_t n);
  // No more bytes come: a sequence left cut at the end is not UTF-8. Later calls do nothing.
  void seal();

  uint64_t size() const { return raw_; }  // the program's bytes kept
  // Once sealed: whether the bytes kept are UTF-8.
  bool utf8() const { return valid_; }
  // What memory holds: the JSON string's contents (escaped) when escaped(), else the program's
  // bytes as they came (not UTF-8, or too many escapes: escaped or encoded as they are written).
  // Never changed again once sealed.
  bool escaped() const { return escaped_; }
  std::string_view stored() const { return {base_ ? base_ : "", stored_}; }
  // The program's bytes whatever the form (a copy: tests).
  std::string copy() const;

 private:
  void take(size_t at, size_t n);
  void to_raw(size_t n, bool still_valid);
  void check(size_t from, size_t to);

  uint64_t cap_, slack_;
  char* base_ = nullptr;
  size_t mapped_ = 0;
  bool map_failed_ = false;
  size_t stored_ = 0;     // bytes in memory: escaped (escaped_) or the program's own
  uint64_t raw_ = 0;      // the program's bytes kept
  bool escaped_ = true;   // the memory holds the escaped form
  bool valid_ = true;     // UTF-8 so far
  size_t unchecked_ = 0;  // a sequence cut at the end of the memory, not yet checked
  bool sealed_ = false;
  std::vector<uint32_t> escapes_;  // where the last piece needs escapes (reused)
};

}  // namespace os
