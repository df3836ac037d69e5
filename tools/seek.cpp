// seek.cpp — search file contents: every matching line with its number, byte offset and the
// byte spans of each match (or with -c/-l a count or a name per file), for one pattern or
// several, across files and directory trees. grep -rnb and ripgrep in one call. Unlike them
// it answers in JSON, never clips a long line silently, pages with a cursor
// (--max-count/--skip) that says when more exists, and ends with what it did not search:
// files left out by ignore rules, hidden names, binary files, special files and links, counted.
#include <algorithm>
#include <thread>

#include "contract/parse.h"
#include "os/inputs.h"
#include "runner/main.h"
#include "text/any_of.h"
#include "text/pattern_set.h"
#include "text/regex.h"
#include "tools/seek.schema.h"
#include "tools/seek/args.h"
#include "tools/seek/page.h"
#include "tools/seek/search.h"
#include "tools/render/render.h"

namespace {

using contract::Json;
using seek::Args, seek::kLineCeiling, seek::Mode, seek::Search, seek::Page, seek::Slot;

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
    {.name = "last",
     .kind = Kind::Nat,
     .bind = &Args::last,
     .value_name = "N",
     .ceiling = kMaxCountCeiling,
     .floor = 1,
     .excludes = "max-count skip count files-with-matches",
     .help = "the last N matching lines, still in walk order (grep | tail -N); held in memory "
             "bounded by N; more before them: next:{\"before\":K}"},
    {.name = "before",
     .kind = Kind::Nat,
     .bind = &Args::before,
     .value_name = "K",
     .help = "with --last: only matching lines before the K-th (from 0, in walk order); the "
             "cursor from a --last answer"},
    contract::max_bytes<Args>(),
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
     .help = "N lines before and after each match; returned as context records"},
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
    {.name = "threads",
     .short_name = 'j',
     .kind = Kind::Nat,
     .bind = &Args::threads,
     .value_name = "N",
     .fallback = "0",
     .ceiling = seek::kMaxThreads,
     .help = "files searched at once (0: one per core, at most 8), or parts of one large "
             "file (32 MiB or more); the answer is the same whatever N"},
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
    {"args.required-flag", Repairable::Never, "--before without --last"},
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
        "CRLF is matched and shown without its '\\r'. Parallel across files and within a "
        "large one; the output "
        "order is always the walk order.",
    .usage =
        "seek [--root DIR] [--regex] [-i] [--word] [--max-count N] [--skip N] "
        "[--last N [--before K]] "
        "[--context N] [--witness] [--count | --files-with-matches] [--glob G]... [--hidden] "
        "[--no-ignore] [--max-line-bytes N] [--require-match] [--threads N] "
        "[--format ndjson|text] "
        "(PATTERN | -e PATTERN...) [PATH...]",
    .output = contract::Output::Stream,
    .schema = "seek.v1",
    .data_schema = tool_schema::kRecords,
    .end_schema = tool_schema::kEnd,
    .cuts = "max-count max-bytes last",
    .text = render::seek,
    .rules = kRules,
    .key_flags = "regex count last pattern",
    .examples = kExamples,
    .mcp_flags = "regex ignore-case context max-count last glob count",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

// --- the pattern --------------------------------------------------------------------------

std::unique_ptr<text::Matcher> one_matcher(const Args& a, const std::string& pattern) {
  if (!a.regex) return text::literal_matcher(pattern, a.icase, a.word);
  text::RegexError unused;  // check() has refused a pattern RE2 does not accept
  return text::regex_matcher(pattern, a.icase, a.word, unused);
}

// `set`: the -e patterns compiled once into one multi-pattern scan, shared by the workers
// (null: each pattern is searched on its own).
std::unique_ptr<text::Matcher> make_matcher(const Args& a,
                                            const std::shared_ptr<const text::PatternSet>& set) {
  if (a.patterns.empty()) {
    auto m = one_matcher(a, a.pattern);
    return set ? text::set_filtered(std::move(m), set) : std::move(m);
  }
  std::vector<std::unique_ptr<text::Matcher>> parts;
  for (const std::string& p : a.patterns) parts.push_back(one_matcher(a, p));
  return text::any_of(std::move(parts), set);
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
  if (ctx.given("before") && !ctx.given("last")) {
    contract::Error e = contract::make_error(
        "args.required-flag", "--before pages a --last answer back; give --last N with it.",
        Json::object({{"flag", "last"}, {"needed_by", "before"}}));
    e.hint = "--last N --before K: the last N matching lines before the K-th.";
    errs.push_back(std::move(e));
  }
  if (a.max_count == 0 && ctx.given("skip")) {
    contract::Error e = contract::make_error(
        "args.conflict", "--max-count 0 returns totals only, which --skip cannot page.",
        Json::object({{"flags", Json::array({"--max-count", "--skip"})}}));
    e.hint = "drop --skip: the totals are over everything searched.";
    e.repair = contract::Repair::retry(contract::remove_flag(ctx.argv(), ctx.flags_, "skip"));
    errs.push_back(std::move(e));
  }
}

// A large named file, as n parts (seek::Part) for the workers to share.
void push_parts(seek::Ordered& pool, os::Input& in, uint64_t n, os::SkipCounts& pushed) {
  auto file = std::make_shared<seek::SharedFile>();
  file->fd = std::move(in.named.fd);
  for (uint64_t k = 0; k < n; ++k) {
    std::unique_ptr<Slot> s = seek::part_slot(in.path, in.named.st, file, k, n);
    s->walk_skips = in.skipped - pushed;
    pushed = in.skipped;
    pool.push(std::move(s));
  }
}

Json run(const Args& a, contract::Context& ctx) {
  const unsigned cores =
      a.threads > 0 ? static_cast<unsigned>(a.threads)
                    : std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<seek::Worker> workers(cores);
  std::shared_ptr<const text::PatternSet> set;
  if (a.patterns.size() >= text::kSetMinPatterns)
    set = text::lazy_pattern_set(a.patterns,
                                 a.regex ? text::SetSyntax::Regex : text::SetSyntax::Literal,
                                 a.icase);
  // One regex without a literal that RE2's prefilter can search for: its lines from a set of it
  // alone (text::set_filtered), compiled as lazily as a -e set (its compiler's pages are the
  // same step in peak memory, taken only past 4 MiB passed over by RE2's own search).
  if (a.regex && a.patterns.empty() && !one_matcher(a, a.pattern)->long_filter())
    set = text::lazy_pattern_set({a.pattern}, text::SetSyntax::Regex, a.icase);
  for (auto& w : workers) w.matcher = make_matcher(a, set);

  Search cfg{a, ctx.format() == contract::Format::Text};
  cfg.mode = a.count ? Mode::Count : a.files ? Mode::Files : Mode::Lines;
  cfg.totals = a.max_count == 0;
  // matching lines worth finding in one file: to the window's end and one more, or with
  // --last to the end (or to --before and one more: the last line's after-context runs to it)
  const uint64_t before = a.before.value_or(UINT64_MAX);
  cfg.limit = a.last ? (before == UINT64_MAX ? before : before + 1) : a.skip + a.max_count + 1;
  cfg.workers = cores;
  Page page{a, ctx, cfg};
  seek::Worker helper;  // the main thread's, for a part of a walked file no worker has taken
  seek::Ordered pool(
      workers, [&](Slot& s, seek::Worker& w) { seek::search_file(cfg, s, w); },
      [&](Slot& s, seek::Piece& p) { return page.take(s, p); },
      [&](Slot& s) { return page.done(s); });
  cfg.pool = &pool;
  if (cfg.splits())
    pool.expand_with(
        [&](Slot& s) {
          std::vector<std::unique_ptr<Slot>> rest = seek::rest_of(s);
          if (!rest.empty() && !helper.matcher) helper.matcher = make_matcher(a, set);
          return rest;
        },
        helper);

  os::WalkOptions wo;
  wo.hidden = a.hidden;
  wo.no_ignore = a.no_ignore;
  wo.globs = a.globs;
  wo.fs_kind = true;
  os::Inputs inputs(ctx.root_fd(), a.paths, std::move(wo));
  os::SkipCounts pushed;  // the part of what was left out already handed to a slot
  os::Input in;
  while (!pool.stopped() && inputs.next(in)) {
    std::unique_ptr<Slot> s;
    switch (in.type) {
      case os::Input::Type::Error:
        s = seek::error_slot(std::move(in.error));
        break;
      case os::Input::Type::Named: {  // a file named is always searched, binary or not
        const uint64_t n = S_ISREG(in.named.st.st_mode)
                               ? cfg.parts(static_cast<uint64_t>(in.named.st.st_size))
                               : 1;
        if (n > 1) {
          push_parts(pool, in, n, pushed);
          continue;
        }
        s = std::make_unique<Slot>();
        s->path = std::move(in.path);
        s->named = true;
        s->st = in.named.st;
        s->fd = std::move(in.named.fd);
        break;
      }
      case os::Input::Type::Walked:
        s = std::make_unique<Slot>();
        s->path = std::move(in.path);
        s->entry = std::move(in.entry);
        break;
    }
    s->walk_skips = in.skipped - pushed;
    pushed = in.skipped;
    pool.push(std::move(s));
  }
  pool.finish();
  if (!pool.stopped()) page.skips += inputs.skipped() - pushed;
  if (page.tail) page.write_tail();

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
  Json end = Json::object(
      {{"complete", ok && !page.truncated},
       {"files", page.files},
       {"matches", matches},
       {"errors", ctx.errors().size()},
       {"truncated", page.truncated},
       {"next", !page.truncated ? Json()
                : page.tail       ? Json::object({{"before", page.shown.first}})
                                  : Json::object({{"skip", a.skip + page.emitted}})},
       {"cut", page.truncated ? Json(page.cut) : Json()},
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
