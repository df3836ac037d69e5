// move.cpp — rename beneath the root, never over anything; and remove by renaming to a
// tombstone. Differs from `mv`: it never replaces an existing name (renameat2
// RENAME_NOREPLACE, so not even a racing creator is overwritten), never copies across
// filesystems, moves a symbolic link as itself, follows no link in either path, can require
// the hash the caller read (--if-sha256), and `--remove` is an undoable rename to
// `.NAME.removed-<8 hex>` in the same directory instead of an unlink.
//
// Decisions:
//  * A retry that already landed is changed:false, exit 0: PATH is gone and NEWPATH (or the
//    tombstone) is there hashing to --if-sha256's HEX. Without --if-sha256 nothing shows that
//    what is there was moved (a mistyped PATH looks the same), so it is io.not-found for PATH,
//    its hint naming the destination that exists; with a hash that does not match, the same,
//    with the destination's kind and hash in detail.
//  * --if-sha256 hashes a regular file's content and a symbolic link's target text (the
//    link is never followed); a directory or a special file cannot be hashed
//    (io.is-a-directory, io.special-file), so --remove does not take those.
//  * Both directories are locked (os/dir_lock.h), and the hash is read under the lock.
//  * NEWPATH equal to PATH or inside it is path.bad-name, refused before anything is opened.
#include <unistd.h>

#include <algorithm>

#include "os/dir_lock.h"
#include "os/hash.h"
#include "os/open.h"
#include "os/place.h"
#include "os/rename_noreplace.h"
#include "runner/main.h"
#include "tools/move.schema.h"
#include "move/remove_many.h"
#include "writer/journal.h"
#include "writer/move_check.h"
#include "writer/table.h"
#include "writer/writer.h"
#include "tools/render/render.h"

namespace {

using contract::Json;

struct Args {
  std::string path;
  std::vector<std::string> rest;       // NEWPATH; with --remove, more paths to remove
  std::vector<std::string> if_sha256;  // one; with --remove, one per PATH in order
  bool remove = false;
  bool parents = false;
  bool dry_run = false;
  bool no_journal = false;
};

using contract::Kind;
using contract::Role;
constexpr contract::Flag<Args> kFlags[] = {
    writer::if_sha256<Args>("PATH must hash to HEX (a file: its content; a symbolic link: its "
                            "target text), checked under the lock; with --remove, one per PATH "
                            "in order. A retry finding PATH gone is changed:false only when "
                            "NEWPATH hashes to HEX"),
    {.name = "remove",
     .kind = Kind::Bool,
     .bind = &Args::remove,
     .excludes = "parents",
     .help = "take each PATH away to a tombstone; it is renamed to .NAME.removed-<first 8 hex "
             "of HEX> in its directory (NAME cut to 237 bytes where longer; undo: move it "
             "back); needs --if-sha256; all checked before any moves",
     .widens = true},
    {.name = "parents",
     .kind = Kind::Bool,
     .bind = &Args::parents,
     .help = "make missing directories of NEWPATH beneath the root (listed in parents_created)",
     .widens = true},
    writer::dry_run<Args>(
        "change nothing; check everything and answer with planned_actions (exit 9)"),
    writer::no_journal<Args>(),
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH",
     .role = Role::PathWrite,
     .bind = &Args::path,
     .help = "what to move: a file, a directory, a symbolic link (moved as itself)"},
    {.name = "NEWPATH",
     .role = Role::PathWrite,
     .min = 0,
     .max = contract::kMany,
     .bind = &Args::rest,
     .help = "where to move it; must not exist (with --remove: more paths to remove)"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"args.conflict", Repairable::Never,
     "--remove with --parents, not one --if-sha256 per PATH, or a PATH named twice"},
    {"args.too-many-operands", Repairable::Never, "a move takes PATH NEWPATH"},
    {"path.bad-name", Repairable::Never, "NEWPATH is PATH or lies inside it"},
    {"io.is-a-directory", Repairable::Never, "--if-sha256 or --remove names a directory"},
    {"io.special-file", Repairable::Never,
     "--if-sha256 or --remove names a FIFO, socket or device"},
    {"io.read-failed"},
    {"io.write-failed"},
    {"io.rename-unsupported"},
    {"precondition.required", Repairable::Never, "--remove without --if-sha256"},
    {"io.not-found", Repairable::Never,
     "PATH is missing; with NEWPATH there, a retry that landed only if --if-sha256 is given "
     "and NEWPATH hashes to it"},
    {"precondition.hash-mismatch"},
    {"conflict.exists"},
    {"conflict.locked"},
};


constexpr contract::Example kExamples[] = {
    {"move README.md README.old.md",
     "renamed; never replaces an existing destination"},
    {"move --remove --if-sha256 bab4f8abb8065f135949033c4bc1a607cdd8380ae89ae831b42a59f6dcd40389 notes.txt",
     "renamed to the tombstone .notes.txt.removed-bab4f8ab; moving it back undoes it"},
};

const contract::Tool kTool{
    .name = "move",
    .summary =
        "Rename a file, directory or link beneath the root without ever replacing "
        "anything; --remove renames it to an undoable tombstone.",
    .differs =
        "Unlike mv it never overwrites (RENAME_NOREPLACE), never copies across "
        "filesystems, moves a link as itself, follows no link, can require the hash "
        "read, and removes by renaming to a tombstone, never by unlinking.",
    .usage =
        "move [--root DIR] [--if-sha256 HEX] [--parents] [--dry-run] PATH NEWPATH | "
        "move --remove --if-sha256 HEX [--if-sha256 HEX]... [--root DIR] [--dry-run] PATH...",
    .output = contract::Output::Document,
    .schema = "move.v1",
    .data_schema = tool_schema::kData,
    .effects = contract::kReadFiles | contract::kWriteFiles,
    .reversibility = contract::Reversibility::ReversibleCheap,
    .guarantees = "deterministic, idempotent, atomic, never_replaces, no_delete, bounded_memory",
    .concurrency =
        "tack writers of a directory take turns (flock on both directories, in inode "
        "order); a name created meanwhile by anyone is never replaced",
    .text = render::move,
    .rules = kRules,
    .key_flags = "remove parents",
    .examples = kExamples,
    .mcp_flags = "remove if-sha256 dry-run",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

bool inside(std::string_view outer, std::string_view p) {
  return p == outer || (p.size() > outer.size() && p.starts_with(outer) && p[outer.size()] == '/');
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  for (const std::string& hex : a.if_sha256)
    if (!os::is_sha256_hex(hex)) errs.push_back(writer::bad_hex("if-sha256", &hex));
  if (a.remove) {
    if (a.if_sha256.empty()) {
      contract::Error e = contract::make_error(
          "precondition.required",
          "--remove needs --if-sha256 HEX: a file is removed only as the caller read it; "
          "nothing was read.",
          Json::object({{"flags", Json::array({"--if-sha256"})}}));
      e.hint = "hash the file first (digest) and pass it with --if-sha256.";
      errs.push_back(std::move(e));
      return;
    }
    const size_t paths = 1 + a.rest.size();
    if (a.if_sha256.size() != paths)
      errs.push_back(contract::make_error(
          "args.conflict",
          "--remove pairs each PATH with one --if-sha256, in order: " + std::to_string(paths) +
              " path(s) but " + std::to_string(a.if_sha256.size()) + " hash(es).",
          Json::object({{"flags", Json::array({"--if-sha256"})},
                        {"paths", paths},
                        {"hashes", a.if_sha256.size()}})));
    // The same path twice would be checked twice and then renamed once: refused, so every
    // path named is one removal.
    std::vector<std::string> all{a.path};
    all.insert(all.end(), a.rest.begin(), a.rest.end());
    for (contract::Error& e :
         writer::named_twice(all, ctx, false, "name each path once, with its own --if-sha256"))
      errs.push_back(std::move(e));
    return;
  }
  if (a.if_sha256.size() > 1)
    errs.push_back(contract::make_error("args.duplicate-flag",
                                        "--if-sha256 was given more than once.",
                                        Json::object({{"flag", "if-sha256"}})));
  if (a.rest.empty()) {
    errs.push_back(contract::make_error("args.missing-operand", "missing operand NEWPATH.",
                                        Json::object({{"operand", "NEWPATH"}})));
    return;
  }
  if (a.rest.size() > 1) {
    errs.push_back(contract::make_error(
        "args.too-many-operands", "a move takes PATH NEWPATH; several paths only with --remove.",
        Json::object({{"operand", Json::bytes(a.rest[1])}})));
    return;
  }
  if (inside(a.path, a.rest[0])) {
    errs.push_back(contract::make_error(
        "path.bad-name",
        "cannot move '" + contract::printable(a.path) + "' onto itself or into itself.",
        Json::object({{"path", Json::bytes(a.path)}, {"new_path", Json::bytes(a.rest[0])}})));
  }
}

Json run(const Args& a, contract::Context& ctx) {
  auto fail = [&](contract::Error e) {
    ctx.error(std::move(e));
    return Json(nullptr);
  };
  writer::Recorder journal(ctx, a.no_journal || a.dry_run);
  if (a.remove && !a.rest.empty()) {
    std::vector<std::string> paths{a.path};
    paths.insert(paths.end(), a.rest.begin(), a.rest.end());
    return move_tool::remove_many(paths, a.if_sha256, a.dry_run, ctx, journal);
  }
  const std::optional<std::string> expect =
      a.if_sha256.empty() ? std::nullopt : std::optional(os::lower_hex(a.if_sha256[0]));

  auto from_placed = os::open_place(ctx.root_fd(), a.path, os::Parents::Refuse);
  if (auto* e = std::get_if<contract::Error>(&from_placed)) return fail(std::move(*e));
  os::Place& from = std::get<os::Place>(from_placed);

  std::string to_path;
  if (a.remove) {
    to_path = writer::tombstone_of(from, *expect);
  } else {
    to_path = a.rest[0];
  }
  os::Parents parents = !a.parents  ? os::Parents::Refuse
                        : a.dry_run ? os::Parents::Plan
                                    : os::Parents::Make;
  auto to_placed = os::open_place(ctx.root_fd(), to_path, parents);
  if (auto* e = std::get_if<contract::Error>(&to_placed)) return fail(std::move(*e));
  os::Place& to = std::get<os::Place>(to_placed);
  auto fail_undo = [&](contract::Error e) {
    os::undo_parents(to);
    return fail(std::move(e));
  };

  // Declared after the places: released before their descriptors close.
  auto held = writer::lock_unless_dry(a.dry_run, from, &to);
  if (auto* e = std::get_if<contract::Error>(&held)) return fail_undo(std::move(*e));

  auto judged = writer::judge(from, to, a.path, to_path, expect, a.remove, "moved");
  if (auto* e = std::get_if<contract::Error>(&judged)) return fail_undo(std::move(*e));
  const writer::Looked& l = std::get<writer::Looked>(judged);
  const os::Entry& s = l.s;
  const os::Entry& d = l.d;
  using K = os::Entry::Kind;

  Json data = Json::object({{"from", Json::bytes(a.path)},
                            {"to", Json::bytes(to_path)},
                            {"changed", true},
                            {"removed", a.remove}});
  if (a.remove) data.set("tombstone", Json::bytes(to_path));

  if (l.landed) {
    data.set("changed", false);
    if (a.dry_run) ctx.dry_run(Json::array());
    return data;
  }
  if (d.kind != K::Missing) {
    Json detail =
        Json::object({{"path", Json::bytes(to_path)}, {"kind", writer::kind_name(d.kind)}});
    if (d.kind == K::File || d.kind == K::Link) {
      auto h = writer::entry_sha256(to, d);
      if (auto* hex = std::get_if<std::string>(&h)) detail.set("actual_sha256", *hex);
    }
    contract::Error e = contract::make_error("conflict.exists",
                                             "cannot move to '" + contract::printable(to_path) +
                                                 "': the name exists, and move "
                                                 "never replaces anything.",
                                             std::move(detail));
    e.repair = contract::Repair::none(
        a.remove ? "a tombstone with this name exists: move it away first, or read PATH again"
                 : "choose another NEWPATH, or move what is there away first");
    return fail_undo(std::move(e));
  }

  if (a.dry_run) {
    Json planned = Json::array();
    for (auto& dir : to.missing)
      planned.push(Json::object({{"op", "mkdir"}, {"path", Json::bytes(dir)}}));
    planned.push(Json::object({{"op", "rename"},
                               {"from", Json::bytes(a.path)},
                               {"to", Json::bytes(to_path)},
                               {"kind", writer::kind_name(s.kind)}}));
    if (!to.missing.empty()) data.set("parents_created", writer::paths_json(to.missing));
    ctx.dry_run(std::move(planned));
    return data;
  }
  if (auto e = writer::record_move(journal, from, s, a.path, to_path, expect, a.remove))
    return fail_undo(std::move(*e));
  if (auto e = os::rename_noreplace(from, to)) return fail_undo(std::move(*e));
  if (!to.created.empty()) data.set("parents_created", writer::paths_json(to.created));
  journal.finish(data);
  return data;
}


}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
