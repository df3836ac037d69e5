// replace_stream.h — the passes of replace's one-edit case over a file that is never held
// whole. Pass 1 (scan) reads the file in windows: its hash, size, BOM, line-ending policy,
// and where the needles occur (each Finder). The changed regions (a few lines around each
// occurrence) are then read back and diffed (diff_regions). Pass 2 (rewrite) reads the file
// again, checks it is the same (see Check), and writes it with the occurrences replaced into
// the temporary file (or, in a dry run, only hashes what it would write): a writer that
// ignores tack's lock and changes the file in between makes the call fail rather than splice
// at offsets found in other bytes. Memory: one window, the occurrence lists, and the largest
// changed region (with its diff tables), whatever the size of the file.
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mem/big_alloc.h"
#include "os/dir_lock.h"
#include "os/hash.h"
#include "os/place.h"
#include "os/temp_file.h"
#include "os/whole_file.h"
#include "os/write_error.h"
#include "os/open.h"
#include "text/diff.h"
#include "text/eol.h"
#include "text/replace.h"

namespace writer {

inline constexpr size_t kWindow = 1 << 20;
// The window a streamed read of `fd` needs: kWindow, or the file's size and one byte when that
// is smaller (a whole window is a huge page to fault in, which a one-line file should not pay
// for). A file that grew since is still read whole: the window slides.
size_t window_for(int fd);

// The check that pass 2 reads the bytes pass 1 read: XXH3-128 of the whole file, not a third
// SHA-256 pass (measured: SHA-256 was 39% of a 10 MiB replace, three passes of it). What it
// guards against is a writer that ignores tack's lock changing the file between the passes,
// by accident, not one crafting a collision: such a writer can change the file after the call
// as well. The hashes reported and checked against --if-sha256 stay SHA-256.
class Check {
 public:
  Check() : state_(XXH3_createState()) {
    if (state_) XXH3_128bits_reset(state_);
  }
  Check(const Check&) = delete;
  Check& operator=(const Check&) = delete;
  ~Check() { XXH3_freeState(state_); }
  void update(std::string_view piece) {
    if (state_) XXH3_128bits_update(state_, piece.data(), piece.size());
  }
  // Two digests of one stream compare equal; without a state (no memory) there is none, so
  // the call refuses rather than trust an unchecked read.
  std::optional<std::pair<uint64_t, uint64_t>> digest() const {
    if (!state_) return std::nullopt;
    XXH128_hash_t h = XXH3_128bits_digest(state_);
    return std::pair(h.high64, h.low64);
  }

 private:
  XXH3_state_t* state_;
};

// Snapshots of a file's SHA-256 taken as pass 1 reads it, about every kMarkStep bytes. The new
// file is the old one up to its first change, so its hash resumes from the last snapshot
// before that change instead of hashing those bytes again (SHA-256 was a third of a replace in
// 100 MiB, two passes of it). Safe only because pass 2 still reads those bytes and Check
// finds them equal to what pass 1 hashed: otherwise the call fails and nothing is committed.
class ShaMarks {
 public:
  static constexpr uint64_t kMarkStep = 4 << 20;
  // The hash so far covers the file's first `offset` bytes.
  void mark(uint64_t offset, const os::Sha& sha) {
    if (offset < next_) return;
    marks_.emplace_back(offset, std::make_unique<os::Sha>());
    marks_.back().second->assign(sha);
    next_ = offset + kMarkStep;
  }
  // Sets `into` to the last snapshot at or below `limit` and answers its offset (0, leaving
  // `into` as it is, a fresh hash, when there is none).
  uint64_t resume(uint64_t limit, os::Sha& into) const {
    for (size_t i = marks_.size(); i-- > 0;)
      if (marks_[i].first <= limit) {
        into.assign(*marks_[i].second);
        return marks_[i].first;
      }
    return 0;
  }

 private:
  std::vector<std::pair<uint64_t, std::unique_ptr<os::Sha>>> marks_;
  uint64_t next_ = kMarkStep;
};

// io.read-failed: the file read other bytes on a second look: a writer that does not take
// tack's lock changed it meanwhile. Refused rather than splice at offsets found in others.
contract::Error changed_meanwhile(const std::string& path);

// Pass 1: what the file held. Past max_bytes (over) nothing more is matched; the file is still
// read to its end, for the size the error names.
struct Scanned {
  std::string sha256;
  std::optional<std::pair<uint64_t, uint64_t>> check;  // Check's digest
  ShaMarks marks;
  uint64_t total = 0;
  bool bom = false, over = false;
  text::Eol eol = text::Eol::None;
};
os::Result<Scanned> scan(int fd, const std::string& path, std::vector<text::Finder>& finders,
                         uint64_t max_bytes);

// The diff of the changed regions (text::regions, `context` lines) of the old_raw occurrences
// `at`, each read back from the file and its occurrences replaced by new_raw, added to `diff`.
std::optional<contract::Error> diff_regions(int fd, const std::string& path,
                                            const std::vector<text::Found>& at,
                                            const std::string& old_raw, const std::string& new_raw,
                                            size_t context, text::DiffBuilder& diff);

// Pass 2: the file with the occurrences replaced, written to tmp (none: a dry run). The bytes
// read must be those pass 1 read (`first`), else changed_meanwhile.
struct Rewritten {
  std::string sha256;
  uint64_t size = 0;
  text::Eol eol = text::Eol::None;
  bool bom = false;
};

// The new bytes of a streamed rewrite as they are made: hashed, their line endings and BOM
// noted, written to the temporary file (none for a dry run); the first write error stops the
// writing and is kept.
class RewriteSink {
 public:
  // `marks`, `first_change`: the new bytes are the old file's up to `first_change`, whose
  // hash pass 1 took (ShaMarks): hashing starts at the last snapshot before it.
  explicit RewriteSink(os::TempFile* tmp, const ShaMarks* marks = nullptr,
                       uint64_t first_change = 0)
      : tmp_(tmp), hashed_from_(marks ? marks->resume(first_change, hash_) : 0) {}
  void operator()(std::string_view piece) {
    hash_part(piece);
    write_part(piece);
  }
  // operator()'s two halves, which may run on two threads at once, each given every piece in
  // order: the new bytes' hash, line endings and BOM; their count and the temporary file.
  void hash_part(std::string_view piece) {
    if (hashed_ >= hashed_from_)
      hash_.update(piece);
    else if (hashed_ + piece.size() > hashed_from_)
      hash_.update(piece.substr(static_cast<size_t>(hashed_from_ - hashed_)));
    eols_.add(piece);
    if (head_.size() < 3) head_ += piece.substr(0, 3 - head_.size());
    hashed_ += piece.size();
  }
  void write_part(std::string_view piece) {
    if (piece.empty() || error_) return;
    out_.size += piece.size();
    if (tmp_) error_ = tmp_->write(piece);
  }
  std::optional<contract::Error>& error() { return error_; }
  // What was written, once it is all there.
  Rewritten result() {
    out_.sha256 = hash_.hex();
    out_.eol = eols_.result();
    out_.bom = text::has_bom(head_);
    return out_;
  }

 private:
  os::TempFile* tmp_;
  os::Sha hash_;
  uint64_t hashed_from_;  // the new bytes before this offset are in hash_ already
  uint64_t hashed_ = 0;   // the new bytes hash_part() has been given
  text::EolTally eols_;
  std::string head_;  // the first bytes written: whether the new file has a BOM
  Rewritten out_;
  std::optional<contract::Error> error_;
};
os::Result<Rewritten> rewrite(int fd, const std::string& path, const Scanned& first,
                              const std::vector<text::Found>& at, size_t old_len,
                              std::string_view new_raw, os::TempFile* tmp);

}  // namespace writer
