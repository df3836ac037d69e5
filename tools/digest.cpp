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
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <variant>

#include "os/hash.h"
#include "os/line_reader.h"
#include "os/link_target.h"
#include "os/open.h"
#include "os/path.h"
#include "runner/main.h"
#include "tools/digest.schema.h"

namespace {

using contract::Json;

struct Args {
  std::vector<std::string> paths;
  std::string algo;
  std::optional<std::string> verify;
  std::optional<std::string> check;
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
    {.name = "check", .short_name = 'c', .kind = Kind::Path, .role = contract::Role::PathRead,
     .bind = &Args::check, .value_name = "SUMSFILE", .excludes = "verify",
     .help = "verify the files a sha256sum/sha512sum list names (paths under --root); no PATH"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH", .role = contract::Role::PathRead, .min = 0, .max = contract::kMany,
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

// digest.schema.json: a hex is lowercase and as long as its algo's digest; a check record's
// actual and bytes are null when the file could not be read; failed names the first
// kFailedNamed paths whose verdict was not ok.
constexpr size_t kFailedNamed = 100;

void render_text(const Json& rec, std::string& out, const contract::Drain&);

constexpr contract::Example kExamples[] = {
    {"digest src/main.c notes.txt",
     "one record per file: its SHA-256 (what --if-sha256 takes) and size"},
    {"digest --check SHA256SUMS",
     "one record per entry with its verdict; the end record names the files that fail"},
};

const contract::Tool kTool{
    .name = "digest",
    .summary = "Hash files with SHA-256 or SHA-512, streamed in bounded memory: one record per "
               "file with its hex digest and size, errors per file in order; --check verifies "
               "a sha256sum list, one verdict per entry.",
    .differs = "Unlike sha256sum it answers in NDJSON ending with an end record, tags each failed "
               "file with a rule while still hashing the rest, checks an expected hash itself "
               "(--verify) or a list's (--check, names confined like PATHs), refuses FIFOs and "
               "devices instead of blocking, and with --root follows no symbolic link. --format "
               "text is sha256sum's layout, escapes included.",
    .usage = "digest [--root DIR] [--algo sha256|sha512] [--verify HEX] [--format ndjson|text] "
             "(PATH... | --check SUMSFILE)",
    .output = contract::Output::Stream,
    .schema = "digest.v1",
    .data_schema = tool_schema::kRecords,
    .end_schema = tool_schema::kEnd,
    .text = render_text,
    .rules = kRules,
    .key_flags = "algo verify check",
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

// --- --check ------------------------------------------------------------------------------

// Longer than any checksum line can be: 128 hex digits, the separator and a name of at most
// kPathMax bytes, each escaped to two. A longer line is measured, never held.
constexpr size_t kListLine = 4 + 128 + 2 * os::kPathMax + 64;

// One entry of a list: `HEX  NAME` or `HEX *NAME` (the binary-mode marker, which changes
// nothing here), optionally after blanks; a leading backslash marks a name written with
// sha256sum's escapes (\\, \n, \r).
struct ListEntry {
  std::string hex;  // lowercase
  std::string name;
};

// Why a line is not an entry (the `reason` in the error's detail), or null when it is one.
const char* parse_list_line(std::string_view s, ListEntry& out) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  bool escaped = i < s.size() && s[i] == '\\';
  if (escaped) ++i;
  size_t h = i;
  while (i < s.size() && is_hex(s[i])) ++i;
  size_t digits = i - h;
  bool whole = digits == 64 || digits == 128;
  if (i >= s.size() || s[i] != ' ') return whole && i == s.size() ? "separator" : "format";
  if (!whole) return digits == 0 ? "format" : "hex-length";
  if (i + 1 >= s.size() || (s[i + 1] != ' ' && s[i + 1] != '*')) return "separator";
  out.hex = lower(std::string(s.substr(h, digits)));
  std::string_view name = s.substr(i + 2);
  out.name.clear();
  if (!escaped) {
    out.name = name;
  } else {
    for (size_t k = 0; k < name.size(); ++k) {
      if (name[k] != '\\') {
        out.name += name[k];
        continue;
      }
      char c = k + 1 < name.size() ? name[++k] : '\0';
      if (c == '\\')
        out.name += '\\';
      else if (c == 'n')
        out.name += '\n';
      else if (c == 'r')
        out.name += '\r';
      else
        return "escape";
    }
  }
  if (out.name.empty()) return "empty-name";
  return nullptr;
}

std::string_view reason_text(std::string_view reason) {
  if (reason == "format") return "it does not start with a hex hash and a space";
  if (reason == "hex-length") return "its hash is neither 64 (sha256) nor 128 (sha512) digits";
  if (reason == "separator") return "the hash is not followed by two spaces or a space and *";
  if (reason == "escape") return "its escaped name holds a \\ that is not \\\\, \\n or \\r";
  if (reason == "empty-name") return "it names no file";
  if (reason == "algo") return "its hash is not as long as one of --algo's";
  return "it is longer than any checksum line can be";
}

Json run_check(const Args& a, contract::Context& ctx) {
  const std::string& list = *a.check;
  auto buf = std::make_unique_for_overwrite<char[]>(kChunk);
  uint64_t files = 0, bytes = 0, errors = 0, entries = 0, passed = 0, mismatched = 0,
           unreadable = 0, malformed = 0;
  Json failed = Json::array();
  // A list may hold any number of failing entries: each error is written, none kept.
  auto fail = [&](contract::Error e) {
    ++errors;
    ctx.error_streamed(std::move(e));
  };
  auto opened = os::open_read(ctx.root_fd(), list, os::Want::File, list);
  auto* open_error = std::get_if<contract::Error>(&opened);
  if (open_error) fail(std::move(*open_error));
  // Without the list, a reader of an empty file: nothing more is reported.
  os::LineReader reader(open_error ? -1 : std::get<os::Opened>(opened).fd.get(), kListLine);
  os::Line line;
  uint64_t number = 0;
  ListEntry entry;
  while (!open_error && !ctx.output_failed() && reader.next(line)) {
    ++number;
    std::string_view text = line.text;
    if (!line.too_long && text.ends_with('\r')) text.remove_suffix(1);
    // Blank lines and comments are skipped, as sha256sum -c skips them.
    if (!line.too_long && (text.empty() || text.front() == '#')) continue;
    const char* reason = line.too_long ? "too-long" : parse_list_line(text, entry);
    bool sha512 = !reason && entry.hex.size() == 128;
    if (!reason && ctx.given("algo") && (a.algo == "sha512") != sha512) reason = "algo";
    if (reason) {
      ++malformed;
      contract::Error e = contract::make_error(
          "parse.checksum-line",
          "line " + std::to_string(number) + " of '" + contract::printable(list) +
              "' is not a checksum line: " + std::string(reason_text(reason)) + ".",
          Json::object({{"path", Json::bytes(list)},
                        {"line", number},
                        {"reason", reason},
                        {"length", line.length}}));
      if (!line.too_long && text.size() <= 256) e.detail.set("text", Json::bytes(text));
      e.hint = std::string_view(reason) == "algo"
                   ? "drop --algo: the hash's length says which algorithm it is."
                   : "a checksum line is HEX, two spaces (or a space and *), NAME, as sha256sum "
                     "writes it.";
      fail(std::move(e));
      continue;
    }
    ++entries;
    const std::string algo = sha512 ? "sha512" : "sha256";
    Json rec = Json::object({{"type", "check"},
                             {"line", number},
                             {"path", Json::bytes(entry.name)},
                             {"algo", algo},
                             {"expected", entry.hex}});
    // The name is a path like an operand: checked lexically, then opened beneath the root.
    std::optional<contract::Error> err;
    Hashed h;
    auto c = os::check_path(ctx.root_abs(), entry.name);
    if (c.issue) {
      err = contract::make_error(c.issue->rule, c.issue->message,
                                 Json::object({{"path", Json::bytes(entry.name)}}));
      if (c.issue->replacement) err->detail.set("suggested", Json::bytes(*c.issue->replacement));
      err->hint = "the list names it so; a name in a list is a path relative to --root.";
    } else {
      auto file = os::open_read(ctx.root_fd(), c.path, os::Want::File, entry.name);
      if (auto* e = std::get_if<contract::Error>(&file)) {
        err = std::move(*e);
      } else {
        auto result = hash_fd(std::get<os::Opened>(file).fd.get(),
                              sha512 ? os::Sha::Algo::Sha512 : os::Sha::Algo::Sha256, buf.get());
        if (auto* no = std::get_if<int>(&result))
          err = os::errno_error(*no, entry.name, "read");
        else
          h = std::move(std::get<Hashed>(result));
      }
    }
    const char* verdict = err ? "error" : h.hex == entry.hex ? "ok" : "mismatch";
    rec.set("actual", err ? Json() : Json(h.hex));
    rec.set("bytes", err ? Json() : Json(h.bytes));
    rec.set("verdict", verdict);
    ctx.record(rec);
    if (!err) {
      ++files;
      bytes += h.bytes;
    }
    if (!err && h.hex == entry.hex) {
      ++passed;
      continue;
    }
    if (failed.items().size() < kFailedNamed) failed.push(Json::bytes(entry.name));
    if (err) {
      ++unreadable;
    } else {
      ++mismatched;
      err = contract::make_error("precondition.hash-failed",
                                 "the " + algo + " of '" + contract::printable(entry.name) +
                                     "' is not the one line " + std::to_string(number) +
                                     " of the list gives.",
                                 Json::object({{"path", Json::bytes(entry.name)},
                                               {"algo", algo},
                                               {"expected", entry.hex},
                                               {"actual", h.hex},
                                               {"bytes", h.bytes}}));
      err->repair = contract::Repair::none(
          "the file or the list changed since the list was written; which one is right is a "
          "judgement (detail.actual is the hash of what is there now)");
    }
    err->detail.set("line", number);
    err->detail.set("list", Json::bytes(list));
    fail(std::move(*err));
  }
  if (open_error) {
  } else if (reader.error() != 0) {
    contract::Error e = os::errno_error(reader.error(), list, "read");
    e.detail.set("lines", number);  // the lines read, and checked, before the read failed
    fail(std::move(e));
  } else if (entries == 0 && malformed == 0 && !ctx.output_failed()) {
    contract::Error e = contract::make_error(
        "precondition.no-match", "'" + contract::printable(list) + "' holds no checksum line.",
        Json::object({{"path", Json::bytes(list)}, {"lines", number}}));
    e.hint = "a list is what sha256sum or digest --format text writes: HEX  NAME per line.";
    fail(std::move(e));
  }
  return Json::object({{"files", files},
                       {"bytes", bytes},
                       {"errors", errors},
                       {"entries", entries},
                       {"passed", passed},
                       {"mismatched", mismatched},
                       {"unreadable", unreadable},
                       {"malformed", malformed},
                       {"failed", std::move(failed)}});
}

Json run(const Args& a, contract::Context& ctx) {
  if (a.check) return run_check(a, ctx);
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
    Json rec = Json::object({{"type", "digest"},
                             {"path", Json::bytes(path)},
                             {"algo", a.algo},
                             {"hex", h.hex},
                             {"bytes", h.bytes}});
    // Without --root the path was opened as given, links and all: say where a link led.
    if (ctx.root_fd() < 0)
      if (auto target = os::link_target(fd, path))
        rec.set("link", Json::object({{"target", Json::bytes(*target)}}));
    ctx.record(std::move(rec));
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
// --check: sha256sum -c's "NAME: OK", "NAME: FAILED", "NAME: FAILED open or read"; a name
// holding \n or \r is escaped the same way (where sha256sum -c escapes only for \n).
void render_text(const Json& rec, std::string& out, const contract::Drain&) {
  const std::string& name = rec.get("path")->str();
  const bool check = rec.get("type")->str() == "check";
  bool escape = name.find_first_of(check ? "\n\r" : "\\\n\r") != std::string::npos;
  if (escape) out += '\\';
  if (!check) {
    out += rec.get("hex")->str();
    out += "  ";
  }
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
  if (check) {
    const std::string& verdict = rec.get("verdict")->str();
    out += verdict == "ok" ? ": OK" : verdict == "mismatch" ? ": FAILED" : ": FAILED open or read";
  }
  out += '\n';
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
