// edit.cpp — change lines named by their witnesses (TOOLS.md), all of a batch or none of it.
// Differs from `ed`/`sed -i Nc`: a line is named by a witness (a hash of its neighbourhood that
// a reader printed), not by a number that shifts under the caller's feet, so an edit made from
// a stale read is refused instead of landing on the wrong line; every witness is resolved on
// one snapshot under a lock before anything is written, the refusal carries fresh witnesses
// for the lines around each failure, and the file is replaced atomically with its BOM, line
// endings (new lines take the file's) and mode kept. The answer is the line diff.
#include "os/hash.h"
#include "os/open.h"
#include "os/place.h"
#include "runner/main.h"
#include "text/edits.h"
#include "tools/edit.schema.h"
#include "writer/edit_file.h"
#include "writer/table.h"
#include "writer/writer.h"
#include "tools/render/render.h"

namespace {

using contract::Json;

struct Args {
  std::string path;
  std::optional<std::string> if_sha256;
  bool dry_run = false;
  bool no_journal = false;
  bool stdin_edits = false;
  std::optional<std::string> edits_file;
  uint64_t max_bytes = 0;
  uint64_t max_diff_lines = 0;
  uint64_t max_diff_bytes = 0;
};

using contract::Kind;
using contract::Role;
constexpr contract::Flag<Args> kFlags[] = {
    writer::if_sha256<Args>("the file's content must hash to HEX (SHA-256) or nothing is written"),
    writer::dry_run<Args>("change nothing; resolve and check everything and answer with "
                          "the diff and planned_actions (exit 9)"),
    writer::no_journal<Args>(),
    {.name = "stdin", .kind = Kind::Bool, .bind = &Args::stdin_edits, .excludes = "edits-file",
     .help = "read the edits from standard input: a JSON list of {\"witness\":W,\"lines\":[...]}, "
             "each putting its lines in place of the line W names ([] deletes it; to insert, "
             "repeat that line with the new ones)"},
    {.name = "edits-file", .kind = Kind::Path, .role = Role::PathRead, .bind = &Args::edits_file,
     .value_name = "PATH", .help = "read the edits list (as for --stdin) from PATH"},
    writer::max_bytes<Args>("the largest file (and edits list) accepted (limit.input-too-large)"),
    writer::max_diff_lines<Args>(),
    writer::max_diff_bytes<Args>(),
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH", .role = Role::PathWrite, .bind = &Args::path, .help = "the file to change"},
};

// After writer::kReadWriteRules.
constexpr contract::Rule kOwnRules[] = {
    writer::kInputTooLarge,
    {"parse.json"},
    {"precondition.hash-mismatch"},
    {"precondition.stale-witness"},
    {"conflict.locked"},
};


constexpr contract::Example kExamples[] = {
    {"echo '[{\"witness\":\"hc949be\",\"lines\":[]}]' | edit --if-sha256 a57e447babbe0eb7adf7c6e38e3cfa0d9d1876644267b81600dfe933db43188c --stdin --dry-run src/main.c",
     "deletes the line that witness names; the dry run shows the diff, changing nothing (exit 9)"},
    {"echo '[{\"witness\":\"h000000\",\"lines\":[\"x\"]}]' | edit --if-sha256 a57e447babbe0eb7adf7c6e38e3cfa0d9d1876644267b81600dfe933db43188c --stdin src/main.c",
     "precondition.stale-witness with fresh witnesses around it; nothing written"},
};

constexpr auto kRules = writer::rules(writer::kReadWriteRules, kOwnRules);
constexpr auto kConcurrency =
    writer::take_turns("witnesses are resolved on the snapshot read under that lock");

const contract::Tool kTool{
    .name = "edit",
    .summary = "Replace, delete or insert lines named by their witnesses, all of a batch or "
               "none, atomically, and answer with the line diff.",
    .differs = "Unlike ed or sed -i it names lines by witnesses (hashes of their neighbourhood "
               "from peek --witness or seek --witness), not numbers, so a stale read is "
               "refused with fresh witnesses instead of editing the wrong line.",
    .usage = "edit [--root DIR] [--if-sha256 HEX] [--dry-run] (--stdin | --edits-file PATH) "
             "[--max-bytes N] [--max-diff-lines N] [--format json|text] PATH",
    .output = contract::Output::Document,
    .schema = "edit.v1",
    .data_schema = tool_schema::kData,
    .effects = contract::kReadFiles | contract::kWriteFiles | contract::kReadStdin,
    .reversibility = contract::Reversibility::IrreversibleBounded,
    .guarantees = "deterministic, atomic, all_or_nothing, mode_preserved, no_litter, "
                  "bounded_memory",
    .concurrency = kConcurrency,
    .text = render::edit,
    .rules = kRules,
    .key_flags = "stdin",
    .examples = kExamples,
    .mcp_flags = "stdin if-sha256 dry-run",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context&) {
  if (a.if_sha256 && !os::is_sha256_hex(*a.if_sha256)) errs.push_back(writer::bad_hex("if-sha256"));
  if (!a.stdin_edits && !a.edits_file)
    errs.push_back(contract::make_error(
        "args.required-flag", "the edits must come from --stdin or --edits-file PATH.",
        Json::object({{"flags", Json::array({"--stdin", "--edits-file"})}})));
}

// An input past --max-bytes; the retry raises the cap to `need` too (the target's size).
contract::Error too_large(std::string_view what, uint64_t size, bool exact, uint64_t max,
                          contract::Context& ctx, uint64_t need = 0) {
  return writer::too_large({.where = Json::object({{"source", Json::bytes(what)}}),
                            .what = contract::printable(what),
                            .bytes = size,
                            .exact = exact,
                            .max_bytes = max,
                            .need = need},
                           ctx);
}

Json run(const Args& a, contract::Context& ctx) {
  auto fail = [&](contract::Error e) {
    ctx.error(std::move(e));
    return Json(nullptr);
  };
  const std::string source = a.edits_file ? *a.edits_file : std::string("-");
  // Past --max-bytes, the retry raises the cap for the target too (its size from lstat,
  // nothing of it read), so one retry clears both.
  auto raw = writer::read_input(a.edits_file, a.max_bytes, ctx, [&](uint64_t size, bool exact) {
    if (!exact) return too_large("standard input", size, false, a.max_bytes, ctx);
    return too_large(source, size, true, a.max_bytes, ctx,
                     writer::file_size(ctx.root_fd(), a.path));
  });
  if (!raw) return nullptr;
  auto parsed = text::parse_line_edits(*raw);
  if (auto* pe = std::get_if<text::EditsError>(&parsed)) {
    if (pe->kind == text::EditsError::Kind::Syntax)
      return fail(contract::make_error(
          "parse.json", pe->message,
          Json::object({{"source", Json::bytes(source)}, {"offset", pe->offset}})));
    Json detail = Json::object({{"source", Json::bytes(source)}, {"index", pe->index}});
    if (!pe->field.empty()) detail.set("field", Json::bytes(pe->field));
    return fail(contract::make_error("args.bad-value", pe->message, std::move(detail)));
  }
  const auto& edits = std::get<std::vector<text::LineEdit>>(parsed);

  auto placed = os::open_place(ctx.root_fd(), a.path, os::Parents::Refuse);
  if (auto* e = std::get_if<contract::Error>(&placed)) return fail(std::move(*e));
  os::Place& place = std::get<os::Place>(placed);
  auto held = writer::lock_unless_dry(a.dry_run, place);
  if (auto* e = std::get_if<contract::Error>(&held)) return fail(std::move(*e));
  auto opened = writer::open_file(place, a.path);
  if (auto* e = std::get_if<contract::Error>(&opened)) return fail(std::move(*e));
  const auto& file = std::get<os::Opened>(opened);

  // Every witness resolved on one snapshot read under the lock, then the file written
  // streaming, never held whole: writer/edit_file.h.
  writer::Recorder journal(ctx, a.no_journal || a.dry_run);
  const writer::EditJob job{.path = a.path,
                            .if_sha256 = a.if_sha256,
                            .dry_run = a.dry_run,
                            .max_bytes = a.max_bytes,
                            .max_diff_lines = a.max_diff_lines,
                            .max_diff_bytes = a.max_diff_bytes,
                            .journal = &journal};
  auto done = writer::edit_file(job, place, file, edits, [&](uint64_t size) {
    return too_large(a.path, size, true, a.max_bytes, ctx);
  });
  if (auto* errs = std::get_if<std::vector<contract::Error>>(&done)) {
    for (contract::Error& e : *errs) ctx.error(std::move(e));
    return nullptr;
  }
  const writer::Edited& ed = std::get<writer::Edited>(done);
  Json data = Json::object({{"path", Json::bytes(a.path)},
                            {"changed", ed.changed},
                            {"edits", edits.size()},
                            {"before_sha256", ed.before},
                            {"after_sha256", ed.after},
                            {"diff", ed.diff},
                            {"diff_truncated", ed.diff_truncated},
                            {"cut", writer::diff_cut(ed.diff, ed.diff_truncated, a.max_diff_lines)}});
  if (a.dry_run)
    ctx.dry_run(writer::planned(place, a.path, ed.changed, ed.before, ed.after, ed.bytes));
  else
    journal.finish(data);
  os::close_at_exit(std::get<os::Opened>(opened).fd);
  return data;
}


}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
