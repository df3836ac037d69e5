// write.cpp — create or replace a whole file, atomically and only as the caller believes it to
// be. Differs from `cp`, `tee` and `>`: no blind overwrite (--create or --if-sha256 says what
// the caller expects there, checked under a lock), never a partial file whatever kills it
// (temporary file, fsync, rename, fsync of the directory), the mode kept, no link followed,
// nothing written outside --root, and the answer is the line diff of what changed.
//
// Decisions:
//  * Already applied is changed:false, exit 0: the file already holds exactly the new bytes,
//    whether its hash matched --if-sha256 or not, and for --create when the file exists with
//    exactly these bytes (the retry of a create that landed). Any other existing content is
//    conflict.exists / precondition.hash-mismatch with detail.actual_sha256, repair none.
//  * The precondition is checked under the directory lock (os/dir_lock.h says why there), on the
//    descriptor the hash is read from; a dry run takes no lock and makes no mutating call.
//  * A new file is 0644 less the umask; a replaced one keeps its permission bits and sticky
//    bit (set-id bits do not survive a content change) and, where the OS allows, its owner.
//  * --parents only with --create (a file that must exist has its directories already);
//    directories made by a call that then fails are removed again (best effort).
//  * The content is held in memory (--max-bytes, ceiling 256 MiB), and so is the file it
//    replaces when it is no larger, for the diff; a larger one is hashed in chunks and diff is
//    null. Each is read once into huge-page buffers (mem::Bytes); a file is hashed on a
//    second thread once read (a pipe's content as it arrives; an old file too large to keep,
//    piece by piece), so that on two cores the content's hash overlaps the temporary file's
//    writing and the old file's hash (and the journal's comparison with a blob of it) the
//    diff. The precondition is judged once both are known; the diff is then thrown away if
//    it fails.
//  * The temporary file is written (and its writeback started) before the file it replaces is
//    read, and fsynced on a second thread while the diff is computed, so the device and the
//    CPU work at the same time; it is renamed only after both.
//  * Line endings and BOM are the file's unless the caller says otherwise (TOOLS.md: what
//    peek shows of a CRLF file is written back CRLF). --eol keep: replacing a CRLF file, each
//    '\n' without a '\r' before it gets one (a "\r\n" is not doubled, a lone '\r' stays);
//    any other file, and a new one, is written as given. --bom keep: a BOM on the old file is
//    put back when the content has none. keep never rewrites binary content (a NUL in its
//    first 8 KiB, as peek judges a file): line endings are a notion of text. raw is the
//    content byte for byte. --content-sha256 is of the content as given (what
//    the caller holds); before/after_sha256 are of the bytes in the file. The rewrite can
//    grow the content to 2 * --max-bytes + 3 bytes at most; it is made in one buffer sized
//    up front, and the content as given is let go once it is made.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <future>

#include "mem/big_alloc.h"
#include "os/dir_lock.h"
#include "os/hash.h"
#include "os/later.h"
#include "os/open.h"
#include "os/place.h"
#include "os/temp_file.h"
#include "os/whole_file.h"
#include "runner/main.h"
#include "text/diff.h"
#include "tools/render/render.h"
#include "tools/write.schema.h"
#include "tools/write/content.h"
#include "writer/journal.h"
#include "writer/table.h"
#include "writer/writer.h"
#ifdef TACK_TEST_HOOKS
#include <fcntl.h>

#include <cstdlib>

#include "os/write_error.h"
#endif

namespace {

using contract::Json;

struct Args {
  std::string path;
  bool create = false;
  std::optional<std::string> if_sha256;
  std::optional<std::string> content_sha256;
  bool parents = false;
  bool dry_run = false;
  bool no_journal = false;
  uint64_t max_bytes = 0;
  uint64_t max_diff_lines = 0;
  uint64_t max_diff_bytes = 0;
  bool stdin_content = false;
  std::optional<std::string> content_file;
  std::string eol;
  std::string bom;
};

constexpr size_t kBinaryProbe = 8192;  // a NUL in the first 8 KiB: binary content, kept raw

using contract::Kind;
using contract::Role;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "create",
     .kind = Kind::Bool,
     .bind = &Args::create,
     .excludes = "if-sha256",
     .help = "the file must not exist yet (checked under the lock; the final rename refuses "
             "to replace a name that appeared meanwhile)",
     .widens = true},
    writer::if_sha256<Args>(
        "the file must exist and its content must hash to HEX (SHA-256, as read)"),
    {.name = "content-sha256",
     .kind = Kind::Text,
     .bind = &Args::content_sha256,
     .value_name = "HEX",
     .help = "the new content, as given (before --eol/--bom), must hash to HEX, or nothing is "
             "written (precondition.content-mismatch)"},
    {.name = "parents",
     .kind = Kind::Bool,
     .bind = &Args::parents,
     .help = "with --create, make missing directories beneath the root (listed in "
             "parents_created)",
     .widens = true},
    writer::dry_run<Args>(),
    writer::no_journal<Args>(),
    writer::max_bytes<Args>("the largest content accepted (limit.input-too-large); the file "
                            "replaced is diffed when it is no larger either (else diff is null)",
                            0),
    writer::max_diff_lines<Args>("the most diff lines listed; past it diff_truncated is true, "
                                 "and the added/removed counts stay whole"),
    writer::max_diff_bytes<Args>(),
    {.name = "stdin",
     .kind = Kind::Bool,
     .bind = &Args::stdin_content,
     .excludes = "content-file",
     .help = "read the new content from standard input"},
    {.name = "content-file",
     .kind = Kind::Path,
     .role = Role::PathRead,
     .bind = &Args::content_file,
     .value_name = "PATH",
     .help = "read the new content from PATH (beneath the root)"},
    {.name = "eol",
     .kind = Kind::Choice,
     .bind = &Args::eol,
     .value_name = "EOL",
     .fallback = "keep",
     .choices = "keep|lf|crlf|raw",
     .help = "line endings written: keep (a CRLF file stays CRLF), lf, crlf, or raw (as given)"},
    {.name = "bom",
     .kind = Kind::Choice,
     .bind = &Args::bom,
     .value_name = "BOM",
     .fallback = "keep",
     .choices = "keep|add|remove|raw",
     .help = "UTF-8 BOM written: keep (the old file's, if the content has none), add, remove, "
             "or raw (as given)"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH",
     .role = Role::PathWrite,
     .bind = &Args::path,
     .help = "the file to create or replace"},
};

// After writer::kReadWriteRules.
constexpr contract::Rule kOwnRules[] = {
    {"io.rename-unsupported"},
    writer::kInputTooLarge,
    {"precondition.required"},
    {"precondition.hash-mismatch"},
    {"precondition.content-mismatch"},
    {"conflict.exists"},
    {"conflict.locked"},
};


constexpr contract::Example kExamples[] = {
    {"echo draft | write --create --stdin todo.md",
     "creates todo.md; never replaces a file that exists"},
    {"echo 'first note' | write --if-sha256 bab4f8abb8065f135949033c4bc1a607cdd8380ae89ae831b42a59f6dcd40389 --stdin --dry-run notes.txt",
     "the diff, kept in the file's CRLF; nothing written (exit 9)"},
};

constexpr auto kRules = writer::rules(writer::kReadWriteRules, kOwnRules);
constexpr auto kConcurrency =
    writer::take_turns("of two with the same --if-sha256 exactly one wins");

const contract::Tool kTool{
    .name = "write",
    .summary =
        "Create or replace a whole file atomically, only when it is what the caller says "
        "(--create or --if-sha256), and answer with the line diff.",
    .differs =
        "Unlike cp, tee or a shell redirection it never overwrites blindly, never leaves "
        "a partial file (temporary file, fsync, rename), keeps the mode, follows no "
        "symbolic link, and reports the diff of what it changed.",
    .usage =
        "write [--root DIR] (--create | --if-sha256 HEX) [--content-sha256 HEX] [--parents] "
        "[--dry-run] [--max-bytes N] [--max-diff-lines N] [--eol keep|lf|crlf|raw] "
        "[--bom keep|add|remove|raw] (--stdin | --content-file PATH) [--format json|text] PATH",
    .output = contract::Output::Document,
    .schema = "write.v1",
    .data_schema = tool_schema::kData,
    .effects = contract::kReadFiles | contract::kWriteFiles | contract::kReadStdin,
    .reversibility = contract::Reversibility::IrreversibleBounded,
    .guarantees =
        "deterministic, idempotent, atomic, no_blind_overwrite, mode_preserved, "
        "no_litter, bounded_memory",
    .concurrency = kConcurrency,
    .text = render::write,
    .rules = kRules,
    .key_flags = "create stdin",
    .examples = kExamples,
    .mcp_flags = "create if-sha256 stdin dry-run",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  for (auto [flag, value] :
       {std::pair{"if-sha256", &a.if_sha256}, std::pair{"content-sha256", &a.content_sha256}}) {
    if (*value && !os::is_sha256_hex(**value)) errs.push_back(writer::bad_hex(flag, &**value));
  }
  if (!a.stdin_content && !a.content_file && !ctx.given("stdin") && !ctx.given("content-file")) {
    errs.push_back(contract::make_error(
        "args.required-flag", "the content must come from --stdin or --content-file PATH.",
        Json::object({{"flags", Json::array({"--stdin", "--content-file"})}})));
  }
  if (!a.create && !a.if_sha256) {
    contract::Error e = contract::make_error(
        "precondition.required",
        "write needs --create (the file must not exist) or --if-sha256 HEX (its current hash); "
        "nothing was read.",
        Json::object({{"flags", Json::array({"--create", "--if-sha256"})}}));
    e.hint = "read the file first (peek or digest) and pass its hash with --if-sha256.";
    errs.push_back(std::move(e));
  }
}

contract::Error exists_error(const os::Place& place, const std::string& actual) {
  contract::Error e = contract::make_error(
      "conflict.exists",
      "'" + contract::printable(place.path) + "' exists already, so --create refuses it.",
      Json::object({{"path", Json::bytes(place.path)}, {"actual_sha256", actual}}));
  e.repair = contract::Repair::none(
      "the file exists with other content: read it, then replace it with --if-sha256 "
      "actual_sha256 if that is still what you want");
  return e;
}

Json run(const Args& a, contract::Context& ctx) {
  auto fail = [&](contract::Error e) {
    ctx.error(std::move(e));
    return Json(nullptr);
  };
#ifdef TACK_TEST_HOOKS
  // The test build (build/fixture/write) only: create this path as it stands, past every check
  // of the tool's own, so that only the kernel's ruleset stands in the way; its refusal is
  // answered as any failed write is.
  if (const char* past = getenv("TACK_TEST_WRITE_PAST_CHECKS")) {
    int fd = open(past, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return fail(os::write_error(errno, past, "create"));
    close(fd);
  }
#endif
  std::optional<write_tool::Content> read =
      write_tool::read_content(a.content_file, a.max_bytes, ctx);
  if (!read) return nullptr;
  std::string_view content = read->bytes.view();
  if (a.content_sha256 && os::lower_hex(*a.content_sha256) != read->sha256()) {
    contract::Error e =
        contract::make_error("precondition.content-mismatch",
                             "the content does not hash to --content-sha256; nothing was written.",
                             Json::object({{"expected", os::lower_hex(*a.content_sha256)},
                                           {"actual_sha256", read->sha256()},
                                           {"bytes", content.size()}}));
    e.repair = contract::Repair::none("the content is not what the caller said it is");
    return fail(std::move(e));
  }
  const std::optional<std::string> expect =
      a.if_sha256 ? std::optional(os::lower_hex(*a.if_sha256)) : std::nullopt;

  // Missing directories are made only for a file that is to be created.
  os::Parents parents = !(a.parents && a.create) ? os::Parents::Refuse
                        : a.dry_run              ? os::Parents::Plan
                                                 : os::Parents::Make;
  auto placed = os::open_place(ctx.root_fd(), a.path, parents);
  if (auto* e = std::get_if<contract::Error>(&placed)) return fail(std::move(*e));
  os::Place& place = std::get<os::Place>(placed);
  std::optional<os::TempFile> tmp;  // the new content, written before the diff (see below)
  auto fail_undo = [&](contract::Error e) {
    tmp.reset();  // its name goes first, so the directories it was made in are empty again
    os::undo_parents(place);
    return fail(std::move(e));
  };

  auto held = writer::lock_unless_dry(a.dry_run, place);
  if (auto* e = std::get_if<contract::Error>(&held)) return fail_undo(std::move(*e));

  auto looked = os::look(place);
  if (auto* e = std::get_if<contract::Error>(&looked)) return fail_undo(std::move(*e));
  const os::Entry& entry = std::get<os::Entry>(looked);
  using K = os::Entry::Kind;
  if (entry.kind != K::Missing && entry.kind != K::File)
    return fail_undo(os::wrong_kind(place, entry));

  std::optional<std::string> before;  // the current hash, when the file exists
  text::EolTally old_eols;            // the current line endings and BOM, when it exists
  std::string old_head;
  mem::Bytes old_bytes;
  bool old_kept = true;
  std::optional<os::Opened> old_file;  // kept open: the journal reads the earlier content from it
  os::CommitOptions copt;  // a new file: never over a name that appeared meanwhile
  copt.replace = os::Replace::Never;
  if (entry.kind == K::Missing) {
    if (expect) return fail(os::errno_error(ENOENT, a.path, "open"));
  } else {
    auto opened = os::open_existing(place);
    if (auto* e = std::get_if<contract::Error>(&opened)) return fail(std::move(*e));
    copt = writer::replacing(old_file.emplace(std::move(std::get<os::Opened>(opened))).st);
  }

  // The bytes to write: the content as given, its line endings and BOM settled (see top).
  // --eol/--bom keep follow the file being replaced, known for sure only once it is read
  // whole; the temporary file is written before that, on a guess from its first bytes.
  const bool text_content = content.substr(0, kBinaryProbe).find('\0') == std::string_view::npos;
  // keep follows the file being replaced; --create has none (a file found there is another's,
  // or this call's own when it landed before, and the comparison is with the bytes as given).
  const bool keep = old_file && !a.create && text_content;
  auto settle = [&](bool old_crlf, bool old_bom) {
    using text::BomWrite;
    using text::EolWrite;
    const EolWrite eol = a.eol == "lf"                            ? EolWrite::Lf
                         : a.eol == "crlf"                        ? EolWrite::Crlf
                         : a.eol == "keep" && keep && old_crlf ? EolWrite::Crlf
                                                                  : EolWrite::AsGiven;
    const BomWrite bom = a.bom == "add"                          ? BomWrite::Add
                         : a.bom == "remove"                     ? BomWrite::Remove
                         : a.bom == "keep" && keep && old_bom ? BomWrite::Add
                                                                : BomWrite::AsGiven;
    return std::pair{eol, bom};
  };
  const std::string_view given = content;
  mem::Bytes rewritten;
  // The hash of `content`; while `content` is the given bytes, read->sha256() gives it (taken
  // once the diff is made: a file's content is hashed on a second thread meanwhile).
  std::string after;
  bool after_given = true;
  std::pair<text::EolWrite, text::BomWrite> made_as{};
  // Makes `content` the given bytes as `how` settles them, and `after` their hash.
  auto make = [&](std::pair<text::EolWrite, text::BomWrite> how) -> bool {
    made_as = how;
    const text::Rewrite planned = text::rewritten_size(given, how.first, how.second);
    if (!planned.changed) {
      content = given;
      after_given = true;
      return true;
    }
    after_given = false;
    rewritten.set_size(0);  // a second settling: nothing of the first to keep
    if (!rewritten.reserve(static_cast<size_t>(planned.size))) return false;
    rewritten.set_size(text::rewrite(given, how.first, how.second, rewritten.data()));
    content = rewritten.view();
    os::Sha hash;
    hash.update(content);
    after = hash.hex();
    return true;
  };
  // The guess is made from the old file's first bytes: they hold its BOM, and one '\n' without
  // a '\r' before it settles that it is not CRLF (CRLF: every '\n' follows a '\r'). Then the
  // guess is sure, and the fsync can start before the whole file is read.
  bool head_crlf = false, head_bom = false, sure = !keep;
  if (keep) {
    char buf[4096];
    // A failed read only weakens the guess: the whole read below reports the error.
    const ssize_t n = pread(old_file->fd.get(), buf, sizeof buf, 0);
    const std::string_view head(buf, n > 0 ? static_cast<size_t>(n) : 0);
    head_bom = text::has_bom(head);
    bool bare = false;
    for (size_t at = head.find('\n'); at != std::string_view::npos && !bare;
         at = head.find('\n', at + 1))
      bare = at == 0 || head[at - 1] != '\r';
    head_crlf = !bare && head.find('\n') != std::string_view::npos;
    sure = bare && (head.size() >= 3 || head.size() == static_cast<size_t>(old_file->st.st_size));
  }
  if (!make(settle(head_crlf, head_bom)))
    return fail_undo(os::errno_error(ENOMEM, a.path, "write"));

  // The temporary file is written, and the kernel asked to start writing it to the device,
  // before the file it replaces is read and hashed, and its fsync runs on a second thread
  // meanwhile and while the diff is found: the device works while the CPU does. Nothing is
  // renamed until commit(), after the precondition held and the diff is made; an error on the
  // way, or a file that already holds these bytes, removes it (having waited for an fsync it
  // did not need: the price of the rare path). A wrong guess about --eol/--bom keep writes it
  // again; where the guess is not sure, the fsync waits for the whole old file.
  auto write_tmp = [&]() -> std::optional<contract::Error> {
    if (auto e = tmp->write(content)) return e;
    tmp->start_writeback();
    return std::nullopt;
  };
  if (!a.dry_run) {
    auto made = os::TempFile::create(place, copt);
    if (auto* e = std::get_if<contract::Error>(&made)) return fail_undo(std::move(*e));
    tmp.emplace(std::move(std::get<os::TempFile>(made)));
    if (auto e = write_tmp()) return fail_undo(std::move(*e));
    if (sure) tmp->sync_ahead();
  }

  // `before`, and writer::blob_holding() of the old bytes: found on other threads during the
  // diff.
  std::future<std::string> hashing_old;
  std::future<uint64_t> probing;
  if (old_file) {
    // Read once and kept for the diff when it is no larger than --max-bytes; then hashed on a
    // second thread while this one diffs. A larger file is hashed piece by piece as it
    // arrives (and one that grew past the cap while read is hashed again from its start).
    const bool hash_later = static_cast<uint64_t>(old_file->st.st_size) <= a.max_bytes;
    os::Sha hash;
    auto read_old = os::read_whole(old_file->fd.get(), a.path, &old_bytes, a.max_bytes,
                                   [&](std::string_view piece) {
                                     if (!hash_later) hash.update(piece);
                                     old_eols.add(piece);
                                     if (old_head.size() < 3)
                                       old_head += piece.substr(0, 3 - old_head.size());
                                   });
    if (auto* e = std::get_if<contract::Error>(&read_old)) return fail(std::move(*e));
    old_kept = std::get<os::WholeFile>(read_old).kept;
    if (!hash_later) {
      before = hash.hex();
    } else if (old_kept) {
      hashing_old = os::sha256_later(old_bytes.view());
      // The journal's blob of these bytes, if it has one, is compared with them on a thread
      // of its own meanwhile (stage() then only checks it is still the same file). It is
      // named by --if-sha256: whenever a change is journaled the old bytes hash to it (other
      // bytes fail the precondition, or already are the content and nothing changes).
      // (A smaller file's blob is compared by stage() itself: no thread pays for it.)
      if (!a.dry_run && !a.no_journal && expect && old_bytes.size() >= os::kOwnThreadBytes)
        probing = os::later(true, [root = ctx.root_fd(), name = *expect, view = old_bytes.view()] {
          return writer::blob_holding(root, name, view);
        });
    } else {
      auto hashed = os::sha256_fd(old_file->fd.get(), a.path);
      if (auto* e = std::get_if<contract::Error>(&hashed)) return fail(std::move(*e));
      before = std::get<os::Hashed>(hashed).hex;
    }
    const auto how = settle(old_eols.result() == text::Eol::Crlf, text::has_bom(old_head));
    if (how != made_as) {
      if (!make(how)) return fail_undo(os::errno_error(ENOMEM, a.path, "write"));
      if (tmp) {
        if (auto e = tmp->restart()) return fail_undo(std::move(*e));
        if (auto e = write_tmp()) return fail_undo(std::move(*e));
      }
    }
  }
  if (content.data() != given.data()) {
    (void)read->sha256();  // the given bytes are let go: no thread may still be reading them
    read->bytes.release();
  }
  text::EolTally new_eols;
  new_eols.add(content);

  // The diff is made while the hashes are found; it is thrown away if the precondition fails.
  // Where nothing changes (the hashes agree) the two sides are the same bytes with the same
  // line endings, and diff_lines finds them equal at once.
  text::DiffOptions opt;
  opt.max_lines = a.max_diff_lines;
  opt.max_bytes = a.max_diff_bytes;
  Json diff = nullptr;
  bool truncated = false;
  if (old_kept) {
    text::Diff d =
        text::diff_lines(old_bytes.view(), content, opt, old_eols.result(), new_eols.result());
    truncated = d.truncated;
    diff = text::diff_json(d);
  } else {
    truncated = true;
  }
  if (hashing_old.valid()) before = hashing_old.get();
  if (after_given) after = read->sha256();

  if (before) {
    // Already applied (a retry whose first call landed): the same final state, changed:false.
    const bool landed = *before == after;
    if (!landed) {
      if (!expect) return fail(exists_error(place, *before));
      if (*before != *expect) return fail(os::hash_mismatch(a.path, *expect, *before));
    }
  }
  const bool changed = !before || *before != after;
  if (!changed) tmp.reset();
  if (tmp) tmp->sync_ahead();

  // The file replaced is larger than --max-bytes: there is no diff at all.
  Json cut = old_kept ? writer::diff_cut(diff, truncated, a.max_diff_lines) : Json("max-bytes");
  Json data = Json::object({{"path", Json::bytes(a.path)},
                            {"changed", changed},
                            {"created", !before},
                            {"bytes", content.size()},
                            {"eol", text::eol_name(new_eols.result())},
                            {"bom", text::has_bom(content)},
                            {"before_sha256", before ? Json(*before) : Json()},
                            {"after_sha256", after},
                            {"diff", std::move(diff)},
                            {"diff_truncated", truncated},
                            {"cut", std::move(cut)}});

  if (a.dry_run) {
    Json planned = Json::array();
    for (auto& d : place.missing)
      planned.push(Json::object({{"op", "mkdir"}, {"path", Json::bytes(d)}}));
    if (changed) {
      Json steps = os::planned_write(place, a.path, before, after, content.size());
      for (const Json& step : steps.items()) planned.push(step);
    }
    if (!place.missing.empty()) data.set("parents_created", writer::paths_json(place.missing));
    ctx.dry_run(std::move(planned));
    return data;
  }

  writer::Recorder journal(ctx, a.no_journal);
  if (tmp) {
    // The record first (fsynced), then the change: the earlier content as a blob (what a
    // whole-file write takes out is all of it).
    writer::Change c;
    if (before) {
      c = writer::replaced_file(a.path, old_file->st, *before, after, *data.get("diff"));
      c.restore = writer::Change::Restore::Blob;
      const std::string_view earlier = old_bytes.view();
      if (old_kept) c.content = &earlier;
      c.source_fd = old_file->fd.get();
      if (probing.valid() && *before == expect) c.blob_seen = probing.get();
      if (auto e = journal.stage(std::move(c))) return fail_undo(std::move(*e));
    } else {
      c.kind = "create";
      c.path = a.path;
      c.after = after;
      if (const Json* d = data.get("diff"); d && !d->is_null()) c.added = d->get("added")->as_uint();
      if (auto e = journal.stage(std::move(c))) return fail_undo(std::move(*e));
    }
    if (auto e = tmp->commit()) {
      if (e->rule == "conflict.exists") {
        // A writer that takes no lock made the name first: report what it wrote.
        std::string actual;
        auto opened = os::open_existing(place);
        if (auto* f = std::get_if<os::Opened>(&opened)) {
          auto hashed = os::sha256_fd(f->fd.get(), a.path);
          if (auto* h = std::get_if<os::Hashed>(&hashed)) actual = h->hex;
        }
        if (!actual.empty()) return fail_undo(exists_error(place, actual));
      }
      return fail_undo(std::move(*e));
    }
  }
  if (!place.created.empty()) data.set("parents_created", writer::paths_json(place.created));
  journal.finish(data);
  if (old_file) os::close_at_exit(old_file->fd);
  return data;
}


}  // namespace

int main(int argc, char** argv) {
  // Middle-sized blocks come from the heap and stay there when freed, so a later phase (the
  // diff) reuses pages an earlier one already touched instead of faulting in fresh ones; the
  // large ones are huge-page buffers of their own (mem::Bytes, mem::BigVector).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
