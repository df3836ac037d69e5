// check.cpp — see check.h. The list is read on the main thread; each entry is a slot of the
// pool, so its file is opened and hashed on a worker while the records (and errors) come out
// in the list's order. A line that is not an entry, and a name refused before anything is
// opened, is a slot without work, holding its error.
#include "tools/digest/check.h"

#include <memory>
#include <optional>
#include <vector>

#include "os/line_reader.h"
#include "os/open.h"
#include "os/path.h"
#include "tools/digest/pool.h"

namespace digest {

using contract::Json;

namespace {

// digest.schema.json: a check record's actual and bytes are null when the file could not be
// read; failed names the first kFailedNamed paths whose verdict was not ok.
constexpr size_t kFailedNamed = 100;

// Longer than any checksum line can be: 128 hex digits, the separator and a name of at most
// kPathMax bytes, each escaped to two. A longer line is measured, never held.
constexpr size_t kListLine = 4 + 128 + 2 * os::kPathMax + 64;

std::string_view reason_text(std::string_view reason) {
  if (reason == "format") return "it does not start with a hex hash and a space";
  if (reason == "hex-length") return "its hash is neither 64 (sha256) nor 128 (sha512) digits";
  if (reason == "separator") return "the hash is not followed by two spaces or a space and *";
  if (reason == "escape") return "its escaped name holds a \\ that is not \\\\, \\n or \\r";
  if (reason == "empty-name") return "it names no file";
  if (reason == "algo") return "its hash is not as long as one of --algo's";
  return "it is longer than any checksum line can be";
}

// The end record's counts, kept as the records go out.
struct Counts {
  uint64_t files = 0, bytes = 0, errors = 0, entries = 0, passed = 0, mismatched = 0,
           unreadable = 0, malformed = 0;
  Json failed = Json::array();
};

// A slot's record and error, on the main thread in the list's order. False: stop (the output
// failed).
bool deliver(Slot& s, const std::string& list, Counts& n, contract::Context& ctx) {
  auto fail = [&](contract::Error e) {
    ++n.errors;
    ctx.error_streamed(std::move(e));  // a list may hold any number of failures: none kept
  };
  if (s.expected.empty()) {  // a line that is not an entry: its error alone
    ++n.malformed;
    fail(std::move(*s.error));
    return !ctx.output_failed();
  }
  ++n.entries;
  const std::string algo = s.algo == os::Sha::Algo::Sha512 ? "sha512" : "sha256";
  const os::Hashed& h = s.hashed;
  std::optional<contract::Error>& err = s.error;
  Json rec = Json::object({{"type", "check"},
                           {"line", s.line},
                           {"path", Json::bytes(s.path)},
                           {"algo", algo},
                           {"expected", s.expected}});
  const char* verdict = err ? "error" : h.hex == s.expected ? "ok" : "mismatch";
  rec.set("actual", err ? Json() : Json(h.hex));
  rec.set("bytes", err ? Json() : Json(h.bytes));
  rec.set("verdict", verdict);
  ctx.record(rec);
  if (!err) {
    ++n.files;
    n.bytes += h.bytes;
  }
  if (!err && h.hex == s.expected) {
    ++n.passed;
    return !ctx.output_failed();
  }
  if (n.failed.items().size() < kFailedNamed) n.failed.push(Json::bytes(s.path));
  if (err) {
    ++n.unreadable;
  } else {
    ++n.mismatched;
    err = contract::make_error("precondition.hash-failed",
                               "the " + algo + " of '" + contract::printable(s.path) +
                                   "' is not the one line " + std::to_string(s.line) +
                                   " of the list gives.",
                               Json::object({{"path", Json::bytes(s.path)},
                                             {"algo", algo},
                                             {"expected", s.expected},
                                             {"actual", h.hex},
                                             {"bytes", h.bytes}}));
    err->repair = contract::Repair::none(
        "the file or the list changed since the list was written; which one is right is a "
        "judgement (detail.actual is the hash of what is there now)");
  }
  err->detail.set("line", s.line);
  err->detail.set("list", Json::bytes(list));
  fail(std::move(*err));
  return !ctx.output_failed();
}

}  // namespace

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
  out.hex = os::lower_hex(s.substr(h, digits));
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

Json run_check(const std::string& list, const std::string& algo, bool algo_given, Page& page,
               contract::Context& ctx) {
  Counts n;
  auto opened = os::open_read(ctx.root_fd(), list, os::Want::File, list);
  auto* open_error = std::get_if<contract::Error>(&opened);
  if (open_error) {
    ++n.errors;
    ctx.error_streamed(std::move(*open_error));
  }
  // Without the list, a reader of an empty file: nothing more is reported.
  os::LineReader reader(open_error ? -1 : std::get<os::Opened>(opened).fd.get(), kListLine);
  std::vector<Worker> workers(worker_count());
  const Job job{.root_fd = ctx.root_fd()};
  Pool pool(
      workers, [&](Slot& s, Worker& w) { hash_slot(job, s, w); },
      [](Slot&, Nothing&) { return true; },
      [&](Slot& s) { return page.room(ctx) && deliver(s, list, n, ctx); });
  uint64_t inputs = 0;  // entries and malformed lines, each one record: what --skip counts
  os::Line line;
  uint64_t number = 0;
  ListEntry entry;
  while (!open_error && !pool.stopped() && !ctx.output_failed() && reader.next(line)) {
    ++number;
    std::string_view text = line.text;
    if (!line.too_long && text.ends_with('\r')) text.remove_suffix(1);
    // Blank lines and comments are skipped, as sha256sum -c skips them.
    if (!line.too_long && (text.empty() || text.front() == '#')) continue;
    const char* reason = line.too_long ? "too-long" : parse_list_line(text, entry);
    bool sha512 = !reason && entry.hex.size() == 128;
    if (!reason && algo_given && (algo == "sha512") != sha512) reason = "algo";
    if (inputs++ < page.skip) continue;
    auto s = std::make_unique<Slot>();
    s->line = number;
    if (reason) {
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
      s->work = false;
      s->error = std::move(e);
      pool.push(std::move(s));
      continue;
    }
    s->algo = sha512 ? os::Sha::Algo::Sha512 : os::Sha::Algo::Sha256;
    s->expected = std::move(entry.hex);
    s->path = std::move(entry.name);
    // The name is a path like an operand: checked lexically, then opened beneath the root.
    auto c = os::check_path(ctx.root_abs(), s->path);
    if (c.issue) {
      contract::Error e = contract::make_error(c.issue->rule, c.issue->message,
                                               Json::object({{"path", Json::bytes(s->path)}}));
      if (c.issue->replacement) e.detail.set("suggested", Json::bytes(*c.issue->replacement));
      e.hint = "the list names it so; a name in a list is a path relative to --root.";
      s->work = false;
      s->error = std::move(e);
    } else if (c.path != s->path) {
      s->open = std::move(c.path);
    }
    pool.push(std::move(s));
  }
  pool.finish();
  if (open_error || pool.stopped()) {
  } else if (reader.error() != 0) {
    contract::Error e = os::errno_error(reader.error(), list, "read");
    e.detail.set("lines", number);  // the lines read, and checked, before the read failed
    ++n.errors;
    ctx.error_streamed(std::move(e));
  } else if (n.entries == 0 && n.malformed == 0 && page.skip == 0 && !ctx.output_failed()) {
    contract::Error e = contract::make_error(
        "precondition.no-match", "'" + contract::printable(list) + "' holds no checksum line.",
        Json::object({{"path", Json::bytes(list)}, {"lines", number}}));
    e.hint = "a list is what sha256sum or digest --format text writes: HEX  NAME per line.";
    ++n.errors;
    ctx.error_streamed(std::move(e));
  }
  Json end = Json::object({{"files", n.files},
                       {"bytes", n.bytes},
                       {"errors", n.errors},
                       {"entries", n.entries},
                       {"passed", n.passed},
                       {"mismatched", n.mismatched},
                       {"unreadable", n.unreadable},
                       {"malformed", n.malformed},
                       {"failed", std::move(n.failed)}});
  page.end(end, ctx);
  return end;
}

}  // namespace digest
