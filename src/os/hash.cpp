// hash.cpp — streamed SHA-256/512 on libcrypto's SHA-2 functions (see hash.h).
#include "os/hash.h"

#include <algorithm>

// SHA256_Init and its kin are marked deprecated in OpenSSL 3 in favour of EVP; they remain
// its public API, on the same assembly, and are used here for EVP's set-up cost (hash.h).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "os/later.h"

namespace os {
namespace {

static_assert(sizeof(SHA256_CTX) <= 224 && sizeof(SHA512_CTX) <= 224);

std::string to_hex(const unsigned char* md, unsigned len) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned i = 0; i < len; ++i) {
    out += kDigits[md[i] >> 4];
    out += kDigits[md[i] & 15];
  }
  return out;
}

}  // namespace

Sha::Sha(Algo algo) : algo_(algo) {
  if (algo_ == Algo::Sha512)
    SHA512_Init(reinterpret_cast<SHA512_CTX*>(state_));
  else
    SHA256_Init(reinterpret_cast<SHA256_CTX*>(state_));
}

void Sha::update(std::string_view bytes) {
  if (bytes.empty()) return;
  if (algo_ == Algo::Sha512)
    SHA512_Update(reinterpret_cast<SHA512_CTX*>(state_), bytes.data(), bytes.size());
  else
    SHA256_Update(reinterpret_cast<SHA256_CTX*>(state_), bytes.data(), bytes.size());
}

void Sha::assign(const Sha& other) {
  algo_ = other.algo_;
  std::memcpy(state_, other.state_, sizeof state_);
}

std::string Sha::hex() {
  unsigned char md[SHA512_DIGEST_LENGTH];
  if (algo_ == Algo::Sha512) {
    SHA512_Final(md, reinterpret_cast<SHA512_CTX*>(state_));
    return to_hex(md, SHA512_DIGEST_LENGTH);
  }
  SHA256_Final(md, reinterpret_cast<SHA256_CTX*>(state_));
  return to_hex(md, SHA256_DIGEST_LENGTH);
}

std::string sha256_hex(std::string_view bytes) {
  Sha h;
  h.update(bytes);
  return h.hex();
}

std::future<std::string> sha256_later(std::string_view bytes) {
  return later(bytes.size() >= kOwnThreadBytes, [bytes] { return sha256_hex(bytes); });
}

Result<Hashed> sha256_fd(int fd, std::string_view shown, std::string* keep, uint64_t keep_max) {
  constexpr size_t kChunk = 256 * 1024;
  Sha h;
  uint64_t at = 0;
  bool keeping = keep != nullptr;
  if (keep) {
    keep->clear();
    // Read straight into the caller's string, sized once from fstat (a file may still grow or
    // shrink while it is read: the size is only a hint): no second buffer, no copy.
    struct stat st {};
    if (fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) <= keep_max)
      keep->reserve(static_cast<size_t>(st.st_size) + 1);
  }
  std::unique_ptr<char[]> buf;  // only once the content is not kept; never zero-filled
  while (true) {
    char* dst;
    // What is read at a time: a chunk, or while keeping, what the string already holds room
    // for (the size fstat gave, and one byte to see the end): resize() zero-fills what it
    // adds, and a 42-byte file should not pay for clearing 256 KiB.
    size_t want = kChunk;
    if (keeping) {
      if (keep->capacity() > at) want = std::min(kChunk, keep->capacity() - static_cast<size_t>(at));
      keep->resize(static_cast<size_t>(at) + want);
      dst = keep->data() + at;
    } else {
      if (!buf) buf = std::make_unique_for_overwrite<char[]>(kChunk);
      dst = buf.get();
    }
    long long n = pread_full(fd, dst, want, at);
    if (n < 0) {
      if (keep) keep->clear();
      return errno_error(static_cast<int>(-n), shown, "read");
    }
    h.update(std::string_view(dst, static_cast<size_t>(n)));
    at += static_cast<uint64_t>(n);
    if (keeping) {
      keep->resize(static_cast<size_t>(at));
      if (at > keep_max) {
        keeping = false;
        std::string().swap(*keep);
      }
    }
    if (static_cast<size_t>(n) < want) break;
  }
  return Hashed{h.hex(), at, keeping};
}

bool is_sha256_hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

std::string lower_hex(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

contract::Error hash_mismatch(std::string_view path, std::string_view expected,
                              std::string_view actual, std::string_view done,
                              std::string_view kind) {
  using contract::Json;
  Json detail = Json::object({{"path", Json::bytes(path)}});
  if (!kind.empty()) detail.set("kind", kind);
  detail.set("expected", expected);
  detail.set("actual_sha256", actual);
  contract::Error e = contract::make_error(
      "precondition.hash-mismatch",
      "'" + contract::printable(path) + "' does not hash to --if-sha256; nothing was " +
          std::string(done) + ".",
      std::move(detail));
  e.repair = contract::Repair::none(
      std::string(kind.empty() ? "the file" : "it") +
      " changed since it was read: read it again (actual_sha256 is its hash now) and decide");
  return e;
}

}  // namespace os
