// hash.h — SHA-256 and SHA-512: digest's answers, and for the tools that change files the
// precondition (--if-sha256), the content check (--content-sha256) and the before/after
// hashes they report. OpenSSL libcrypto's SHA-2 (the CPU's SHA instructions where there are
// some), streamed in fixed chunks so a file of any size is hashed in bounded memory.
// Lowercase hex everywhere.
//
// Only tools that link libcrypto may use this unit (CMakeLists.txt lists them); nothing else
// in src/ depends on it, so the rest of libtack links without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <string>
#include <string_view>

#include "os/open.h"

namespace os {

// An incremental SHA-256 or SHA-512, on libcrypto's SHA-2 block functions: the same
// assembly EVP dispatches to (SHA-NI, AVX2 or SSSE3 chosen from CPUID when the library
// loads), without EVP's provider set-up, which costs a process about 0.9 ms and 40 page faults
// before its first byte is hashed (bench/run.sh, startup). No configuration file, no
// environment: the answer never depends on the machine.
class Sha {
 public:
  enum class Algo { Sha256, Sha512 };
  explicit Sha(Algo algo = Algo::Sha256);
  Sha(const Sha&) = delete;
  Sha& operator=(const Sha&) = delete;
  void update(std::string_view bytes);
  std::string hex();  // finishes: 64 (SHA-256) or 128 (SHA-512) lowercase hex digits
  // Takes over `other`'s state: from here on the hash of the bytes `other` was given, and of
  // what follows (the contexts are plain data). A rewrite that keeps a file's first bytes
  // starts its hash where a snapshot of the file's own left off.
  void assign(const Sha& other);

 private:
  Algo algo_;
  alignas(16) unsigned char state_[224];  // SHA256_CTX or SHA512_CTX, kept out of this header
};

std::string sha256_hex(std::string_view bytes);

// The SHA-256 of bytes that stay where they are until it is taken: found on a thread of its
// own when there are enough of them to pay for starting one (os::later: the caller goes on
// with other work meanwhile, a second core hashing while the first diffs), else when taken.
std::future<std::string> sha256_later(std::string_view bytes);
// Bytes from which a thread of its own pays (starting and joining one costs 30-60 us; 256 KiB
// take about 130 us to hash here).
constexpr size_t kOwnThreadBytes = 256 * 1024;

struct Hashed {
  std::string hex;
  uint64_t bytes = 0;  // how many bytes were hashed
  bool kept = false;   // the bytes are in the caller's `keep` string
};

// The hash of a whole open file, read with pread from offset 0 in 256 KiB chunks (the fd's
// position is untouched). A failed read is io.read-failed naming `shown`. When `keep` is not
// null and the file is no larger than `keep_max`, its bytes are also left in *keep (kept:
// true), so a caller that needs both the hash and the content reads the file once; a larger
// file is only hashed, in bounded memory.
Result<Hashed> sha256_fd(int fd, std::string_view shown, std::string* keep = nullptr,
                         uint64_t keep_max = 0);

// 64 hex digits, either case.
bool is_sha256_hex(std::string_view text);
// The lowercase spelling of hex digits (other bytes unchanged).
std::string lower_hex(std::string_view text);

// precondition.hash-mismatch: `path` does not hash to --if-sha256 `expected` (lower-case hex);
// `actual` is its hash now. `done`: what did not happen ("written"; move: "moved"). `kind`:
// what the entry is, when it need not be a file (move names a link or directory so).
contract::Error hash_mismatch(std::string_view path, std::string_view expected,
                              std::string_view actual, std::string_view done = "written",
                              std::string_view kind = "");

}  // namespace os
