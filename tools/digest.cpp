// digest.cpp — SHA-256 or SHA-512 of files, streamed: one record per file in argument order,
// each with the byte count, and an error record for a file that cannot be read while the
// others are still hashed. sha256sum and sha512sum in one tool; unlike them it answers in
// NDJSON with an end record, says *why* a file failed with a rule tag, checks an expected hash
// itself (--verify) instead of reading a checksum file, refuses FIFOs and devices rather than
// blocking on them, and with --root reaches nothing outside the root. `--format text` is
// sha256sum's layout byte for byte, including its escaping of names with \, \n or \r.
// --check reads a sha256sum/sha512sum list as `sha256sum -c` does, but each name in it is a
// path confined like an operand, every entry is a record with its verdict, and a line that is
// not a checksum line is a tagged error naming its line number.
// Many files are hashed on one thread per core (tools/digest/pool.h), the records still in
// operand or list order; one file is hashed on the calling thread. The list's reading and
// verdicts are in tools/digest/check.cpp.
#include <algorithm>
#include <memory>
#include <vector>

#include "os/hash.h"
#include "runner/main.h"
#include "tools/digest.schema.h"
#include "tools/digest/check.h"
#include "tools/digest/pool.h"
#include "tools/render/render.h"

namespace {

using contract::Json;

struct Args {
  std::vector<std::string> paths;
  std::string algo;
  std::optional<std::string> verify;
  std::optional<std::string> check;
  uint64_t skip = 0, max_bytes = 0;
};

using contract::Kind;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "algo",
     .short_name = 'a',
     .kind = Kind::Choice,
     .bind = &Args::algo,
     .value_name = "ALGO",
     .fallback = "sha256",
     .choices = "sha256|sha512",
     .help = "the hash function: sha256 or sha512 (SHA-2, computed with the CPU's SHA "
             "instructions where it has them)"},
    {.name = "verify",
     .kind = Kind::Text,
     .bind = &Args::verify,
     .value_name = "HEX",
     .help = "the hash the one PATH must have (hex, either case; 64 digits for sha256, 128 for "
             "sha512); a different one is precondition.hash-failed after the file's record"},
    {.name = "check",
     .short_name = 'c',
     .kind = Kind::Path,
     .role = contract::Role::PathRead,
     .bind = &Args::check,
     .value_name = "SUMSFILE",
     .excludes = "verify",
     .help = "verify the files a sha256sum/sha512sum list names (paths under --root); no PATH"},
    {.name = "skip",
     .kind = Kind::Nat,
     .bind = &Args::skip,
     .value_name = "N",
     .fallback = "0",
     .help = "leave out the first N files (PATHs, or --check's lines), unread; the cursor "
             "from a truncated answer"},
    contract::max_bytes<Args>(),
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH",
     .role = contract::Role::PathRead,
     .min = 0,
     .max = contract::kMany,
     .bind = &Args::paths,
     .help = "the files to hash, in order; a file that cannot be read is an error record and "
             "the others are still hashed"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"args.bad-value", Repairable::Sometimes},
    {"args.conflict", Repairable::Never,
     "--verify with more than one PATH, or --check with --verify or a PATH"},
    {"args.missing-operand", Repairable::Never, "neither a PATH nor --check was given"},
    {"io.is-a-directory"},
    {"io.read-failed"},
    {"path.bad-name", Repairable::Never, "a name in the --check list holds a NUL byte"},
    {"parse.checksum-line", Repairable::Never,
     "a line of the --check list is not HEX, two spaces (or space and *), NAME"},
    {"precondition.hash-failed"},
    {"precondition.no-match", Repairable::Never, "the --check list holds no checksum line"},
};

// digest.schema.json: a hex is lowercase and as long as its algo's digest (the check records'
// constraints are beside their code, tools/digest/check.cpp).


constexpr contract::Example kExamples[] = {
    {"digest src/main.c notes.txt",
     "one record per file: its SHA-256 (what --if-sha256 takes) and size"},
    {"digest --check SHA256SUMS",
     "one record per entry with its verdict; the end record names the files that fail"},
};

const contract::Tool kTool{
    .name = "digest",
    .summary =
        "Hash files with SHA-256 or SHA-512, streamed in bounded memory: one record per "
        "file with its hex digest and size, errors per file in order; --check verifies "
        "a sha256sum list, one verdict per entry.",
    .differs =
        "Unlike sha256sum it answers in NDJSON ending with an end record, tags each failed "
        "file with a rule while still hashing the rest, checks an expected hash itself "
        "(--verify) or a list's (--check, names confined like PATHs), refuses FIFOs and "
        "devices instead of blocking, and with --root follows no symbolic link. --format "
        "text is sha256sum's layout, escapes included.",
    .usage =
        "digest [--root DIR] [--algo sha256|sha512] [--verify HEX] [--skip N] [--max-bytes N] "
        "[--format ndjson|text] "
        "(PATH... | --check SUMSFILE)",
    .output = contract::Output::Stream,
    .schema = "digest.v1",
    .data_schema = tool_schema::kRecords,
    .end_schema = tool_schema::kEnd,
    .cuts = "max-bytes",
    .text = render::digest,
    .rules = kRules,
    .key_flags = "algo verify check",
    .examples = kExamples,
    .mcp_flags = "check",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

size_t hex_digits(std::string_view algo) {
  return algo == "sha512" ? 128 : 64;
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  if (a.check && !a.paths.empty()) {
    contract::Error e = contract::make_error(
        "args.conflict", "--check reads the names from its list, but PATHs were given too.",
        Json::object({{"flags", Json::array({"--check", "PATH"})}, {"paths", a.paths.size()}}));
    e.hint = "give --check SUMSFILE alone, or the PATHs to hash without it.";
    errs.push_back(std::move(e));
  } else if (!a.check && a.paths.empty()) {
    contract::Error e = contract::make_error("args.missing-operand", "missing operand PATH.",
                                             Json::object({{"operand", "PATH"}}));
    e.hint = "name the files to hash, or give --check SUMSFILE to verify a list.";
    errs.push_back(std::move(e));
  }
  if (!a.verify) return;
  if (a.paths.size() > 1) {
    contract::Error e = contract::make_error(
        "args.conflict",
        "--verify checks one file, but " + std::to_string(a.paths.size()) + " PATHs were given.",
        Json::object({{"flags", Json::array({"--verify", "PATH"})}, {"paths", a.paths.size()}}));
    e.hint = "give --verify with exactly one PATH, or drop it to hash them all.";
    errs.push_back(std::move(e));
  }
  const std::string& v = *a.verify;
  size_t want = hex_digits(a.algo);
  bool hex = std::all_of(v.begin(), v.end(), digest::is_hex);
  if (v.size() != want || !hex) {
    std::string why =
        !hex ? "is not hexadecimal" : "is " + std::to_string(v.size()) + " characters long";
    contract::Error e = contract::make_error(
        "args.bad-value",
        "--verify " + why + "; a " + a.algo + " hash is " + std::to_string(want) + " hex digits.",
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

// The records in operand order, each file opened and hashed on a worker of the pool
// (tools/digest/pool.h); its record, and --verify's verdict, given out here in order.
struct Operands {
  const Args& a;
  contract::Context& ctx;
  uint64_t files = 0, bytes = 0, errors = 0;

  void fail(contract::Error e) {
    ++errors;
    ctx.error_streamed(std::move(e));  // any number of files may fail: only the first is kept
  }

  bool deliver(digest::Slot& s) {
    if (s.error) {
      if (s.read_failed) s.error->detail.set("algo", a.algo);
      fail(std::move(*s.error));
      return !ctx.output_failed();
    }
    const os::Hashed& h = s.hashed;
    ++files;
    bytes += h.bytes;
    Json rec = Json::object({{"type", "digest"},
                             {"path", Json::bytes(s.path)},
                             {"algo", a.algo},
                             {"hex", h.hex},
                             {"bytes", h.bytes}});
    if (s.link) rec.set("link", Json::object({{"target", Json::bytes(*s.link)}}));
    ctx.record(rec);
    if (a.verify && os::lower_hex(*a.verify) != h.hex) {
      const std::string& path = s.path;
      contract::Error e = contract::make_error(
          "precondition.hash-failed",
          "the " + a.algo + " of '" + contract::printable(path) + "' is not the one to verify.",
          Json::object({{"path", Json::bytes(path)},
                        {"algo", a.algo},
                        {"expected", os::lower_hex(*a.verify)},
                        {"actual", h.hex},
                        {"bytes", h.bytes}}));
      e.repair = contract::Repair::none(
          "the file's content differs from the one the caller expected; which one is right is "
          "a judgement (detail.actual is the hash of what is there now)");
      fail(std::move(e));
    }
    return !ctx.output_failed();
  }
};

Json run(const Args& a, contract::Context& ctx) {
  digest::Page page{.skip = a.skip, .max_bytes = a.max_bytes, .start = ctx.produced()};
  if (a.check) return digest::run_check(*a.check, a.algo, ctx.given("algo"), page, ctx);
  const os::Sha::Algo algo = a.algo == "sha512" ? os::Sha::Algo::Sha512 : os::Sha::Algo::Sha256;
  Operands out{a, ctx};
  // One operand is hashed on this thread: the pool's one worker is never started.
  std::vector<digest::Worker> workers(a.paths.size() == 1 ? 1 : digest::worker_count());
  const digest::Job job{.root_fd = ctx.root_fd(), .links = ctx.root_fd() < 0};
  digest::Pool pool(
      workers, [&](digest::Slot& s, digest::Worker& w) { digest::hash_slot(job, s, w); },
      [](digest::Slot&, digest::Nothing&) { return true; },
      [&](digest::Slot& s) { return page.room(ctx) && out.deliver(s); });
  for (size_t i = static_cast<size_t>(std::min<uint64_t>(a.skip, a.paths.size()));
       i < a.paths.size(); ++i) {
    const std::string& path = a.paths[i];
    if (pool.stopped() || ctx.output_failed()) break;
    auto s = std::make_unique<digest::Slot>();
    s->path = path;
    s->algo = algo;
    pool.push(std::move(s));
  }
  pool.finish();
  Json end = Json::object({{"files", out.files}, {"bytes", out.bytes}, {"errors", out.errors}});
  page.end(end, ctx);
  return end;
}

// sha256sum's line: "HEX  NAME\n". A name holding \, \n or \r is escaped (\\, \n, \r) and the
// line starts with a backslash, so every line stays one line and `sha256sum -c` reads it back.
// --check: sha256sum -c's "NAME: OK", "NAME: FAILED", "NAME: FAILED open or read"; a name
// holding \n or \r is escaped the same way (where sha256sum -c escapes only for \n).

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
