// replace.cpp — change exact text an expected number of times, atomically. Differs from
// `sed -i s/…/…/`: no regex and no escaping (the bytes given are the bytes matched, under the
// CRLF policy), the caller says how many occurrences it expects and any other count refuses the
// change with the line of every occurrence (and, for none, the near misses), occurrences are
// counted overlap-aware so a self-overlapping needle cannot pass for unique, a second identical
// call answers already_applied instead of doing it again, the file is replaced atomically under
// a lock with its BOM, mode and untouched bytes kept, and the answer is the line diff.
//
// Overlaps: "aa" in "aaa" is found twice. When occurrences overlap, which of them to replace is
// a guess, so the change is refused (precondition.count-mismatch with overlapping:true) even if
// the count is the one expected; a longer --old that names one place is the way through.
#include <unistd.h>

#include <algorithm>

#include "contract/main.h"
#include "os/atomic.h"
#include "os/hash.h"
#include "os/open.h"
#include "text/diff.h"
#include "text/edits.h"
#include "text/eol.h"

namespace {

using contract::Json;

struct Args {
  std::string path;
  std::optional<std::string> old_text, new_text;
  uint64_t expect = 1;
  bool all = false;
  std::optional<std::string> edits_file;
  std::optional<std::string> if_sha256;
  bool dry_run = false;
  uint64_t max_bytes = 0;
  uint64_t max_diff_lines = 0;
};

constexpr uint64_t kMaxBytesCeiling = 256ull * 1024 * 1024;
constexpr uint64_t kDiffLinesCeiling = 1'000'000;
constexpr size_t kMaxNear = 10;

using contract::Kind;
using contract::Role;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "old", .kind = Kind::Text, .role = Role::Pattern, .bind = &Args::old_text,
     .value_name = "TEXT", .excludes = "edits-file",
     .help = "the exact text to find (in a CRLF file, \\n means \\r\\n); never empty"},
    {.name = "new", .kind = Kind::Text, .role = Role::Content, .bind = &Args::new_text,
     .value_name = "TEXT", .excludes = "edits-file",
     .help = "the text to put in its place (in a CRLF file, written with \\r\\n)"},
    {.name = "expect", .kind = Kind::Nat, .bind = &Args::expect, .value_name = "N",
     .fallback = "1", .ceiling = 1'000'000, .floor = 1, .excludes = "all edits-file",
     .help = "how many occurrences there must be (overlapping ones counted); any other count "
             "changes nothing (precondition.count-mismatch)"},
    {.name = "all", .kind = Kind::Bool, .bind = &Args::all, .excludes = "edits-file",
     .help = "replace every occurrence, however many (at least one)"},
    {.name = "edits-file", .kind = Kind::Path, .role = Role::PathRead, .bind = &Args::edits_file,
     .value_name = "PATH",
     .help = "a JSON list of {old, new, expect|all} applied in order, all or nothing"},
    {.name = "if-sha256", .kind = Kind::Text, .bind = &Args::if_sha256, .value_name = "HEX",
     .help = "the file's content must hash to HEX (SHA-256) or nothing is written"},
    {.name = "dry-run", .kind = Kind::Bool, .bind = &Args::dry_run,
     .help = "check everything and answer with the diff and planned_actions, changing nothing "
             "(exit 9)"},
    {.name = "max-bytes", .kind = Kind::Nat, .bind = &Args::max_bytes, .value_name = "N",
     .fallback = "16777216", .ceiling = kMaxBytesCeiling, .floor = 1,
     .help = "the largest file (and edits file) accepted (limit.input-too-large)",
     .limit = true},
    {.name = "max-diff-lines", .kind = Kind::Nat, .bind = &Args::max_diff_lines,
     .value_name = "N", .fallback = "400", .ceiling = kDiffLinesCeiling, .floor = 0,
     .help = "the most diff lines listed; past it diff_truncated is true",
     .limit = true},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH", .role = Role::PathWrite, .bind = &Args::path, .help = "the file to change"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"args.unknown-flag", Repairable::Sometimes},
    {"args.missing-value"},
    {"args.bad-value"},
    {"args.unexpected-value"},
    {"args.duplicate-flag"},
    {"args.conflict"},
    {"args.missing-operand"},
    {"args.required-flag"},
    {"args.too-many-operands"},
    {"path.empty"},
    {"path.dotdot", Repairable::Sometimes},
    {"path.absolute", Repairable::Always},
    {"path.outside-root"},
    {"path.too-long"},
    {"path.symlink"},
    {"io.not-found"},
    {"io.not-a-directory"},
    {"io.is-a-directory"},
    {"io.special-file"},
    {"io.permission-denied"},
    {"io.read-failed"},
    {"io.write-failed"},
    {"limit.input-too-large", Repairable::Sometimes},
    {"parse.json"},
    {"precondition.hash-mismatch"},
    {"precondition.count-mismatch"},
    {"conflict.locked"},
};

constexpr std::string_view kHex = R"({"type":"string","pattern":"^[0-9a-f]{64}$"})";

struct Schema {
  std::string text;
  Schema() {
    text = std::string(
               R"({"type":"object","required":["path","changed","already_applied","replacements","before_sha256","after_sha256","diff","diff_truncated"],)"
               R"("additionalProperties":false,"properties":{"path":{"$ref":"#/$defs/text_or_bytes"},)"
               R"("changed":{"type":"boolean"},"already_applied":{"type":"boolean"},)"
               R"("replacements":{"type":"integer","minimum":0},"before_sha256":)") +
           std::string(kHex) + R"(,"after_sha256":)" + std::string(kHex) +
           R"(,"diff":{"oneOf":[)" + std::string(text::kDiffSchema) +
           R"(,{"type":"null"}]},"diff_truncated":{"type":"boolean"}}})";
  }
};
const Schema kSchema;

void render_text(const Json& data, std::string& out);

const contract::Tool kTool{
    .name = "replace",
    .summary = "Replace exact text that occurs the expected number of times, atomically, and "
               "answer with the line diff.",
    .differs = "Unlike sed -i it takes no regex and no escapes, refuses when the text occurs "
               "other than the expected number of times (counting overlaps), names every "
               "occurrence and the near misses, is idempotent (already_applied), and writes "
               "atomically under a lock keeping BOM, line endings and mode.",
    .usage = "replace [--root DIR] (--old TEXT --new TEXT [--expect N | --all] | --edits-file "
             "PATH) [--if-sha256 HEX] [--dry-run] [--max-bytes N] [--max-diff-lines N] "
             "[--format json|text] PATH",
    .output = contract::Output::Document,
    .schema = "replace.v1",
    .data_schema = kSchema.text,
    .effects = contract::kReadFiles | contract::kWriteFiles,
    .reversibility = contract::Reversibility::IrreversibleBounded,
    .guarantees = "deterministic, idempotent, atomic, all_or_nothing, mode_preserved, "
                  "no_litter, bounded_memory",
    .concurrency = "tack writers of one directory take turns (flock on the directory, about a "
                   "second's wait, then conflict.locked); the read and the write are of one "
                   "snapshot under that lock",
    .text = render_text,
    .rules = kRules,
};

static_assert(contract::valid<Args>(kFlags, kOperands));

contract::Error bad_value(std::string flag, std::string message) {
  return contract::make_error("args.bad-value", std::move(message),
                              Json::object({{"flag", std::move(flag)}}));
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context&) {
  if (a.if_sha256 && !os::is_sha256_hex(*a.if_sha256))
    errs.push_back(bad_value("if-sha256", "--if-sha256 must be 64 hex digits (a SHA-256)."));
  if (a.edits_file) return;
  if (!a.old_text || !a.new_text) {
    errs.push_back(contract::make_error(
        "args.required-flag", "replace needs --old TEXT and --new TEXT, or --edits-file PATH.",
        Json::object({{"flags", Json::array({"--old", "--new", "--edits-file"})}})));
    return;
  }
  if (a.old_text->empty())
    errs.push_back(bad_value("old", "--old is empty: an empty text occurs everywhere."));
  else if (*a.old_text == *a.new_text)
    errs.push_back(bad_value("new", "--new equals --old: the change would change nothing."));
}

// Reads a whole small file (the edits list) beneath the root, at most max bytes.
std::optional<std::string> read_small(const std::string& path, const std::string& target,
                                      uint64_t max, contract::Context& ctx) {
  auto opened = os::open_read(ctx.root_fd(), path, os::Want::File, path);
  if (auto* e = std::get_if<contract::Error>(&opened)) {
    ctx.error(std::move(*e));
    return std::nullopt;
  }
  auto& f = std::get<os::Opened>(opened);
  std::string bytes;
  auto hashed = os::sha256_fd(f.fd.get(), path, &bytes, max);
  if (auto* e = std::get_if<contract::Error>(&hashed)) {
    ctx.error(std::move(*e));
    return std::nullopt;
  }
  if (!std::get<os::Hashed>(hashed).kept) {
    uint64_t size = std::get<os::Hashed>(hashed).bytes;
    contract::Error e = contract::make_error(
        "limit.input-too-large",
        "'" + contract::printable(path) + "' is " + std::to_string(size) +
            " bytes, past --max-bytes " + std::to_string(max) + ".",
        Json::object({{"path", Json::bytes(path)}, {"bytes", size}, {"max_bytes", max},
                      {"ceiling", kMaxBytesCeiling}}));
    // The target is capped too: its size from lstat (nothing of it read), so that one retry
    // clears both.
    uint64_t need = size;
    auto placed = os::open_place(ctx.root_fd(), target, os::Parents::Refuse);
    if (auto* p = std::get_if<os::Place>(&placed)) {
      auto looked = os::look(*p);
      if (auto* en = std::get_if<os::Entry>(&looked))
        if (en->kind == os::Entry::Kind::File)
          need = std::max(need, static_cast<uint64_t>(en->st.st_size));
    }
    if (need <= kMaxBytesCeiling) {
      e.repair = contract::Repair::retry(ctx.argv_with_flag("max-bytes", std::to_string(need)));
      e.hint = "retry with --max-bytes " + std::to_string(need) + ".";
    } else {
      e.repair = contract::Repair::none("the file is larger than the ceiling of --max-bytes");
    }
    ctx.error(std::move(e));
    return std::nullopt;
  }
  return bytes;
}

// The text as matched: a CRLF file's body without the '\r' of each "\r\n" (then every '\n' in
// it stands for "\r\n"); any other file as it is.
std::string to_view(std::string_view body, text::Eol eol) {
  if (eol != text::Eol::Crlf) return std::string(body);
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i)
    if (!(body[i] == '\r' && i + 1 < body.size() && body[i + 1] == '\n')) out += body[i];
  return out;
}
std::string from_view(std::string_view view, text::Eol eol) {
  if (eol != text::Eol::Crlf) return std::string(view);
  std::string out;
  out.reserve(view.size() + view.size() / 16);
  for (char c : view) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// Every start of `needle` in `hay`, overlapping ones included.
std::vector<size_t> occurrences(std::string_view hay, std::string_view needle) {
  std::vector<size_t> at;
  if (needle.empty()) return at;
  for (size_t p = hay.find(needle); p != std::string_view::npos; p = hay.find(needle, p + 1))
    at.push_back(p);
  return at;
}

// 1-based line of each byte offset (offsets ascending).
Json lines_of(std::string_view view, const std::vector<size_t>& at) {
  Json out = Json::array();
  uint64_t line = 1;
  size_t pos = 0;
  for (size_t p : at) {
    line += static_cast<uint64_t>(std::count(view.begin() + static_cast<long>(pos),
                                             view.begin() + static_cast<long>(p), '\n'));
    pos = p;
    out.push(line);
  }
  return out;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The whole lines (as matched) spanning [from, to) of the view, and the first one's number.
std::pair<uint64_t, std::string> lines_around(std::string_view view, size_t from, size_t to) {
  size_t start = view.rfind('\n', from == 0 ? 0 : from - 1);
  start = (from == 0 || start == std::string_view::npos) ? 0 : start + 1;
  if (from > 0 && view[from - 1] == '\n') start = from;
  size_t end = view.find('\n', to == 0 ? 0 : to - 1);
  if (to > from && view[to - 1] == '\n') end = to - 1;
  if (end == std::string_view::npos) end = view.size();
  uint64_t line = 1 + static_cast<uint64_t>(std::count(view.begin(), view.begin() + static_cast<long>(start), '\n'));
  return {line, std::string(view.substr(start, end - start))};
}

// Near misses of a needle found nowhere: places that match once blanks (spaces, tabs) are
// ignored, and places an --old holding literal "\n"/"\t" escapes would match with the real
// characters. Each with its line and the exact lines there, so the next call can quote them.
Json near_misses(std::string_view view, std::string_view needle) {
  Json near = Json::array();
  auto add = [&](size_t from, size_t to, std::string_view why) {
    if (near.items().size() >= kMaxNear) return;
    auto [line, lines] = lines_around(view, from, to);
    for (const Json& n : near.items())
      if (n.get("line")->as_uint() == line) return;
    near.push(Json::object({{"line", line}, {"text", Json::bytes(lines)}, {"why", why}}));
  };
  // Blank-insensitive: the view with its blanks squeezed out, and where each kept byte was.
  std::string squeezed, sq_needle;
  std::vector<size_t> where;
  for (size_t i = 0; i < view.size(); ++i)
    if (!is_blank(view[i])) {
      squeezed += view[i];
      where.push_back(i);
    }
  for (char c : needle)
    if (!is_blank(c)) sq_needle += c;
  if (!sq_needle.empty())
    for (size_t p : occurrences(squeezed, sq_needle)) {
      add(where[p], where[p + sq_needle.size() - 1] + 1, "whitespace");
      if (near.items().size() >= kMaxNear) break;
    }
  // Escapes written literally: "\n" as backslash and n (a shell quoting slip).
  if (needle.find("\\n") != std::string_view::npos || needle.find("\\t") != std::string_view::npos) {
    std::string real;
    for (size_t i = 0; i < needle.size(); ++i) {
      if (needle[i] == '\\' && i + 1 < needle.size() && (needle[i + 1] == 'n' || needle[i + 1] == 't')) {
        real += needle[i + 1] == 'n' ? '\n' : '\t';
        ++i;
      } else {
        real += needle[i];
      }
    }
    for (size_t p : occurrences(view, real)) add(p, p + real.size(), "escaped-newline");
  }
  return near;
}

struct Applied {
  uint64_t replacements = 0;
  bool already = false;
};

// One edit on the view, or the error that refuses the whole batch.
std::variant<Applied, contract::Error> apply_one(std::string& view, const text::ReplaceEdit& e,
                                                 int64_t index) {
  std::vector<size_t> at = occurrences(view, e.old_text);
  std::vector<size_t> fresh = occurrences(view, e.new_text);
  // Occurrences of old inside an occurrence of new are what an earlier identical call left
  // ("foo" -> "foobar"): they are not live, so the second call sees the change as done.
  std::vector<size_t> live;
  for (size_t p : at) {
    bool inside = false;
    for (size_t q : fresh)
      if (q <= p && p + e.old_text.size() <= q + e.new_text.size()) {
        inside = true;
        break;
      }
    if (!inside) live.push_back(p);
  }
  auto count_ok = [&](size_t n) { return e.all ? n >= 1 : n == e.expect; };
  if (live.empty() && !fresh.empty() && count_ok(fresh.size())) return Applied{0, true};

  bool overlapping = false;
  for (size_t i = 1; i < at.size(); ++i)
    if (at[i] < at[i - 1] + e.old_text.size()) overlapping = true;
  if (!count_ok(at.size()) || overlapping) {
    Json detail = Json::object({{"expected", e.all ? Json(nullptr) : Json(e.expect)},
                                {"all", e.all},
                                {"found", at.size()},
                                {"lines", lines_of(view, at)},
                                {"overlapping", overlapping}});
    if (index >= 0) detail.set("index", index);
    std::string what = e.all ? "at least 1" : std::to_string(e.expect);
    std::string message =
        overlapping && count_ok(at.size())
            ? "the text occurs " + std::to_string(at.size()) +
                  " times but the occurrences overlap, so which to replace is ambiguous; nothing "
                  "was written."
            : "the text occurs " + std::to_string(at.size()) + " times, not " + what +
                  "; nothing was written.";
    if (at.empty()) detail.set("near", near_misses(view, e.old_text));
    contract::Error err = contract::make_error("precondition.count-mismatch", message, std::move(detail));
    err.repair = contract::Repair::none(
        at.empty() ? "the text is not there: quote it exactly (detail.near lists close matches)"
                   : "choose a longer --old that names only the intended places, or the count "
                     "the caller really means");
    return err;
  }
  std::string out;
  out.reserve(view.size());
  size_t pos = 0;
  for (size_t p : at) {
    out.append(view, pos, p - pos);
    out += e.new_text;
    pos = p + e.old_text.size();
  }
  out.append(view, pos, std::string::npos);
  view = std::move(out);
  return Applied{at.size(), false};
}

// In a CRLF file the caller's "\r\n" means the same as "\n".
std::string crlf_to_view(std::string s, text::Eol eol) { return to_view(s, eol); }

Json run(const Args& a, contract::Context& ctx) {
  auto fail = [&](contract::Error e) {
    ctx.error(std::move(e));
    return Json(nullptr);
  };
  std::vector<text::ReplaceEdit> edits;
  if (a.edits_file) {
    auto raw = read_small(*a.edits_file, a.path, a.max_bytes, ctx);
    if (!raw) return nullptr;
    auto parsed = text::parse_replace_edits(*raw);
    if (auto* pe = std::get_if<text::EditsError>(&parsed)) {
      if (pe->kind == text::EditsError::Kind::Syntax)
        return fail(contract::make_error(
            "parse.json", pe->message,
            Json::object({{"path", Json::bytes(*a.edits_file)}, {"offset", pe->offset}})));
      Json detail = Json::object({{"path", Json::bytes(*a.edits_file)}, {"index", pe->index}});
      if (!pe->field.empty()) detail.set("field", Json::bytes(pe->field));
      return fail(contract::make_error("args.bad-value", pe->message, std::move(detail)));
    }
    edits = std::move(std::get<std::vector<text::ReplaceEdit>>(parsed));
  } else {
    edits.push_back({*a.old_text, *a.new_text, a.expect, a.all});
  }

  auto placed = os::open_place(ctx.root_fd(), a.path, os::Parents::Refuse);
  if (auto* e = std::get_if<contract::Error>(&placed)) return fail(std::move(*e));
  os::Place& place = std::get<os::Place>(placed);
  os::DirLock held;  // a dry run takes no lock: it changes nothing, so no writer waits on it
  if (!a.dry_run) {
    auto locked = os::lock(place);
    if (auto* e = std::get_if<contract::Error>(&locked)) return fail(std::move(*e));
    held = std::move(std::get<os::DirLock>(locked));
  }
  auto looked = os::look(place);
  if (auto* e = std::get_if<contract::Error>(&looked)) return fail(std::move(*e));
  const os::Entry& entry = std::get<os::Entry>(looked);
  if (entry.kind == os::Entry::Kind::Missing) return fail(os::errno_error(ENOENT, a.path, "open"));
  if (entry.kind != os::Entry::Kind::File) return fail(os::wrong_kind(place, entry));
  auto opened = os::open_existing(place);
  if (auto* e = std::get_if<contract::Error>(&opened)) return fail(std::move(*e));
  auto& file = std::get<os::Opened>(opened);
  std::string before_bytes;
  auto hashed = os::sha256_fd(file.fd.get(), a.path, &before_bytes, a.max_bytes);
  if (auto* e = std::get_if<contract::Error>(&hashed)) return fail(std::move(*e));
  const os::Hashed& h = std::get<os::Hashed>(hashed);
  if (!h.kept) {
    contract::Error e = contract::make_error(
        "limit.input-too-large",
        "'" + contract::printable(a.path) + "' is " + std::to_string(h.bytes) +
            " bytes, past --max-bytes " + std::to_string(a.max_bytes) + ".",
        Json::object({{"path", Json::bytes(a.path)}, {"bytes", h.bytes},
                      {"max_bytes", a.max_bytes}, {"ceiling", kMaxBytesCeiling}}));
    if (h.bytes <= kMaxBytesCeiling) {
      e.repair = contract::Repair::retry(ctx.argv_with_flag("max-bytes", std::to_string(h.bytes)));
      e.hint = "retry with --max-bytes " + std::to_string(h.bytes) + ".";
    } else {
      e.repair = contract::Repair::none("the file is larger than the ceiling of --max-bytes");
    }
    return fail(std::move(e));
  }
  const std::string before = h.hex;

  // The BOM is kept out of matching and put back unchanged.
  const bool bom = text::has_bom(before_bytes);
  std::string_view body = std::string_view(before_bytes).substr(bom ? 3 : 0);
  text::EolCounter counter;
  for (size_t pos = 0; pos < body.size();) {
    size_t nl = body.find('\n', pos);
    if (nl == std::string_view::npos) break;
    counter.add(body.substr(pos, nl - pos), true);
    pos = nl + 1;
  }
  const text::Eol eol = counter.result();

  std::string view = to_view(body, eol);
  uint64_t replacements = 0;
  bool all_already = true;
  for (size_t i = 0; i < edits.size(); ++i) {
    text::ReplaceEdit e = edits[i];
    e.old_text = crlf_to_view(std::move(e.old_text), eol);
    e.new_text = crlf_to_view(std::move(e.new_text), eol);
    auto r = apply_one(view, e, a.edits_file ? static_cast<int64_t>(i) : -1);
    if (auto* err = std::get_if<contract::Error>(&r)) {
      err->detail.set("path", Json::bytes(a.path));
      err->detail.set("actual_sha256", before);
      return fail(std::move(*err));
    }
    auto& ap = std::get<Applied>(r);
    replacements += ap.replacements;
    all_already = all_already && ap.already;
  }
  std::string after_bytes = (bom ? std::string(text::kBom) : std::string()) + from_view(view, eol);
  const bool changed = after_bytes != before_bytes;
  const std::string after = changed ? os::sha256_hex(after_bytes) : before;

  // The hash is checked after the edits are tried so that a repeat of a call that landed
  // (its --if-sha256 now stale) answers already_applied rather than a mismatch: the file is
  // in the state the caller asked for, and nothing is written.
  if (a.if_sha256 && os::lower_hex(*a.if_sha256) != before && changed) {
    contract::Error e = contract::make_error(
        "precondition.hash-mismatch",
        "'" + contract::printable(a.path) + "' does not hash to --if-sha256; nothing was written.",
        Json::object({{"path", Json::bytes(a.path)},
                      {"expected", os::lower_hex(*a.if_sha256)},
                      {"actual_sha256", before}}));
    e.repair = contract::Repair::none(
        "the file changed since it was read: read it again (actual_sha256 is its hash now) and "
        "decide");
    return fail(std::move(e));
  }

  text::DiffOptions opt;
  opt.max_lines = a.max_diff_lines;
  text::Diff d = text::diff_lines(before_bytes, after_bytes, opt);
  Json data = Json::object({{"path", Json::bytes(a.path)},
                            {"changed", changed},
                            {"already_applied", !changed && all_already},
                            {"replacements", replacements},
                            {"before_sha256", before},
                            {"after_sha256", after},
                            {"diff", text::diff_json(d)},
                            {"diff_truncated", d.truncated}});
  if (a.dry_run) {
    Json planned = Json::array();
    if (changed) {
      if (os::has_stale_temp(place))
        planned.push(Json::object({{"op", "remove-stale-temporary"},
                                   {"path", Json::bytes(os::temp_name(place.name))}}));
      planned.push(Json::object({{"op", "replace"},
                                 {"path", Json::bytes(a.path)},
                                 {"before_sha256", before},
                                 {"after_sha256", after},
                                 {"bytes", after_bytes.size()}}));
    }
    ctx.dry_run(std::move(planned));
    return data;
  }
  if (changed) {
    os::CommitOptions copt;
    copt.replace = os::Replace::Allow;
    copt.mode = file.st.st_mode & 01777;  // set-id bits do not survive a content change
    copt.owner = std::pair(file.st.st_uid, file.st.st_gid);
    if (auto e = os::commit_file(place, after_bytes, copt)) return fail(std::move(*e));
  }
  return data;
}

void render_text(const Json& data, std::string& out) {
  out += contract::printable(data.get("path")->str());
  out += ": ";
  if (data.get("already_applied")->as_bool())
    out += "already applied, unchanged";
  else
    out += std::to_string(data.get("replacements")->as_uint()) + " replacement(s)";
  out += ", sha256 " + data.get("after_sha256")->str() + "\n";
  const Json* diff = data.get("diff");
  if (diff && !diff->is_null()) text::render_diff(*diff, out);
  if (data.get("diff_truncated")->as_bool()) out += "[diff truncated]\n";
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
