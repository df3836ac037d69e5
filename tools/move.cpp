// move.cpp — rename beneath the root, never over anything; and remove by renaming to a
// tombstone. Differs from `mv`: it never replaces an existing name (renameat2
// RENAME_NOREPLACE, so not even a racing creator is overwritten), never copies across
// filesystems, moves a symbolic link as itself, follows no link in either path, can require
// the hash the caller read (--if-sha256), and `--remove` is an undoable rename to
// `.NAME.removed-<8 hex>` in the same directory instead of an unlink.
//
// Decisions:
//  * A retry that already landed is changed:false, exit 0: PATH is gone and NEWPATH (or the
//    tombstone) is there — with --if-sha256, hashing to HEX; without it, whatever it is (the
//    state the call asks for holds). A hash that does not match is io.not-found for PATH,
//    with the destination's kind and hash in detail.
//  * --if-sha256 hashes a regular file's content and a symbolic link's target text (the
//    link is never followed); a directory or a special file cannot be hashed
//    (io.is-a-directory, io.special-file), so --remove does not take those.
//  * Both directories are locked (os/dir_lock.h), and the hash is read under the lock.
//  * NEWPATH equal to PATH or inside it is path.bad-name, refused before anything is opened.
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "os/dir_lock.h"
#include "os/hash.h"
#include "os/open.h"
#include "os/place.h"
#include "os/rename_noreplace.h"
#include "runner/main.h"
#include "tools/move.schema.h"
#include "writer/table.h"
#include "writer/writer.h"

namespace {

using contract::Json;

struct Args {
  std::string path;
  std::vector<std::string> rest;       // NEWPATH; with --remove, more paths to remove
  std::vector<std::string> if_sha256;  // one; with --remove, one per PATH in order
  bool remove = false;
  bool parents = false;
  bool dry_run = false;
};

using contract::Kind;
using contract::Role;
constexpr contract::Flag<Args> kFlags[] = {
    writer::if_sha256<Args>("PATH must hash to HEX (a file: its content; a symbolic link: its "
                            "target text), checked under the lock; with --remove, one per PATH "
                            "in order"),
    {.name = "remove",
     .kind = Kind::Bool,
     .bind = &Args::remove,
     .excludes = "parents",
     .help = "take each PATH away by renaming it to .NAME.removed-<first 8 hex of HEX> in its "
             "directory (undo: move it back); needs --if-sha256; all checked before any moves"},
    {.name = "parents",
     .kind = Kind::Bool,
     .bind = &Args::parents,
     .help = "make missing directories of NEWPATH beneath the root (listed in parents_created)"},
    writer::dry_run<Args>(
        "check everything and answer with planned_actions, changing nothing (exit 9)"),
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
    {"precondition.hash-mismatch"},
    {"conflict.exists"},
    {"conflict.locked"},
};

void render_one(const Json& data, std::string& out);

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
    .text = writer::render_files<render_one>,
    .rules = kRules,
    .key_flags = "remove parents",
    .examples = kExamples,
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

// PATH is gone and the destination does not hold what the caller moved (`actual`: its hash,
// when it has one): io.not-found, with what is at the destination.
contract::Error vanished(const std::string& path, const std::string& to_path, const os::Entry& d,
                         const std::string& actual) {
  contract::Error e = os::errno_error(ENOENT, path, "move");
  if (d.kind != os::Entry::Kind::Missing) {
    e.detail.set("destination", Json::bytes(to_path));
    e.detail.set("destination_kind", writer::kind_name(d.kind));
    if (!actual.empty()) e.detail.set("destination_sha256", actual);
  }
  return e;
}

// A directory or a special file has no hash to state: the error says what the call was
// doing (remove, or check --if-sha256), not the generic "cannot write".
contract::Error unhashable(contract::Error e, const std::string& path, bool remove) {
  if (e.rule != "io.is-a-directory" && e.rule != "io.special-file") return e;
  const std::string what = e.rule == "io.is-a-directory" ? "a directory" : "a special file";
  e.message = (remove ? "cannot remove '" : "cannot check --if-sha256 of '") +
              contract::printable(path) + "': it is " + what +
              "; only a file or a symbolic link has a hash to state.";
  return e;
}

// `.NAME.removed-` + 8 hex, beside PATH; path.too-long when the name cannot be held.
os::Result<std::string> tombstone_of(const os::Place& from, const std::string& path,
                                     const std::string& expect) {
  std::string tomb = "." + from.name + ".removed-" + expect.substr(0, 8);
  if (tomb.size() > NAME_MAX) {
    return contract::make_error(
        "path.too-long",
        "cannot remove '" + contract::printable(path) + "': its tombstone name would be " +
            std::to_string(tomb.size()) + " bytes, past the filesystem's 255.",
        Json::object({{"path", Json::bytes(path)}, {"tombstone_bytes", tomb.size()}}));
  }
  return from.parent == "." ? tomb : from.parent == "/" ? "/" + tomb : from.parent + "/" + tomb;
}

// What a move finds under the lock: PATH gone and the destination holding what the caller
// moved (a retry that landed: by its hash, when one was given), or the entries at both; or the
// error refusing it: PATH gone otherwise, or not hashing to `expect` (`verb` says what was not
// done). Whether the destination is free is the caller's to judge.
struct Looked {
  bool landed = false;
  os::Entry s, d;
};
os::Result<Looked> judge(const os::Place& from, const os::Place& to, const std::string& path,
                         const std::string& to_path, const std::optional<std::string>& expect,
                         bool remove, std::string_view verb) {
  using K = os::Entry::Kind;
  auto src = os::look(from);
  if (auto* e = std::get_if<contract::Error>(&src)) return std::move(*e);
  auto dst = os::look(to);
  if (auto* e = std::get_if<contract::Error>(&dst)) return std::move(*e);
  Looked l{false, std::get<os::Entry>(src), std::get<os::Entry>(dst)};
  if (l.s.kind == K::Missing) {
    std::string actual;
    l.landed = l.d.kind != K::Missing;
    if (l.landed && expect) {
      auto h = writer::entry_sha256(to, l.d);
      if (auto* hex = std::get_if<std::string>(&h)) actual = *hex;
      l.landed = !actual.empty() && actual == *expect;
    }
    if (!l.landed) return vanished(path, to_path, l.d, actual);
    return l;
  }
  if (expect) {
    auto h = writer::entry_sha256(from, l.s);
    if (auto* e = std::get_if<contract::Error>(&h)) return unhashable(std::move(*e), path, remove);
    const std::string& actual = std::get<std::string>(h);
    if (actual != *expect)
      return os::hash_mismatch(path, *expect, actual, verb, writer::kind_name(l.s.kind));
  }
  return l;
}

// --remove of several paths. Every path is checked (its tombstone free, its hash) under the
// locks of all their directories before any is renamed, so one refusal renames nothing; then
// each is renamed in PATH order. Each rename is atomic, the batch is not one transaction: a
// rename that fails stops it, and `written` says which were renamed.
Json run_remove_many(const Args& a, contract::Context& ctx) {
  using K = os::Entry::Kind;
  std::vector<std::string> paths{a.path};
  paths.insert(paths.end(), a.rest.begin(), a.rest.end());
  struct Item {
    std::string path, expect, to_path;
    std::optional<os::Place> from, to;
    std::optional<contract::Error> error;
    bool pending = false, landed = false, written = false, refused = false;
    std::string kind;
  };
  std::vector<Item> items(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    Item& it = items[i];
    it.path = paths[i];
    it.expect = os::lower_hex(a.if_sha256[i]);
    auto from = os::open_place(ctx.root_fd(), it.path, os::Parents::Refuse);
    if (auto* e = std::get_if<contract::Error>(&from)) {
      it.error = std::move(*e);
      continue;
    }
    it.from.emplace(std::move(std::get<os::Place>(from)));
    auto tomb = tombstone_of(*it.from, it.path, it.expect);
    if (auto* e = std::get_if<contract::Error>(&tomb)) {
      it.error = std::move(*e);
      continue;
    }
    it.to_path = std::get<std::string>(tomb);
    auto to = os::open_place(ctx.root_fd(), it.to_path, os::Parents::Refuse);
    if (auto* e = std::get_if<contract::Error>(&to)) {
      it.error = std::move(*e);
      continue;
    }
    it.to.emplace(std::move(std::get<os::Place>(to)));
  }

  // Every directory locked once; declared after the items: released before they close. Two
  // spellings of one name (an absolute and a relative path without --root) would be checked
  // twice and renamed once: refused as a path named twice, before anything is hashed. (Two
  // hard links are two names: each is removed.)
  std::vector<const os::Place*> places;
  for (const Item& it : items) places.push_back(it.from ? &*it.from : nullptr);
  auto held = writer::hold_all(places, paths, a.dry_run,
                               {"", "name each path once, with its own --if-sha256"});
  if (auto* e = std::get_if<contract::Error>(&held)) {
    ctx.error(std::move(*e));
    return nullptr;
  }
  const bool twice = std::get<writer::Held>(held).any_twice;
  for (size_t i = 0; i < items.size(); ++i)
    if (auto& e = std::get<writer::Held>(held).twice[i]) items[i].error = std::move(*e);
  for (Item& it : items) {
    if (it.error || twice) continue;
    auto judged = judge(*it.from, *it.to, it.path, it.to_path, it.expect, true, "removed");
    if (auto* e = std::get_if<contract::Error>(&judged)) {
      it.error = std::move(*e);
      continue;
    }
    const Looked& l = std::get<Looked>(judged);
    if (l.landed) {
      it.landed = true;
      continue;
    }
    const os::Entry& d = l.d;
    if (d.kind != K::Missing) {
      Json detail =
          Json::object({{"path", Json::bytes(it.to_path)}, {"kind", writer::kind_name(d.kind)}});
      contract::Error e = contract::make_error(
          "conflict.exists",
          "cannot remove '" + contract::printable(it.path) + "': its tombstone '" +
              contract::printable(it.to_path) + "' exists, and move never replaces anything.",
          std::move(detail));
      e.repair = contract::Repair::none(
          "a tombstone with this name exists: move it away first, or read PATH again");
      it.error = std::move(e);
      continue;
    }
    it.kind = writer::kind_name(l.s.kind);
    it.pending = true;
  }

  auto answer = [&] {
    Json files = Json::array();
    uint64_t changed = 0, written = 0;
    for (const Item& it : items) {
      if (it.refused) continue;
      Json one = Json::object({{"from", Json::bytes(it.path)},
                               {"to", Json::bytes(it.to_path)},
                               {"changed", it.pending},
                               {"removed", true},
                               {"tombstone", Json::bytes(it.to_path)},
                               {"written", it.written}});
      files.push(std::move(one));
      changed += it.pending ? 1 : 0;
      written += it.written ? 1 : 0;
    }
    return Json::object(
        {{"files", std::move(files)}, {"files_changed", changed}, {"files_written", written}});
  };
  bool refused = false;
  for (Item& it : items) {
    it.refused = twice;  // then nothing was checked
    if (it.error) {
      refused = it.refused = true;
      ctx.error(std::move(*it.error));
    }
  }
  if (refused) return answer();  // the paths that passed their check; none renamed
  if (a.dry_run) {
    Json planned = Json::array();
    for (const Item& it : items)
      if (it.pending)
        planned.push(Json::object({{"op", "rename"},
                                   {"from", Json::bytes(it.path)},
                                   {"to", Json::bytes(it.to_path)},
                                   {"kind", it.kind}}));
    ctx.dry_run(std::move(planned));
    return answer();
  }
  for (Item& it : items) {
    if (!it.pending) continue;
    if (auto e = os::rename_noreplace(*it.from, *it.to)) {
      ctx.error(std::move(*e));
      break;
    }
    it.written = true;
  }
  return answer();
}

Json run(const Args& a, contract::Context& ctx) {
  auto fail = [&](contract::Error e) {
    ctx.error(std::move(e));
    return Json(nullptr);
  };
  if (a.remove && !a.rest.empty()) return run_remove_many(a, ctx);
  const std::optional<std::string> expect =
      a.if_sha256.empty() ? std::nullopt : std::optional(os::lower_hex(a.if_sha256[0]));

  auto from_placed = os::open_place(ctx.root_fd(), a.path, os::Parents::Refuse);
  if (auto* e = std::get_if<contract::Error>(&from_placed)) return fail(std::move(*e));
  os::Place& from = std::get<os::Place>(from_placed);

  std::string to_path;
  if (a.remove) {
    // `.NAME.removed-` + 8 hex must itself be a name the filesystem can hold.
    auto tomb = tombstone_of(from, a.path, *expect);
    if (auto* e = std::get_if<contract::Error>(&tomb)) return fail(std::move(*e));
    to_path = std::get<std::string>(tomb);
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

  auto judged = judge(from, to, a.path, to_path, expect, a.remove, "moved");
  if (auto* e = std::get_if<contract::Error>(&judged)) return fail_undo(std::move(*e));
  const Looked& l = std::get<Looked>(judged);
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
  if (auto e = os::rename_noreplace(from, to)) return fail_undo(std::move(*e));
  if (!to.created.empty()) data.set("parents_created", writer::paths_json(to.created));
  return data;
}

void render_one(const Json& data, std::string& out) {
  std::string from = contract::printable(data.get("from")->str());
  std::string to = contract::printable(data.get("to")->str());
  if (const Json* dirs = data.get("parents_created"))
    for (const Json& dir : dirs->items())
      out += "made directory " + contract::printable(dir.str()) + "\n";
  const Json* written = data.get("written");
  if (!data.get("changed")->as_bool())
    out += from + " -> " + to + ": already moved\n";
  else if (written && !written->as_bool())
    out += "would remove " + from + " (tombstone " + to + ")\n";
  else if (data.get("removed")->as_bool())
    out += "removed " + from + " (tombstone " + to + ")\n";
  else
    out += from + " -> " + to + "\n";
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
