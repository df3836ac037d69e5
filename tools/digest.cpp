// digest.cpp — SHA-256 or SHA-512 of files, streamed: one record per file in argument order,
// each with the byte count, and an error record for a file that cannot be read while the
// others are still hashed. sha256sum and sha512sum in one tool; unlike them it answers in
// NDJSON with an end record, says *why* a file failed with a rule tag, checks an expected hash
// itself (--verify) instead of reading a checksum file, refuses FIFOs and devices rather than
// blocking on them, and with --root reaches nothing outside the root. `--format text` is
// sha256sum's layout byte for byte, including its escaping of names with \, \n or \r.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <variant>

#include "contract/main.h"
#include "os/hash.h"
#include "os/open.h"

namespace {

using contract::Json;

struct Args {
  std::vector<std::string> paths;
  std::string algo;
  std::optional<std::string> verify;
};

using contract::Kind;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "algo", .short_name = 'a', .kind = Kind::Choice, .bind = &Args::algo,
     .value_name = "ALGO", .fallback = "sha256", .choices = "sha256|sha512",
     .help = "the hash function: sha256 or sha512 (SHA-2, computed with the CPU's SHA "
             "instructions where it has them)"},
    {.name = "verify", .kind = Kind::Text, .bind = &Args::verify, .value_name = "HEX",
     .help = "the hash the one PATH must have (hex, either case; 64 digits for sha256, 128 for "
             "sha512); a different one is precondition.hash-failed after the file's record"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH", .role = contract::Role::PathRead, .min = 1, .max = contract::kMany,
     .bind = &Args::paths,
     .help = "the files to hash, in order; a file that cannot be read is an error record and "
             "the others are still hashed"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"args.bad-value", Repairable::Sometimes},
    {"args.conflict", Repairable::Never, "--verify was given with more than one PATH"},
    {"io.is-a-directory"},
    {"io.read-failed"},
    {"precondition.hash-failed"},
};

// The hex is lowercase and as long as its algo's digest (64 or 128 digits).
constexpr std::string_view kRecord =
    R"({"type":"object","required":["type","path","algo","hex","bytes"],)"
    R"("additionalProperties":false,"properties":{"type":{"const":"digest"},)"
    R"("path":{"$ref":"#/$defs/text_or_bytes"},"algo":{"enum":["sha256","sha512"]},)"
    R"("hex":{"type":"string"},"bytes":{"type":"integer","minimum":0}},)"
    R"("oneOf":[{"properties":{"algo":{"const":"sha256"},"hex":{"pattern":"^[0-9a-f]{64}$"}}},)"
    R"({"properties":{"algo":{"const":"sha512"},"hex":{"pattern":"^[0-9a-f]{128}$"}}}]})";

constexpr std::string_view kEnd =
    R"("files":{"type":"integer","minimum":0},"bytes":{"type":"integer","minimum":0},)"
    R"("errors":{"type":"integer","minimum":0})";

void render_text(const Json& rec, std::string& out, const contract::Drain&);

constexpr contract::Example kExamples[] = {
    {"digest src/main.c notes.txt",
     "one record per file: its SHA-256 (what --if-sha256 takes) and size"},
    {"digest --format text notes.txt",
     "sha256sum's line, for a checksum list"},
};

const contract::Tool kTool{
    .name = "digest",
    .summary = "Hash files with SHA-256 or SHA-512, streamed in bounded memory: one record per "
               "file with its hex digest and size, errors per file in order.",
    .differs = "Unlike sha256sum it answers in NDJSON ending with an end record, tags each failed "
               "file with a rule while still hashing the rest, checks an expected hash itself "
               "(--verify), refuses FIFOs and devices instead of blocking, and with --root "
               "follows no symbolic link. --format text is sha256sum's layout, escapes included.",
    .usage = "digest [--root DIR] [--algo sha256|sha512] [--verify HEX] [--format ndjson|text] "
             "PATH...",
    .output = contract::Output::Stream,
    .schema = "digest.v1",
    .data_schema = kRecord,
    .end_schema = kEnd,
    .text = render_text,
    .rules = kRules,
    .key_flags = "algo verify",
    .examples = kExamples,
};

static_assert(contract::valid<Args>(kFlags, kOperands));

size_t hex_digits(std::string_view algo) { return algo == "sha512" ? 128 : 64; }

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  if (!a.verify) return;
  if (a.paths.size() > 1) {
    contract::Error e = contract::make_error(
        "args.conflict", "--verify checks one file, but " + std::to_string(a.paths.size()) +
                             " PATHs were given.",
        Json::object({{"flags", Json::array({"--verify", "PATH"})}, {"paths", a.paths.size()}}));
    e.hint = "give --verify with exactly one PATH, or drop it to hash them all.";
    errs.push_back(std::move(e));
  }
  const std::string& v = *a.verify;
  size_t want = hex_digits(a.algo);
  bool hex = std::all_of(v.begin(), v.end(), is_hex);
  if (v.size() != want || !hex) {
    std::string why = !hex ? "is not hexadecimal"
                           : "is " + std::to_string(v.size()) + " characters long";
    contract::Error e = contract::make_error(
        "args.bad-value", "--verify " + why + "; a " + a.algo + " hash is " +
                              std::to_string(want) + " hex digits.",
        Json::object({{"flag", "verify"},
                      {"value", Json::bytes(v)},
                      {"expected", std::to_string(want) + " hex digits (" + a.algo + ")"},
                      {"length", v.size()}}));
    // A whole hash of the other algorithm: that algorithm is what was meant.
    std::string other = a.algo == "sha256" ? "sha512" : "sha256";
    if (hex && v.size() == hex_digits(other)) {
      e.hint = "that is the length of a " + other + " hash: retry with --algo " + other + ".";
      e.repair = contract::Repair::retry(ctx.argv_with_flag("algo", other));
    }
    errs.push_back(std::move(e));
  }
}

// One read buffer for the whole run: memory is this much whatever the files' sizes. 256 KiB
// measured fastest here (large enough that a syscall costs nothing next to hashing it, small
// enough to stay in L2 between read and hash).
constexpr size_t kChunk = 256 * 1024;

struct Hashed {
  std::string hex;
  uint64_t bytes = 0;
};

// Hashes the open file from its start. On failure, the errno of the read that failed.
std::variant<Hashed, int> hash_fd(int fd, os::Sha::Algo algo, char* buf) {
  os::Sha sha(algo);
  // The kernel's read-ahead doubles for a file read front to back.
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  Hashed h;
  for (;;) {
    ssize_t n = read(fd, buf, kChunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) break;
    sha.update(std::string_view(buf, static_cast<size_t>(n)));
    h.bytes += static_cast<uint64_t>(n);
  }
  h.hex = sha.hex();
  return h;
}

Json run(const Args& a, contract::Context& ctx) {
  const os::Sha::Algo algo = a.algo == "sha512" ? os::Sha::Algo::Sha512 : os::Sha::Algo::Sha256;
  auto buf = std::make_unique_for_overwrite<char[]>(kChunk);
  uint64_t files = 0, bytes = 0, errors = 0;
  auto fail = [&](contract::Error e) {
    ++errors;
    ctx.error(std::move(e));
  };
  for (const std::string& path : a.paths) {
    if (ctx.output_failed()) break;
    auto opened = os::open_read(ctx.root_fd(), path, os::Want::File, path);
    if (auto* e = std::get_if<contract::Error>(&opened)) {
      fail(std::move(*e));
      continue;
    }
    int fd = std::get<os::Opened>(opened).fd.get();
    auto result = hash_fd(fd, algo, buf.get());
    if (auto* err = std::get_if<int>(&result)) {
      contract::Error e = os::errno_error(*err, path, "read");
      e.detail.set("algo", a.algo);
      fail(std::move(e));
      continue;
    }
    const Hashed& h = std::get<Hashed>(result);
    ++files;
    bytes += h.bytes;
    ctx.record(Json::object({{"type", "digest"},
                             {"path", Json::bytes(path)},
                             {"algo", a.algo},
                             {"hex", h.hex},
                             {"bytes", h.bytes}}));
    if (a.verify && lower(*a.verify) != h.hex) {
      contract::Error e = contract::make_error(
          "precondition.hash-failed",
          "the " + a.algo + " of '" + contract::printable(path) + "' is not the one to verify.",
          Json::object({{"path", Json::bytes(path)},
                        {"algo", a.algo},
                        {"expected", lower(*a.verify)},
                        {"actual", h.hex},
                        {"bytes", h.bytes}}));
      e.repair = contract::Repair::none(
          "the file's content differs from the one the caller expected; which one is right is "
          "a judgement (detail.actual is the hash of what is there now)");
      fail(std::move(e));
    }
  }
  return Json::object({{"files", files}, {"bytes", bytes}, {"errors", errors}});
}

// sha256sum's line: "HEX  NAME\n". A name holding \, \n or \r is escaped (\\, \n, \r) and the
// line starts with a backslash, so every line stays one line and `sha256sum -c` reads it back.
void render_text(const Json& rec, std::string& out, const contract::Drain&) {
  const std::string& name = rec.get("path")->str();
  bool escape = name.find_first_of("\\\n\r") != std::string::npos;
  if (escape) out += '\\';
  out += rec.get("hex")->str();
  out += "  ";
  if (!escape) {
    out += name;
  } else {
    for (char c : name) {
      if (c == '\\')
        out += "\\\\";
      else if (c == '\n')
        out += "\\n";
      else if (c == '\r')
        out += "\\r";
      else
        out += c;
    }
  }
  out += '\n';
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
