// hash.cpp — streamed SHA-256 through OpenSSL EVP (see hash.h).
#include "os/hash.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include <cerrno>
#include <vector>

namespace os {
namespace {

EVP_MD_CTX* fresh_ctx() {
  // Once per process; no openssl.cnf, no OPENSSL_CONF: nothing outside argv decides anything.
  static const bool inited =
      OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT, nullptr) == 1;
  (void)inited;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx) EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  return ctx;
}

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

Sha256::Sha256() : ctx_(fresh_ctx()) {}

Sha256::~Sha256() {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_));
}

void Sha256::update(std::string_view bytes) {
  if (ctx_ && !bytes.empty())
    EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size());
}

std::string Sha256::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  // An allocation failure in OpenSSL is the only way here; an empty string then compares
  // unequal to every hash the caller could give, so nothing is written on its strength.
  if (!ctx_ || EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len) != 1) return "";
  return to_hex(md, len);
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

Result<Hashed> sha256_fd(int fd, std::string_view shown, std::string* keep, uint64_t keep_max) {
  constexpr size_t kChunk = 256 * 1024;
  Sha256 h;
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
  std::vector<char> buf;  // only once the content is not kept
  while (true) {
    char* dst;
    if (keeping) {
      keep->resize(static_cast<size_t>(at) + kChunk);
      dst = keep->data() + at;
    } else {
      if (buf.empty()) buf.resize(kChunk);
      dst = buf.data();
    }
    long long n = pread_full(fd, dst, kChunk, at);
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
    if (static_cast<size_t>(n) < kChunk) break;
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
                              std::string_view actual) {
  contract::Error e = contract::make_error(
      "precondition.hash-mismatch",
      "'" + contract::printable(path) + "' does not hash to --if-sha256; nothing was written.",
      contract::Json::object({{"path", contract::Json::bytes(path)},
                              {"expected", expected},
                              {"actual_sha256", actual}}));
  e.repair = contract::Repair::none(
      "the file changed since it was read: read it again (actual_sha256 is its hash now) and "
      "decide");
  return e;
}

}  // namespace os
