// seek.cpp — search file contents: every matching line with its number, byte offset and the
// byte spans of each match (or with -c/-l a count or a name per file), for one pattern or
// several, across files and directory trees. grep -rnb and ripgrep in one call. Unlike them
// it answers in JSON, never clips a long line silently, pages with a cursor
// (--max-count/--skip) that says when more exists, and ends with what it did not search:
// files left out by ignore rules, hidden names, binary files, special files and links, counted.
#include <algorithm>
#include <cerrno>
#include <deque>
#include <thread>

#include "contract/parse.h"
#include "os/file_witness.h"
#include "os/inputs.h"
#include "os/open.h"
#include "os/ordered.h"
#include "os/walk.h"
#include "runner/main.h"
#include "text/any_of.h"
#include "text/line_record.h"
#include "text/regex.h"
#include "text/scan.h"
#include "tools/seek.schema.h"

namespace {

using contract::Json;

struct Args {
  std::string pattern;
  std::vector<std::string> patterns;  // -e, in order: with any, every operand is a PATH
  std::vector<std::string> paths;
  bool regex = false, icase = false, word = false, count = false, files = false;
  uint64_t max_count = 0, skip = 0, context = 0, max_line_bytes = 0;
  bool witness = false, hidden = false, no_ignore = false, require_match = false;
  std::vector<std::string> globs;
};

constexpr uint64_t kLineCeiling = 16 * 1024 * 1024;
constexpr uint64_t kMaxCountCeiling = 100'000'000;

using contract::Kind;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "regex",
     .kind = Kind::Bool,
     .bind = &Args::regex,
     .help = "PATTERN is an RE2 regular expression (linear time: no pattern can hang the "
             "search; UTF-8: `.` is a character, \\w \\d \\s \\b are ASCII)"},
    {.name = "ignore-case",
     .short_name = 'i',
     .kind = Kind::Bool,
     .bind = &Args::icase,
     .help = "fold case; for a literal, ASCII letters only (A-Z = a-z, every other byte "
             "exact); with --regex, RE2's Unicode simple case folding"},
    {.name = "word",
     .short_name = 'w',
     .kind = Kind::Bool,
     .bind = &Args::word,
     .help = "a match must be bounded on each side by the line's edge or a non-word "
             "character (word characters: ASCII letters, digits, _)"},
    {.name = "pattern",
     .short_name = 'e',
     .kind = Kind::List,
     .bind = &Args::patterns,
     .value_name = "PATTERN",
     .help = "a pattern, repeatable; a line matches when any does, its record names them "
             "(patterns:[i,...]); every operand is then a PATH"},
    {.name = "count",
     .short_name = 'c',
     .kind = Kind::Bool,
     .bind = &Args::count,
     .excludes = "files-with-matches",
     .help = "no lines, only counts: a file record per file with matches; its exact count "
             "(pattern_counts per -e), and the exact total in the end record"},
    {.name = "files-with-matches",
     .short_name = 'l',
     .kind = Kind::Bool,
     .bind = &Args::files,
     .help = "no lines, only the files with a match; matches is null, as a file is read only "
             "to its first match"},
    {.name = "max-count",
     .short_name = 'm',
     .kind = Kind::Nat,
     .bind = &Args::max_count,
     .value_name = "N",
     .fallback = "1000",
     .ceiling = kMaxCountCeiling,
     .floor = 0,
     .help = "the most matching lines (-c/-l: files) returned, in walk order; past it the "
             "answer is truncated with next:{\"skip\":N}, set only when more exists; 0: totals "
             "only",
     .limit = true},
    {.name = "skip",
     .kind = Kind::Nat,
     .bind = &Args::skip,
     .value_name = "N",
     .fallback = "0",
     .help = "leave out the first N matching lines (-c/-l: files); the cursor from a "
             "truncated answer"},
    {.name = "context",
     .short_name = 'C',
     .kind = Kind::Nat,
     .bind = &Args::context,
     .value_name = "N",
     .fallback = "0",
     .ceiling = 1000,
     .help = "also return N lines before and after each match as context records"},
    {.name = "witness",
     .kind = Kind::Bool,
     .bind = &Args::witness,
     .help = "add each match's witness (the handle edit takes); costs two more reads of a "
             "file with matches for each 4096 of them, and the matching lines of a batch are "
             "held until their witnesses are known (at most 4 MiB)"},
    {.name = "glob",
     .short_name = 'g',
     .kind = Kind::List,
     .bind = &Args::globs,
     .value_name = "GLOB",
     .help = "search only paths matching GLOB (gitignore syntax, on the path relative to the "
             "root); !GLOB excludes; repeatable, the last matching glob decides; what globs "
             "leave out is counted in skipped.glob"},
    {.name = "hidden",
     .kind = Kind::Bool,
     .bind = &Args::hidden,
     .help = "also search hidden files and directories (names starting with '.'; otherwise "
             "counted in skipped.hidden)"},
    {.name = "no-ignore",
     .kind = Kind::Bool,
     .bind = &Args::no_ignore,
     .help = "read no .gitignore or .ignore files (by default both are honoured with git's "
             "rules in every directory from the root down, .ignore over .gitignore; what they "
             "exclude is counted in skipped.ignored)"},
    {.name = "max-line-bytes",
     .kind = Kind::Nat,
     .bind = &Args::max_line_bytes,
     .value_name = "N",
     .fallback = "1048576",
     .ceiling = kLineCeiling,
     .floor = 1024,
     .help = "the longest line held; longer matching lines are reported in one "
             "limit.line-too-long per file, with the offsets of the matches (with --regex: "
             "unsearched, with the places a match can be)",
     .limit = true},
    {.name = "require-match",
     .kind = Kind::Bool,
     .bind = &Args::require_match,
     .help = "no match at all is an error (precondition.no-match, exit 8)"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATTERN",
     .role = contract::Role::Pattern,
     .bind = &Args::pattern,
     .help = "the text to find, bytes as given (or an RE2 pattern with --regex); a line "
             "matches when it contains it. Not taken when -e is given",
     .unless = "pattern"},
    {.name = "PATH",
     .role = contract::Role::PathRead,
     .min = 0,
     .max = contract::kMany,
     .bind = &Args::paths,
     .help = "files and directories to search (default: the root, or . without one); "
             "directories are walked, a file named is always searched"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"io.read-failed", Repairable::Never,
     "the operating system failed a read, or refused to open one more directory (EMFILE)"},
    {"limit.line-too-long", Repairable::Sometimes},
    {"limit.input-too-large", Repairable::Never,
     "an ignore file larger than 16 MiB (its rules are not applied)"},
    {"precondition.no-match", Repairable::Never,
     "--require-match and nothing matched in what was searched"},
    {"query.bad-pattern", Repairable::Never,
     "a --regex pattern RE2 does not accept, or a pattern holding a newline (detail.index: "
     "which -e)"},
};

void render_text(const Json& rec, std::string& out, const contract::Drain&);

constexpr contract::Example kExamples[] = {
    {"seek --witness greet src",
     "each match: path, line, byte offset, spans, witness; the end record says what was skipped"},
    {"seek --count -e greet -e main src",
     "per-file counts, per pattern too, and the exact total; no lines"},
};

const contract::Tool kTool{
    .name = "seek",
    .summary =
        "Search file contents: matching lines with numbers, byte offsets and match "
        "spans, across files and trees, saying what was not searched.",
    .differs =
        "Unlike grep -rnb and rg it answers in JSON with spans, never clips a long "
        "line silently, pages with a cursor that says when more exists, counts what "
        "ignore rules, hidden names, binary and special files and links left out, and "
        "with --root follows no symbolic link. Literal by default; a file that is all "
        "CRLF is matched and shown without its '\\r'. Parallel across files; the output "
        "order is always the walk order.",
    .usage =
        "seek [--root DIR] [--regex] [-i] [--word] [--max-count N] [--skip N] "
        "[--context N] [--witness] [--count | --files-with-matches] [--glob G]... [--hidden] "
        "[--no-ignore] [--max-line-bytes N] [--require-match] [--format ndjson|text] "
        "(PATTERN | -e PATTERN...) [PATH...]",
    .output = contract::Output::Stream,
    .schema = "seek.v1",
    .data_schema = tool_schema::kRecords,
    .end_schema = tool_schema::kEnd,
    .text = render_text,
    .rules = kRules,
    .key_flags = "regex count files-with-matches pattern",
    .examples = kExamples,
};

static_assert(contract::valid<Args>(kFlags, kOperands));

// --- the pattern --------------------------------------------------------------------------

std::unique_ptr<text::Matcher> one_matcher(const Args& a, const std::string& pattern) {
  if (!a.regex) return text::literal_matcher(pattern, a.icase, a.word);
  text::RegexError unused;  // check() has refused a pattern RE2 does not accept
  return text::regex_matcher(pattern, a.icase, a.word, unused);
}

std::unique_ptr<text::Matcher> make_matcher(const Args& a) {
  if (a.patterns.empty()) return one_matcher(a, a.pattern);
  std::vector<std::unique_ptr<text::Matcher>> parts;
  for (const std::string& p : a.patterns) parts.push_back(one_matcher(a, p));
  return text::any_of(std::move(parts));
}

// The pattern(s) for an error's detail: "pattern", or with -e "patterns" in order.
void name_patterns(const Args& a, Json& detail) {
  if (a.patterns.empty()) {
    detail.set("pattern", Json::bytes(a.pattern));
    return;
  }
  Json all = Json::array();
  for (const std::string& p : a.patterns) all.push(Json::bytes(p));
  detail.set("patterns", std::move(all));
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  const bool several = !a.patterns.empty();
  auto check_one = [&](const std::string& pattern, size_t index) {
    auto bad = [&](std::string message, Json detail) {
      detail.set("pattern", Json::bytes(pattern));
      if (several) {
        detail.set("index", index);
        message = "-e " + std::to_string(index) + ": " + message;
      }
      errs.push_back(
          contract::make_error("query.bad-pattern", std::move(message), std::move(detail)));
    };
    if (pattern.find('\n') != std::string::npos) {
      bad("the pattern holds a newline, and seek matches within one line.",
          Json::object({{"reason", "newline"}}));
      return;
    }
    text::RegexError e;
    if (a.regex && !text::regex_matcher(pattern, a.icase, a.word, e))
      bad("the regular expression does not compile: " + e.message + ".",
          Json::object({{"reason", "syntax"}, {"error", e.message}, {"argument", e.argument}}));
  };
  if (!several) check_one(a.pattern, 0);
  for (size_t i = 0; i < a.patterns.size(); ++i) check_one(a.patterns[i], i);
  // --max-count 0 answers totals only: there is no page for --skip to move.
  if (a.max_count == 0 && ctx.given("skip")) {
    contract::Error e = contract::make_error(
        "args.conflict", "--max-count 0 returns totals only, which --skip cannot page.",
        Json::object({{"flags", Json::array({"--max-count", "--skip"})}}));
    e.hint = "drop --skip: the totals are over everything searched.";
    e.repair = contract::Repair::retry(contract::remove_flag(ctx.argv(), ctx.flags_, "skip"));
    errs.push_back(std::move(e));
  }
}

// --- records ------------------------------------------------------------------------------

// The text of a record for --format text: grep -n's `path:line:text`, `path-line-text` for
// context.
void render_text(const Json& rec, std::string& out, const contract::Drain&) {
  const Json* type = rec.get("type");
  if (!type || type->str() == "file") return;
  auto tob = [](const Json& j) -> std::string {
    if (j.type() == Json::Type::Object) {
      std::string b;
      contract::unbase64(j.get("b64")->str(), b);
      return b;
    }
    return j.str();
  };
  const bool match = type->str() == "match";
  out += tob(*rec.get("path"));
  out += match ? ':' : '-';
  out += std::to_string(rec.get("line")->as_uint());
  out += match ? ':' : '-';
  const Json* t = rec.get("text");
  if (t->is_null())
    out += "[" + std::to_string(rec.get("length")->as_uint()) +
           " bytes, longer than --max-line-bytes]";
  else
    out += tob(*t);
  out += '\n';
}

// --- per-file output, handed from the workers to the main thread in walk order ------------

enum class RecKind : uint8_t { Match, Context, Error };
struct Rec {
  RecKind kind;
  uint64_t lo, hi;    // Match: its ordinal in the file (lo == hi); Context: the matches it
                      // serves (lo exact; hi may miss a match found later); Error: the index
                      // into Slot::errors
  size_t begin, end;  // its bytes in Piece::bytes, '\n' included
  uint64_t line = 0;  // Match, Context: the line number
};
struct Piece {
  std::string bytes;
  std::vector<Rec> recs;
  size_t size() const { return bytes.size(); }
  bool empty() const { return bytes.empty() && recs.empty(); }
};

// One input in walk order: a file to search, or an error found by the walk.
struct Slot : os::OrderedSlot<Piece> {
  std::string path;
  std::optional<os::Entry> entry;  // a walked file, opened by the worker
  os::Fd fd;                       // a named file, opened by the main thread
  struct stat st {};
  bool named = false;
  os::SkipCounts walk_skips;  // what the walk left out between the previous slot and this one
  std::vector<contract::Error> errors;
  bool searched = false, binary = false;
  uint64_t found = 0, bytes = 0;
  std::vector<uint64_t> pattern_counts;  // -e with counts: lines each pattern matched
  os::SkipCounts own;  // this entry, when opening showed it is not to be searched
};

struct Worker {
  std::unique_ptr<text::Matcher> matcher;
  text::ScanBuffer buffer;
};

using Ordered = os::Ordered<Slot, Worker>;

// --- one file (worker side) ---------------------------------------------------------------

// What an answer holds: matching lines (the default), or with -c, -l or --max-count 0 a
// record per file or only totals, for which no line is rendered.
enum class Mode { Lines, Count, Files };

struct Search {
  const Args& a;
  bool text = false;
  Mode mode = Mode::Lines;
  bool totals = false;  // --max-count 0: no records, totals only
  uint64_t limit = 0;   // matching lines worth finding in one file: skip + max-count + 1
  Ordered* pool = nullptr;
  bool lines() const { return mode == Mode::Lines && !totals; }
  // Exact counts per -e pattern: -c, or totals of lines.
  bool pattern_counts() const { return !a.patterns.empty() && mode != Mode::Files && !lines(); }
};

// Bytes shown either side of an occurrence in a long line: peek --bytes reads that window.
constexpr uint64_t kWindowSide = 256;

contract::Error long_line_error(const Args& a, const std::string& path, const text::ScanResult& r,
                                const text::ReadAt& read) {
  Json lines = Json::array();
  for (uint64_t n : r.long_lines) lines.push(n);
  Json detail = Json::object({{"path", Json::bytes(path)},
                              {"lines", std::move(lines)},
                              {"count", r.long_count},
                              {"longest", r.longest},
                              {"searched", !r.long_unsearched},
                              {"max_line_bytes", a.max_line_bytes},
                              {"ceiling", kLineCeiling}});
  std::string where;
  Json offsets = Json::array();
  for (uint64_t o : r.long_offsets) offsets.push(o);
  if (r.long_located && r.long_candidates && !r.long_offsets.empty()) {
    // A regex: where the literal every match contains occurs, the only places to look.
    detail.set("offsets", Json());
    detail.set("offsets_unknown",
               "an RE2 pattern is matched against a whole line, and a line past "
               "--max-line-bytes is never held; candidates are where the literal every match "
               "must contain occurs, and long lines without it cannot match");
    detail.set("candidates", std::move(offsets));
    detail.set("candidate_count", r.long_occurrences);
    const auto [from, to] = text::window_around(r, 0, kWindowSide, read);
    detail.set("window", Json::object({{"from", from}, {"to", to}}));
    where = " A match can only be near where the literal every match contains occurs, " +
            std::to_string(r.long_occurrences) + " time(s), first at byte " +
            std::to_string(r.long_offsets.front()) + ".";
  } else if (r.long_located && !r.long_offsets.empty()) {
    detail.set("offsets", std::move(offsets));
    detail.set("occurrences", r.long_occurrences);
    const auto [from, to] = text::window_around(r, a.pattern.size(), kWindowSide, read);
    detail.set("window", Json::object({{"from", from}, {"to", to}}));
    where = " The pattern occurs " + std::to_string(r.long_occurrences) +
            " time(s) in them, first at byte " + std::to_string(r.long_offsets.front()) + ".";
  } else {
    detail.set("offsets", Json());
    detail.set("offsets_unknown",
               r.long_unsearched
                   ? "an RE2 pattern is matched against a whole line, and a line past "
                     "--max-line-bytes is never held; RE2 cannot carry a match from one piece "
                     "of it to the next"
                   : "the matcher says only whether a piece of the line matches, not where");
  }
  const std::string what = r.long_unsearched
                               ? " line(s) of '" + contract::printable(path) +
                                     "' are longer than --max-line-bytes " +
                                     std::to_string(a.max_line_bytes) +
                                     " and were not searched (a regex needs the whole line)"
                               : " line(s) of '" + contract::printable(path) +
                                     "' that match are longer than "
                                     "--max-line-bytes " +
                                     std::to_string(a.max_line_bytes) + " and are not shown";
  return contract::make_error("limit.line-too-long",
                              std::to_string(r.long_count) + what + "; the longest is " +
                                  std::to_string(r.longest) + " bytes." + where,
                              std::move(detail));
}

void search_file(const Search& cfg, Slot& s, Worker& w) {
  const Args& a = cfg.a;
  Piece piece;
  auto publish = [&] {
    cfg.pool->publish(s, std::move(piece));
    piece = Piece();
    piece.bytes.reserve(Ordered::kPiece + 4096);
  };
  auto finish = [&] { s.last = std::move(piece); };
  auto add_error = [&](contract::Error e) {
    s.errors.push_back(std::move(e));
    piece.recs.push_back(
        {RecKind::Error, s.errors.size() - 1, 0, piece.bytes.size(), piece.bytes.size()});
  };
  os::Fd owned;
  int fd = s.fd.get();
  if (!s.named) {
    const int r = os::open_entry(*s.entry, s.st);
    if (r < 0) {
      // A link now where the walk saw a file: not followed, counted as the link it is.
      if (r == -ELOOP) {
        s.own.symlink = 1;
        return;
      }
      add_error(os::errno_error(-r, s.path, "open"));
      finish();
      return;
    }
    owned = os::Fd(r);
    fd = r;
    if (!S_ISREG(s.st.st_mode)) {  // swapped for a FIFO or device since listed: never read
      s.own.special = 1;
      return;
    }
  }
  const uint64_t size = static_cast<uint64_t>(s.st.st_size);
  s.bytes = size;
  const text::ReadAt read = os::input_reader(fd, size);
  text::LineRecords render(cfg.text ? text::RecordForm::Text : text::RecordForm::Json);
  render.set_path(s.path);

  text::ScanOptions so;
  so.max_line = static_cast<size_t>(a.max_line_bytes);
  so.context = cfg.lines() ? a.context : 0;
  so.max_matches = cfg.lines() ? cfg.limit : cfg.mode == Mode::Files ? 1 : UINT64_MAX;
  so.skip_binary = !s.named;
  if (cfg.pattern_counts()) s.pattern_counts.assign(a.patterns.size(), 0);

  auto add = [&](const text::LineEvent& ev, const std::string* witness) {
    const size_t begin = piece.bytes.size();
    const bool match = ev.kind == text::LineEvent::Kind::Match;
    if (match)
      render.match(piece.bytes, ev, witness);
    else
      render.context(piece.bytes, ev);
    piece.recs.push_back({match ? RecKind::Match : RecKind::Context, ev.lo, ev.hi, begin,
                          piece.bytes.size(), ev.line});
    if (piece.bytes.size() >= Ordered::kPiece) publish();
  };

  // --witness: events are held in batches until their witnesses are known.
  std::optional<os::WitnessBatches> batches;
  if (a.witness && cfg.lines()) batches.emplace(fd, so.max_line, add);
  const text::LineSink sink = [&](const text::LineEvent& ev) {
    if (cfg.pool->cancelled()) return false;
    if (!cfg.lines()) {  // counted, not shown (the Scanner counts the lines)
      if (ev.patterns && !s.pattern_counts.empty())
        for (uint32_t i : *ev.patterns) ++s.pattern_counts[i];
      return true;
    }
    if (batches)
      batches->hold(ev);
    else
      add(ev, nullptr);
    return true;
  };
  const text::ScanResult res = text::scan(*w.matcher, so, read, sink, w.buffer);
  if (res.skipped) {
    s.own.binary = 1;
    return;
  }
  if (batches) batches->flush();
  s.searched = true;
  s.binary = res.binary;
  s.found = res.found;
  if (res.error) add_error(os::errno_error(res.error, s.path, "read"));
  if (batches && batches->error()) add_error(os::errno_error(batches->error(), s.path, "read"));
  if (res.long_count) add_error(long_line_error(a, s.path, res, read));
  finish();
}

// --- paging (main thread) -----------------------------------------------------------------

struct Page {
  const Args& a;
  contract::Context& ctx;
  const Search& cfg;
  uint64_t base = 0;  // matching lines found in the files before the head slot
  // emitted: the items of the page (matching lines; with -c/-l, file records)
  uint64_t emitted = 0, file_emitted = 0, files = 0;
  uint64_t matched_files = 0, total = 0;  // without lines: files with a match, lines counted
  std::vector<uint64_t> pattern_totals =
      std::vector<uint64_t>(cfg.pattern_counts() ? a.patterns.size() : 0);
  bool truncated = false;
  os::SkipCounts skips{};
  const Slot* current = nullptr;
  // Context lines met while --skip passes over matches: the last --context of them wait for
  // the first match shown, and those within --context of it are its before-context.
  std::deque<std::pair<uint64_t, std::string>> held{};

  void enter(const Slot& s) {
    if (current == &s) return;
    current = &s;
    file_emitted = 0;
    skips += s.walk_skips;
    held.clear();
  }
  void write(const Piece& p, const Rec& r) {
    ctx.raw().append(p.bytes, r.begin, r.end - r.begin - 1);
    ctx.commit();
  }
  void error(contract::Error e) {
    // `seek -e P Q PATH`: Q is a PATH now, but may have been meant as a pattern.
    if (e.rule == "io.not-found" && !a.patterns.empty() && !a.paths.empty() && !e.hint &&
        e.detail.get("path") && e.detail.get("path")->str() == a.paths.front())
      e.hint = "with -e every operand is a PATH; a pattern goes after another -e.";
    if (e.rule == "limit.line-too-long") {
      const uint64_t longest = e.detail.get("longest")->as_uint();
      if (longest <= kLineCeiling) {
        e.repair = contract::Repair::retry(show_long_lines(e.detail.get("path"), longest));
        e.hint = "retry on this file with --max-line-bytes " + std::to_string(longest) + ".";
      } else if (const Json* w = e.detail.get("window")) {
        const std::string range = std::to_string(w->get("from")->as_uint()) + ":" +
                                  std::to_string(w->get("to")->as_uint());
        e.repair = contract::Repair::retry(peek_window(e.detail.get("path"), range));
        e.hint = e.detail.get("candidates")
                     ? "read the bytes around the first place a match can be with peek --bytes " +
                           range + "; detail.candidates has the others."
                     : "read the bytes around the first occurrence with peek --bytes " + range +
                           "; detail.offsets has the others.";
      } else {
        e.repair = contract::Repair::none(
            "the line is longer than the ceiling of --max-line-bytes; read it in pieces with "
            "peek --bytes");
        e.hint = "read the line in pieces with peek --bytes.";
      }
    }
    ctx.error(std::move(e));
  }
  static std::string path_bytes(const Json* path) {
    std::string p = path->str();
    if (path->type() == Json::Type::Object) contract::unbase64(path->get("b64")->str(), p);
    return p;
  }
  // The repair of a line past the ceiling: peek, the tool beside this one, on the bytes
  // around the first occurrence (same root, same path: nothing wider).
  std::vector<std::string> peek_window(const Json* path, const std::string& range) const {
    const std::string& self = ctx.argv().front();
    const size_t slash = self.rfind('/');
    std::vector<std::string> v = {slash == std::string::npos ? "peek"
                                                             : self.substr(0, slash + 1) + "peek"};
    if (!ctx.root().empty()) v.insert(v.end(), {"--root", ctx.root()});
    v.push_back("--bytes=" + range);
    if (ctx.format() == contract::Format::Text) v.push_back("--format=text");
    v.insert(v.end(), {"--", path_bytes(path)});
    return v;
  }
  // The repair of a long-line error: the same search on that one file, with the cap at its
  // longest line (a narrower call, so that it clears exactly this error; --skip counted over
  // all files, so it goes, as do the walk's filters, which a named file ignores).
  std::vector<std::string> show_long_lines(const Json* path, uint64_t longest) const {
    std::vector<std::string> v = {ctx.argv().front()};
    if (!ctx.root().empty()) v.insert(v.end(), {"--root", ctx.root()});
    if (a.regex) v.push_back("--regex");
    if (a.icase) v.push_back("--ignore-case");
    if (a.word) v.push_back("--word");
    if (a.count) v.push_back("--count");
    if (a.files) v.push_back("--files-with-matches");
    for (const std::string& p : a.patterns) v.push_back("--pattern=" + p);
    if (ctx.given("max-count")) v.push_back("--max-count=" + std::to_string(a.max_count));
    if (a.context) v.push_back("--context=" + std::to_string(a.context));
    if (a.witness) v.push_back("--witness");
    v.push_back("--max-line-bytes=" + std::to_string(longest));
    if (ctx.format() == contract::Format::Text) v.push_back("--format=text");
    v.push_back("--");
    if (a.patterns.empty()) v.push_back(a.pattern);
    v.push_back(path_bytes(path));
    return v;
  }
  void file_record(const Slot& s) {
    if (file_emitted == 0) return;
    ctx.record(Json::object({{"type", "file"},
                             {"path", Json::bytes(s.path)},
                             {"matches", file_emitted},
                             {"bytes", s.bytes},
                             {"binary", s.binary}}));
    file_emitted = 0;
  }
  // -c, -l: the one record of a file with a match. --format text: `path:count` (-c), `path`.
  void count_record(const Slot& s) {
    const bool exact = cfg.mode == Mode::Count;
    if (ctx.format() == contract::Format::Text) {
      ctx.raw() += s.path;
      if (exact) ctx.raw() += ":" + std::to_string(s.found);
      ctx.commit();
      return;
    }
    Json rec = Json::object({{"type", "file"},
                             {"path", Json::bytes(s.path)},
                             {"matches", exact ? Json(s.found) : Json()}});
    if (!s.pattern_counts.empty()) {
      Json counts = Json::array();
      for (uint64_t n : s.pattern_counts) counts.push(n);
      rec.set("pattern_counts", std::move(counts));
    }
    rec.set("bytes", s.bytes);
    rec.set("binary", s.binary);
    ctx.record(rec);
  }
  void add_totals(const Slot& s) {
    total += s.found;
    for (size_t i = 0; i < s.pattern_counts.size() && i < pattern_totals.size(); ++i)
      pattern_totals[i] += s.pattern_counts[i];
  }

  bool take(Slot& s, Piece& p) {
    enter(s);
    if (ctx.output_failed()) return false;
    if (!cfg.lines()) {  // no lines rendered: only errors to pass on
      for (const Rec& r : p.recs)
        if (r.kind == RecKind::Error) error(std::move(s.errors[r.lo]));
      return !ctx.output_failed();
    }
    const uint64_t lo = a.skip, hi = a.skip + a.max_count;  // the window of ordinals shown
    bool whole = !p.bytes.empty();
    uint64_t n = 0;
    for (const Rec& r : p.recs) {
      if (r.kind == RecKind::Error || base + r.lo < lo || base + r.lo >= hi) whole = false;
      n += r.kind == RecKind::Match;
    }
    if (whole) {  // the common case: all of it inside the window
      ctx.raw().append(p.bytes, 0, p.bytes.size() - 1);
      ctx.commit();
      emitted += n;
      file_emitted += n;
      return !ctx.output_failed();
    }
    for (const Rec& r : p.recs) {
      switch (r.kind) {
        case RecKind::Error:
          error(std::move(s.errors[r.lo]));
          break;
        case RecKind::Match:
          if (base + r.lo < lo) break;
          if (base + r.lo >= hi) {  // one more exists: the answer is complete up to here
            truncated = true;
            ++files;  // this file was searched, up to the line that proved more exists
            file_record(s);
            return false;
          }
          for (auto& [line, bytes] : held) {
            if (line + a.context < r.line) continue;
            ctx.raw() += bytes;
            ctx.commit();
          }
          held.clear();
          write(p, r);
          ++emitted;
          ++file_emitted;
          break;
        case RecKind::Context:
          // `lo` is exact: the nearest match before the line within --context. Before the
          // first match shown, whether a line is its before-context waits for that match.
          if (base + r.lo < lo) {
            held.emplace_back(r.line, p.bytes.substr(r.begin, r.end - r.begin - 1));
            if (held.size() > a.context) held.pop_front();
          } else if (base + r.lo < hi) {
            write(p, r);
          }
          break;
      }
    }
    return !ctx.output_failed();
  }

  bool done(Slot& s) {
    enter(s);
    skips += s.own;
    if (s.searched) ++files;
    base += s.found;
    if (!cfg.lines()) {
      current = nullptr;
      if (s.found == 0) return !ctx.output_failed();
      if (cfg.totals) {
        add_totals(s);
        return !ctx.output_failed();
      }
      // A page counts files with a match; the file past it proves that more exist.
      const uint64_t ordinal = matched_files++;
      if (ordinal < a.skip) return !ctx.output_failed();
      if (ordinal >= a.skip + a.max_count) {
        truncated = true;
        return false;
      }
      count_record(s);
      add_totals(s);
      ++emitted;
      return !ctx.output_failed();
    }
    file_record(s);
    current = nullptr;
    return !ctx.output_failed();
  }
};

std::unique_ptr<Slot> error_slot(contract::Error e) {
  auto s = std::make_unique<Slot>();
  s->work = false;
  s->errors.push_back(std::move(e));
  s->last.recs.push_back({RecKind::Error, 0, 0, 0, 0});
  return s;
}

Json run(const Args& a, contract::Context& ctx) {
  const unsigned cores = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<Worker> workers(cores);
  for (auto& w : workers) w.matcher = make_matcher(a);

  Search cfg{a, ctx.format() == contract::Format::Text};
  cfg.mode = a.count ? Mode::Count : a.files ? Mode::Files : Mode::Lines;
  cfg.totals = a.max_count == 0;
  cfg.limit = a.skip + a.max_count + 1;  // both far below 2^64
  Page page{a, ctx, cfg};
  Ordered pool(
      workers, [&](Slot& s, Worker& w) { search_file(cfg, s, w); },
      [&](Slot& s, Piece& p) { return page.take(s, p); }, [&](Slot& s) { return page.done(s); });
  cfg.pool = &pool;

  os::WalkOptions wo;
  wo.hidden = a.hidden;
  wo.no_ignore = a.no_ignore;
  wo.globs = a.globs;
  os::Inputs inputs(ctx.root_fd(), a.paths, std::move(wo));
  os::SkipCounts pushed;  // the part of what was left out already handed to a slot
  os::Input in;
  while (!pool.stopped() && inputs.next(in)) {
    std::unique_ptr<Slot> s;
    switch (in.type) {
      case os::Input::Type::Error:
        s = error_slot(std::move(in.error));
        break;
      case os::Input::Type::Named:  // a file named is always searched, binary or not
        s = std::make_unique<Slot>();
        s->path = in.path;
        s->named = true;
        s->st = in.named.st;
        s->fd = std::move(in.named.fd);
        break;
      case os::Input::Type::Walked:
        s = std::make_unique<Slot>();
        s->path = in.path;
        s->entry = std::move(in.entry);
        break;
    }
    s->walk_skips = in.skipped - pushed;
    pushed = in.skipped;
    pool.push(std::move(s));
  }
  pool.finish();
  if (!pool.stopped()) page.skips += inputs.skipped() - pushed;

  if (a.require_match && page.base == 0 && !page.truncated && !ctx.output_failed()) {
    const uint64_t left_out = page.skips.ignored + page.skips.hidden + page.skips.binary;
    contract::Error e = contract::make_error(
        "precondition.no-match",
        "nothing matched in the " + std::to_string(page.files) + " file(s) searched.",
        Json::object({{"files", page.files}, {"skipped", page.skips.to_json()}}));
    name_patterns(a, e.detail);
    if (left_out > 0)
      e.hint = std::to_string(left_out) +
               " file(s) were left out (ignored, hidden or binary); --no-ignore, --hidden or "
               "naming a file searches them.";
    ctx.error(std::move(e));
  }
  const bool ok = ctx.errors().empty();
  // The answer's `matches`: the lines shown, or counted (-c, --max-count 0); -l counts none.
  const Json matches = cfg.lines()               ? Json(page.emitted)
                       : cfg.mode == Mode::Files ? Json()
                                                 : Json(page.total);
  if (ctx.format() == contract::Format::Text && cfg.totals) {
    if (matches.is_null())
      ctx.raw() += "[" + std::to_string(page.files) + " files searched]";
    else
      ctx.raw() += "[" + std::to_string(page.total) + " matching lines in " +
                   std::to_string(page.files) + " files searched]";
    ctx.commit();
  }
  if (ctx.format() == contract::Format::Text) {
    const std::string cut =
        page.truncated ? "continue with --skip " + std::to_string(a.skip + page.emitted) : "";
    if (std::string line = os::text_end_line(cut, page.skips); !line.empty()) {
      ctx.raw() += line;
      ctx.commit();
    }
  }
  Json end = Json::object(
      {{"complete", ok && !page.truncated},
       {"files", page.files},
       {"matches", matches},
       {"errors", ctx.errors().size()},
       {"truncated", page.truncated},
       {"next", page.truncated ? Json::object({{"skip", a.skip + page.emitted}}) : Json()},
       {"skipped", page.skips.to_json()}});
  if (cfg.pattern_counts()) {
    Json counts = Json::array();
    for (uint64_t n : page.pattern_totals) counts.push(n);
    end.set("pattern_counts", std::move(counts));
  }
  return end;
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
