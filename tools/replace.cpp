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
//
// Memory: one edit (--old/--new, or an edits file of one) is streamed: the file is read twice
// in 1 MiB windows and written to the temporary file in pieces, never held whole, and only the
// lines around the occurrences are diffed. A batch of edits applies each to the result of the
// one before, so it holds the text. Both are in writer/replace_file.h; matching works on the
// file's own bytes, the caller's texts put in the file's line-ending form (raw_form).
#include <algorithm>
#include <optional>

#include "mem/big_alloc.h"
#include "os/dir_lock.h"
#include "os/hash.h"
#include "os/open.h"
#include "os/place.h"
#include "os/temp_file.h"
#include "os/whole_file.h"
#include "runner/main.h"
#include "text/diff.h"
#include "text/edits.h"
#include "text/eol.h"
#include "text/near_miss.h"
#include "tools/replace.schema.h"
#include "writer/replace_file.h"
#include "writer/table.h"
#include "writer/writer.h"
#include "tools/render/render.h"

namespace {

using contract::Json;

struct Args {
  std::vector<std::string> paths;
  std::optional<std::string> old_text, new_text;
  uint64_t expect = 1;
  bool all = false;
  std::optional<std::string> edits_file;
  bool stdin_edits = false;
  std::vector<std::string> if_sha256;  // none, or one per PATH in order
  bool dry_run = false;
  bool no_journal = false;
  uint64_t max_bytes = 0;
  uint64_t max_diff_lines = 0;
  uint64_t max_diff_bytes = 0;
};

// One file's part of a call (writer::ReplaceJob), and where a call of several files, which
// checks each as a dry run first, collects its errors and planned actions.
struct Job {
  writer::ReplaceJob file;
  std::vector<contract::Error>* errors = nullptr;  // set: errors collected here
  Json* planned = nullptr;                         // set: planned actions appended here
};

void report(const Job& a, contract::Context& ctx, contract::Error e) {
  if (a.errors)
    a.errors->push_back(std::move(e));
  else
    ctx.error(std::move(e));
}

using contract::Kind;
using contract::Role;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "old", .kind = Kind::Text, .role = Role::Pattern, .bind = &Args::old_text,
     .value_name = "TEXT", .excludes = "edits-file stdin",
     .help = "the exact text to find (in a CRLF file, \\n means \\r\\n); never empty"},
    {.name = "new", .kind = Kind::Text, .role = Role::Content, .bind = &Args::new_text,
     .value_name = "TEXT", .excludes = "edits-file stdin",
     .help = "the text to put in its place (in a CRLF file, written with \\r\\n)"},
    {.name = "expect", .kind = Kind::Nat, .bind = &Args::expect, .value_name = "N",
     .fallback = "1", .ceiling = 1'000'000, .floor = 1, .excludes = "all edits-file stdin",
     .help = "how many occurrences there must be in each file (overlapping ones counted); any "
             "other count changes nothing (precondition.count-mismatch)"},
    {.name = "all", .kind = Kind::Bool, .bind = &Args::all, .excludes = "edits-file stdin",
     .help = "replace every occurrence, however many (at least one)", .widens = true},
    {.name = "edits-file", .kind = Kind::Path, .role = Role::PathRead, .bind = &Args::edits_file,
     .value_name = "PATH",
     .help = "a JSON list of {old, new, expect|all} applied in order, all or nothing"},
    {.name = "stdin", .kind = Kind::Bool, .bind = &Args::stdin_edits, .excludes = "edits-file",
     .help = "read the edits list (as --edits-file takes it) from standard input"},
    writer::if_sha256<Args>("the file's content must hash to HEX (SHA-256) or nothing is "
                            "written; with several PATHs, one per PATH in order"),
    writer::dry_run<Args>(),
    writer::no_journal<Args>(),
    writer::max_bytes<Args>("the largest file (and edits file) accepted (limit.input-too-large)"),
    writer::max_diff_lines<Args>(),
    writer::max_diff_bytes<Args>(),
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH", .role = Role::PathWrite, .max = contract::kMany, .bind = &Args::paths,
     .help = "the file to change; several: all are checked before any is written, then each "
             "is written atomically in turn (not one transaction: written says which were)"},
};

using contract::Repairable;
// After writer::kReadWriteRules (the args rows take the contract's places).
constexpr contract::Rule kOwnRules[] = {
    {"args.bad-value", Repairable::Sometimes},
    {"args.conflict", Repairable::Sometimes,
     "flags that exclude each other, --if-sha256 not one per PATH, or a PATH named twice"},
    writer::kInputTooLarge,
    {"parse.json"},
    {"precondition.hash-mismatch"},
    {"precondition.count-mismatch"},
    {"conflict.locked"},
};


constexpr contract::Example kExamples[] = {
    {"replace --old 'hello, %s' --new 'hi, %s' --dry-run src/main.c",
     "the diff it would make, changing nothing (exit 9)"},
    {"replace --old greet --new welcome src/main.c",
     "found twice, expected once: precondition.count-mismatch with each line, nothing written"},
};

constexpr auto kRules = writer::rules(writer::kReadWriteRules, kOwnRules);
constexpr auto kConcurrency =
    writer::take_turns("the read and the write are of one snapshot under that lock");

const contract::Tool kTool{
    .name = "replace",
    .summary = "Replace exact text that occurs the expected number of times, atomically, and "
               "answer with the line diff.",
    .differs = "Unlike sed -i it takes no regex and no escapes, refuses when the text occurs "
               "other than the expected number of times (counting overlaps), names every "
               "occurrence and the near misses, is idempotent (already_applied), and writes "
               "atomically under a lock keeping BOM, line endings and mode.",
    .usage = "replace [--root DIR] (--old TEXT --new TEXT [--expect N | --all] | --edits-file "
             "PATH | --stdin) [--if-sha256 HEX]... [--dry-run] [--max-bytes N] "
             "[--max-diff-lines N] [--format json|text] PATH...",
    .output = contract::Output::Document,
    .schema = "replace.v1",
    .data_schema = tool_schema::kData,
    .effects = contract::kReadFiles | contract::kWriteFiles | contract::kReadStdin,
    .reversibility = contract::Reversibility::IrreversibleBounded,
    .guarantees = "deterministic, idempotent, atomic, all_or_nothing, mode_preserved, "
                  "no_litter, bounded_memory",
    .concurrency = kConcurrency,
    .text = render::replace,
    .rules = kRules,
    .key_flags = "old new expect all",
    .examples = kExamples,
    .mcp_flags = "old new expect all if-sha256 dry-run",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

contract::Error bad_value(std::string flag, std::string message) {
  return contract::make_error("args.bad-value", std::move(message),
                              Json::object({{"flag", std::move(flag)}}));
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  for (const std::string& hex : a.if_sha256)
    if (!os::is_sha256_hex(hex)) {
      errs.push_back(writer::bad_hex("if-sha256"));
      break;
    }
  if (!a.if_sha256.empty() && a.if_sha256.size() != a.paths.size())
    errs.push_back(contract::make_error(
        "args.conflict",
        "--if-sha256 is one per PATH, in order: " + std::to_string(a.paths.size()) +
            " path(s) but " + std::to_string(a.if_sha256.size()) + " hash(es).",
        Json::object({{"flags", Json::array({"--if-sha256"})},
                      {"paths", a.paths.size()},
                      {"hashes", a.if_sha256.size()}})));
  // A file named twice would be checked twice against the same bytes and then written twice.
  // The retry names each once (offered when no --if-sha256 has to be paired anew).
  for (contract::Error& e : writer::named_twice(a.paths, ctx, a.if_sha256.empty(),
                                                "name each file once, with its own --if-sha256"))
    errs.push_back(std::move(e));
  // "-" is a file named "-" for every path flag; standard input is --stdin. The literal token
  // is refused with the retry that means it (./- still names the file).
  if (a.edits_file && *a.edits_file == "-") {
    const std::vector<std::string>& argv = ctx.argv();
    for (size_t i = 1; i < argv.size(); ++i) {
      if (argv[i] == "--") break;
      const bool joined = argv[i] == "--edits-file=-";
      const bool split = argv[i] == "--edits-file" && i + 1 < argv.size() && argv[i + 1] == "-";
      if (!joined && !split) continue;
      std::vector<std::string> fixed(argv.begin(), argv.begin() + static_cast<long>(i));
      fixed.push_back("--stdin");
      fixed.insert(fixed.end(), argv.begin() + static_cast<long>(i + (split ? 2 : 1)), argv.end());
      contract::Error e = bad_value("edits-file",
                                    "--edits-file - names a file called '-'; the edits list on "
                                    "standard input is --stdin.");
      e.hint = "use --stdin (or --edits-file ./- for a file named '-').";
      e.repair = contract::Repair::retry(std::move(fixed));
      errs.push_back(std::move(e));
      break;
    }
  }
  if (a.edits_file || a.stdin_edits) return;
  if (!a.old_text || !a.new_text) {
    errs.push_back(contract::make_error(
        "args.required-flag",
        "replace needs --old TEXT and --new TEXT, or --edits-file PATH, or --stdin.",
        Json::object({{"flags", Json::array({"--old", "--new", "--edits-file", "--stdin"})}})));
    return;
  }
  if (a.old_text->empty())
    errs.push_back(bad_value("old", "--old is empty: an empty text occurs everywhere."));
  else if (*a.old_text == *a.new_text)
    errs.push_back(bad_value("new", "--new equals --old: the change would change nothing."));
}

// The largest regular file among the targets (lstat, nothing read): a retry of --max-bytes
// for the edits list raises the cap enough for them too.
uint64_t largest_target(const Args& a, contract::Context& ctx) {
  uint64_t need = 0;
  for (const std::string& path : a.paths)
    need = std::max(need, writer::file_size(ctx.root_fd(), path));
  return need;
}

// The edits list (--edits-file, or --stdin), at most --max-bytes. The targets are capped too:
// past it, the retry raises the cap for the largest of them as well (their sizes from lstat,
// nothing of them read), so that one retry clears all.
std::optional<std::string> read_edits(const Args& a, contract::Context& ctx) {
  return writer::read_input(a.edits_file, a.max_bytes, ctx, [&](uint64_t size, bool exact) {
    if (!a.edits_file)
      return writer::too_large({.where = Json::object({{"source", "stdin"}}),
                                .what = "standard input",
                                .bytes = size,
                                .exact = exact,
                                .max_bytes = a.max_bytes,
                                .need = largest_target(a, ctx)},
                               ctx);
    return writer::too_large({.where = Json::object({{"path", Json::bytes(*a.edits_file)}}),
                              .what = "'" + contract::printable(*a.edits_file) + "'",
                              .bytes = size,
                              .say_exact = false,
                              .max_bytes = a.max_bytes,
                              .need = largest_target(a, ctx),
                              .larger = "the file"},
                             ctx);
  });
}

// What the call found and did, and (dry run) what it would do.
Json answer(const Job& job, const os::Place& place, contract::Context& ctx, writer::Replaced r) {
  const writer::ReplaceJob& a = job.file;
  Json cut = writer::diff_cut(r.diff, r.diff_truncated, a.max_diff_lines);
  Json data = Json::object({{"path", Json::bytes(a.path)},
                            {"changed", r.changed},
                            {"already_applied", !r.changed && r.already},
                            {"replacements", r.replacements},
                            {"before_sha256", r.before},
                            {"after_sha256", r.after},
                            {"diff", std::move(r.diff)},
                            {"diff_truncated", r.diff_truncated},
                            {"cut", std::move(cut)}});
  if (a.dry_run) {
    Json planned = writer::planned(place, a.path, r.changed, r.before, r.after, r.bytes);
    if (job.planned)
      for (const Json& step : planned.items()) job.planned->push(step);
    else
      ctx.dry_run(std::move(planned));
  }
  return data;
}

// The edits applied to one file (writer/replace_file.h), answered or reported.
Json apply(const Job& job, contract::Context& ctx, const os::Place& place, const os::Opened& file,
           const std::vector<text::ReplaceEdit>& edits, bool listed) {
  auto done = writer::replace_in_file(job.file, ctx, place, file, edits, listed);
  if (auto* err = std::get_if<contract::Error>(&done)) {
    report(job, ctx, std::move(*err));
    return nullptr;
  }
  return answer(job, place, ctx, std::move(std::get<writer::Replaced>(done)));
}

// The part of PATH number i.
writer::ReplaceJob file_job(const Args& a, size_t i, bool dry_run) {
  return {.path = a.paths[i],
          .if_sha256 = a.if_sha256.empty() ? std::nullopt : std::optional(a.if_sha256[i]),
          .dry_run = dry_run,
          .max_bytes = a.max_bytes,
          .max_diff_lines = a.max_diff_lines,
          .max_diff_bytes = a.max_diff_bytes,
          .must_be = std::nullopt};
}

Json run_one(const Args& a, contract::Context& ctx, const std::vector<text::ReplaceEdit>& edits) {
  auto fail = [&](contract::Error e) {
    ctx.error(std::move(e));
    return Json(nullptr);
  };
  Job job{.file = file_job(a, 0, a.dry_run)};
  writer::Recorder journal(ctx, a.no_journal || a.dry_run);
  job.file.journal = &journal;
  auto placed = os::open_place(ctx.root_fd(), job.file.path, os::Parents::Refuse);
  if (auto* e = std::get_if<contract::Error>(&placed)) return fail(std::move(*e));
  os::Place& place = std::get<os::Place>(placed);
  auto held = writer::lock_unless_dry(a.dry_run, place);
  if (auto* e = std::get_if<contract::Error>(&held)) return fail(std::move(*e));
  auto opened = writer::open_file(place, job.file.path);
  if (auto* e = std::get_if<contract::Error>(&opened)) return fail(std::move(*e));
  Json data =
      apply(job, ctx, place, std::get<os::Opened>(opened), edits, a.edits_file || a.stdin_edits);
  if (!a.dry_run && !data.is_null()) journal.finish(data);
  os::close_at_exit(std::get<os::Opened>(opened).fd);
  return data;
}

// Several files. Every file is checked first, under the locks of all their directories: each
// is run as a dry run (its errors and planned actions kept aside), so a count, a hash or an
// open that fails anywhere writes nothing. Then each changed file is written in PATH order,
// atomically, required to still hash as it was checked; a write that fails stops the batch,
// and `written` says which landed.
Json run_many(const Args& a, contract::Context& ctx, const std::vector<text::ReplaceEdit>& edits) {
  const bool listed = a.edits_file || a.stdin_edits;
  struct Item {
    Job job;
    std::optional<os::Place> place;
    std::vector<contract::Error> errors;
    Json planned = Json::array();
    Json data;
    bool written = false;
  };
  std::vector<Item> items(a.paths.size());
  for (size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    it.job = Job{.file = file_job(a, i, true), .errors = &it.errors, .planned = &it.planned};
    auto placed = os::open_place(ctx.root_fd(), it.job.file.path, os::Parents::Refuse);
    if (auto* e = std::get_if<contract::Error>(&placed))
      it.errors.push_back(std::move(*e));
    else
      it.place.emplace(std::move(std::get<os::Place>(placed)));
  }
  // Every directory locked once; declared after the items: released before they close. Two
  // spellings of one name (an absolute and a relative path without --root) would be checked
  // twice against the same bytes and the second write would then find the first's: refused
  // as a path named twice, and then nothing is read. (Two hard links are two names: each is
  // replaced, as one call each would.)
  std::vector<const os::Place*> places;
  for (const Item& it : items) places.push_back(it.place ? &*it.place : nullptr);
  auto held = writer::hold_all(places, a.paths, a.dry_run, {"the file ", "name each file once"});
  if (auto* e = std::get_if<contract::Error>(&held)) {
    ctx.error(std::move(*e));
    return nullptr;
  }
  const bool twice = std::get<writer::Held>(held).any_twice;
  for (size_t i = 0; i < items.size(); ++i)
    if (auto& e = std::get<writer::Held>(held).twice[i]) items[i].errors.push_back(std::move(*e));
  for (Item& it : items) {
    if (!it.place || twice) continue;
    auto opened = writer::open_file(*it.place, it.job.file.path);
    if (auto* e = std::get_if<contract::Error>(&opened)) {
      it.errors.push_back(std::move(*e));
      continue;
    }
    it.data = apply(it.job, ctx, *it.place, std::get<os::Opened>(opened), edits, listed);
  }

  auto answer_all = [&] {
    Json files = Json::array();
    uint64_t changed = 0, written = 0, replacements = 0;
    for (const Item& it : items) {
      if (it.data.is_null()) continue;
      Json one = it.data;
      one.set("written", it.written);
      changed += one.get("changed")->as_bool() ? 1 : 0;
      written += it.written ? 1 : 0;
      replacements += one.get("replacements")->as_uint();
      files.push(std::move(one));
    }
    return Json::object({{"files", std::move(files)},
                         {"files_changed", changed},
                         {"files_written", written},
                         {"replacements", replacements}});
  };
  // A file too large for --max-bytes is retried with the cap the largest of them needs, so
  // the one retry clears them all.
  uint64_t need = 0;
  bool refused = false;
  for (const Item& it : items)
    for (const contract::Error& e : it.errors) {
      refused = true;
      if (e.rule == "limit.input-too-large")
        need = std::max(need, e.detail.get("bytes")->as_uint());
    }
  if (refused) {
    for (Item& it : items)
      for (contract::Error& e : it.errors) {
        if (e.rule == "limit.input-too-large" && need <= writer::kMaxBytesCeiling)
          writer::retry_max_bytes(e, need, true, "", ctx);
        ctx.error(std::move(e));
      }
    return answer_all();  // the files that passed their checks; none written
  }
  if (a.dry_run) {
    Json planned = Json::array();
    for (const Item& it : items)
      for (const Json& step : it.planned.items()) planned.push(step);
    ctx.dry_run(std::move(planned));
    return answer_all();
  }
  writer::Recorder journal(ctx, a.no_journal);  // every file of the call: one entry
  for (Item& it : items) {
    if (!it.data.get("changed")->as_bool()) continue;
    Job job = it.job;
    job.file.journal = &journal;
    job.file.dry_run = false;
    job.planned = nullptr;
    job.file.must_be = it.data.get("before_sha256")->str();
    std::vector<contract::Error> errors;
    job.errors = &errors;
    auto opened = writer::open_file(*it.place, job.file.path);
    if (auto* e = std::get_if<contract::Error>(&opened)) errors.push_back(std::move(*e));
    Json data = errors.empty()
                    ? apply(job, ctx, *it.place, std::get<os::Opened>(opened), edits, listed)
                    : Json(nullptr);
    if (!errors.empty() || data.is_null()) {
      for (contract::Error& e : errors) ctx.error(std::move(e));
      break;
    }
    os::close_at_exit(std::get<os::Opened>(opened).fd);
    it.data = std::move(data);
    it.written = true;
  }
  Json all = answer_all();
  journal.finish(all);
  return all;
}

Json run(const Args& a, contract::Context& ctx) {
  auto fail = [&](contract::Error e) {
    ctx.error(std::move(e));
    return Json(nullptr);
  };
  std::vector<text::ReplaceEdit> edits;
  if (a.edits_file || a.stdin_edits) {
    auto raw = read_edits(a, ctx);
    if (!raw) return nullptr;
    const Json where = a.edits_file ? Json::object({{"path", Json::bytes(*a.edits_file)}})
                                    : Json::object({{"source", "stdin"}});
    auto parsed = text::parse_replace_edits(*raw);
    if (auto* pe = std::get_if<text::EditsError>(&parsed)) {
      Json detail = where;
      if (pe->kind == text::EditsError::Kind::Syntax) {
        detail.set("offset", pe->offset);
        return fail(contract::make_error("parse.json", pe->message, std::move(detail)));
      }
      detail.set("index", pe->index);
      if (!pe->field.empty()) detail.set("field", Json::bytes(pe->field));
      return fail(contract::make_error("args.bad-value", pe->message, std::move(detail)));
    }
    edits = std::move(std::get<std::vector<text::ReplaceEdit>>(parsed));
  } else {
    edits.push_back({*a.old_text, *a.new_text, a.expect, a.all});
  }
  if (a.paths.size() == 1) return run_one(a, ctx, edits);
  return run_many(a, ctx, edits);
}


}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
