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
//  * Both directories are locked (os/atomic.h), and the hash is read under the lock.
//  * NEWPATH equal to PATH or inside it is path.bad-name, refused before anything is opened.
#include <unistd.h>

#include <climits>

#include "contract/main.h"
#include "os/atomic.h"
#include "os/hash.h"
#include "os/open.h"

namespace {

using contract::Json;

struct Args {
  std::string path;
  std::optional<std::string> new_path;
  std::optional<std::string> if_sha256;
  bool remove = false;
  bool parents = false;
  bool dry_run = false;
};

using contract::Kind;
using contract::Role;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "if-sha256",
     .kind = Kind::Text,
     .bind = &Args::if_sha256,
     .value_name = "HEX",
     .help = "PATH must hash to HEX (a file: its content; a symbolic link: its target text), "
             "checked under the lock"},
    {.name = "remove",
     .kind = Kind::Bool,
     .bind = &Args::remove,
     .excludes = "parents",
     .help = "take PATH away by renaming it to .NAME.removed-<first 8 hex of HEX> in its "
             "directory (undo: move it back); needs --if-sha256"},
    {.name = "parents",
     .kind = Kind::Bool,
     .bind = &Args::parents,
     .help = "make missing directories of NEWPATH beneath the root (listed in parents_created)"},
    {.name = "dry-run",
     .kind = Kind::Bool,
     .bind = &Args::dry_run,
     .help = "check everything and answer with planned_actions, changing nothing (exit 9)"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH",
     .role = Role::PathWrite,
     .bind = &Args::path,
     .help = "what to move: a file, a directory, a symbolic link (moved as itself)"},
    {.name = "NEWPATH",
     .role = Role::PathWrite,
     .min = 0,
     .max = 1,
     .bind = &Args::new_path,
     .help = "where to move it; must not exist (absent with --remove)"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"path.bad-name", Repairable::Never, "NEWPATH is PATH or lies inside it"},
    {"io.is-a-directory", Repairable::Never, "--if-sha256 or --remove names a directory"},
    {"io.read-failed"},
    {"io.write-failed"},
    {"io.rename-unsupported"},
    {"precondition.required", Repairable::Never, "--remove without --if-sha256"},
    {"precondition.hash-mismatch"},
    {"conflict.exists"},
    {"conflict.locked"},
};

const std::string kSchema =
    R"({"type":"object","required":["from","to","changed","removed"],"additionalProperties":false,)"
    R"("properties":{"from":{"$ref":"#/$defs/text_or_bytes"},"to":{"$ref":"#/$defs/text_or_bytes"},)"
    R"("changed":{"type":"boolean"},"removed":{"type":"boolean"},)"
    R"("tombstone":{"$ref":"#/$defs/text_or_bytes"},)"
    R"("parents_created":{"type":"array","items":{"$ref":"#/$defs/text_or_bytes"}}}})";

void render_text(const Json& data, std::string& out, const contract::Drain&);

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
        "move --remove --if-sha256 HEX [--root DIR] [--dry-run] PATH",
    .output = contract::Output::Document,
    .schema = "move.v1",
    .data_schema = kSchema,
    .effects = contract::kReadFiles | contract::kWriteFiles,
    .reversibility = contract::Reversibility::ReversibleCheap,
    .guarantees = "deterministic, idempotent, atomic, never_replaces, no_delete, bounded_memory",
    .concurrency =
        "tack writers of a directory take turns (flock on both directories, in inode "
        "order); a name created meanwhile by anyone is never replaced",
    .text = render_text,
    .rules = kRules,
    .key_flags = "remove parents",
    .examples = kExamples,
};

static_assert(contract::valid<Args>(kFlags, kOperands));

bool inside(std::string_view outer, std::string_view p) {
  return p == outer || (p.size() > outer.size() && p.starts_with(outer) && p[outer.size()] == '/');
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context&) {
  if (a.if_sha256 && !os::is_sha256_hex(*a.if_sha256)) {
    errs.push_back(contract::make_error(
        "args.bad-value", "--if-sha256 must be 64 hex digits (a SHA-256).",
        Json::object({{"flag", "if-sha256"}, {"value", Json::bytes(*a.if_sha256)}})));
  }
  if (a.remove) {
    if (a.new_path) {
      errs.push_back(contract::make_error("args.too-many-operands",
                                          "--remove takes one operand, the path to remove.",
                                          Json::object({{"operand", Json::bytes(*a.new_path)}})));
    }
    if (!a.if_sha256) {
      contract::Error e = contract::make_error(
          "precondition.required",
          "--remove needs --if-sha256 HEX: a file is removed only as the caller read it; "
          "nothing was read.",
          Json::object({{"flags", Json::array({"--if-sha256"})}}));
      e.hint = "hash the file first (digest) and pass it with --if-sha256.";
      errs.push_back(std::move(e));
    }
    return;
  }
  if (!a.new_path) {
    errs.push_back(contract::make_error("args.missing-operand", "missing operand NEWPATH.",
                                        Json::object({{"operand", "NEWPATH"}})));
    return;
  }
  if (inside(a.path, *a.new_path)) {
    errs.push_back(contract::make_error(
        "path.bad-name",
        "cannot move '" + contract::printable(a.path) + "' onto itself or into itself.",
        Json::object({{"path", Json::bytes(a.path)}, {"new_path", Json::bytes(*a.new_path)}})));
  }
}

// The hash a caller states for an entry: a file's content, a link's target text (a link is
// never followed, so its text is what it is).
os::Result<std::string> hash_entry(const os::Place& place, const os::Entry& e) {
  using K = os::Entry::Kind;
  if (e.kind == K::Link) {
    std::string buf(PATH_MAX + 1, '\0');
    ssize_t n = readlinkat(place.dir.get(), place.name.c_str(), buf.data(), buf.size());
    if (n < 0) return os::errno_error(errno, place.path, "read");
    buf.resize(static_cast<size_t>(n));
    return os::sha256_hex(buf);
  }
  if (e.kind != K::File) return os::wrong_kind(place, e);
  auto opened = os::open_existing(place);
  if (auto* err = std::get_if<contract::Error>(&opened)) return std::move(*err);
  auto hashed = os::sha256_fd(std::get<os::Opened>(opened).fd.get(), place.path);
  if (auto* err = std::get_if<contract::Error>(&hashed)) return std::move(*err);
  return std::get<os::Hashed>(hashed).hex;
}

std::string_view kind_name(os::Entry::Kind k) {
  using K = os::Entry::Kind;
  switch (k) {
    case K::File:
      return "file";
    case K::Link:
      return "symlink";
    case K::Directory:
      return "directory";
    case K::Special:
      return "other";
    case K::Missing:
      return "missing";
  }
  return "other";
}

Json run(const Args& a, contract::Context& ctx) {
  auto fail = [&](contract::Error e) {
    ctx.error(std::move(e));
    return Json(nullptr);
  };
  const std::optional<std::string> expect =
      a.if_sha256 ? std::optional(os::lower_hex(*a.if_sha256)) : std::nullopt;

  auto from_placed = os::open_place(ctx.root_fd(), a.path, os::Parents::Refuse);
  if (auto* e = std::get_if<contract::Error>(&from_placed)) return fail(std::move(*e));
  os::Place& from = std::get<os::Place>(from_placed);

  std::string to_path;
  if (a.remove) {
    // `.NAME.removed-` + 8 hex must itself be a name the filesystem can hold.
    std::string tomb = "." + from.name + ".removed-" + expect->substr(0, 8);
    if (tomb.size() > NAME_MAX) {
      return fail(contract::make_error(
          "path.too-long",
          "cannot remove '" + contract::printable(a.path) + "': its tombstone name would be " +
              std::to_string(tomb.size()) + " bytes, past the filesystem's 255.",
          Json::object({{"path", Json::bytes(a.path)}, {"tombstone_bytes", tomb.size()}})));
    }
    to_path = from.parent == "."   ? tomb
              : from.parent == "/" ? "/" + tomb
                                   : from.parent + "/" + tomb;
  } else {
    to_path = *a.new_path;
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

  os::DirLock held;  // declared after the places: released before their descriptors close
  if (!a.dry_run) {
    auto locked = os::lock(from, &to);
    if (auto* e = std::get_if<contract::Error>(&locked)) return fail_undo(std::move(*e));
    held = std::move(std::get<os::DirLock>(locked));
  }

  auto src = os::look(from);
  if (auto* e = std::get_if<contract::Error>(&src)) return fail_undo(std::move(*e));
  auto dst = os::look(to);
  if (auto* e = std::get_if<contract::Error>(&dst)) return fail_undo(std::move(*e));
  using K = os::Entry::Kind;
  const os::Entry& s = std::get<os::Entry>(src);
  const os::Entry& d = std::get<os::Entry>(dst);

  Json data = Json::object({{"from", Json::bytes(a.path)},
                            {"to", Json::bytes(to_path)},
                            {"changed", true},
                            {"removed", a.remove}});
  if (a.remove) data.set("tombstone", Json::bytes(to_path));

  if (s.kind == K::Missing) {
    // A retry whose first call landed: nothing at PATH, and at NEWPATH what the caller moved
    // (by its hash when one was given).
    bool landed = d.kind != K::Missing;
    std::string actual;
    if (landed && expect) {
      auto h = hash_entry(to, d);
      landed = std::holds_alternative<std::string>(h) && std::get<std::string>(h) == *expect;
      if (auto* hex = std::get_if<std::string>(&h)) actual = *hex;
    }
    if (!landed) {
      contract::Error e = os::errno_error(ENOENT, a.path, "move");
      if (d.kind != K::Missing) {
        e.detail.set("destination", Json::bytes(to_path));
        e.detail.set("destination_kind", kind_name(d.kind));
        if (!actual.empty()) e.detail.set("destination_sha256", actual);
      }
      return fail_undo(std::move(e));
    }
    data.set("changed", false);
    if (a.dry_run) ctx.dry_run(Json::array());
    return data;
  }

  if (expect) {
    auto h = hash_entry(from, s);
    if (auto* e = std::get_if<contract::Error>(&h)) return fail_undo(std::move(*e));
    const std::string& actual = std::get<std::string>(h);
    if (actual != *expect)
      return fail_undo(os::hash_mismatch(a.path, *expect, actual, "moved", kind_name(s.kind)));
  }
  if (d.kind != K::Missing) {
    Json detail = Json::object({{"path", Json::bytes(to_path)}, {"kind", kind_name(d.kind)}});
    if (d.kind == K::File || d.kind == K::Link) {
      auto h = hash_entry(to, d);
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

  auto parents_json = [](const std::vector<std::string>& dirs) {
    Json list = Json::array();
    for (auto& dir : dirs) list.push(Json::bytes(dir));
    return list;
  };
  if (a.dry_run) {
    Json planned = Json::array();
    for (auto& dir : to.missing)
      planned.push(Json::object({{"op", "mkdir"}, {"path", Json::bytes(dir)}}));
    planned.push(Json::object({{"op", "rename"},
                               {"from", Json::bytes(a.path)},
                               {"to", Json::bytes(to_path)},
                               {"kind", kind_name(s.kind)}}));
    if (!to.missing.empty()) data.set("parents_created", parents_json(to.missing));
    ctx.dry_run(std::move(planned));
    return data;
  }
  if (auto e = os::rename_noreplace(from, to)) return fail_undo(std::move(*e));
  if (!to.created.empty()) data.set("parents_created", parents_json(to.created));
  return data;
}

void render_text(const Json& data, std::string& out, const contract::Drain&) {
  std::string from = contract::printable(data.get("from")->str());
  std::string to = contract::printable(data.get("to")->str());
  if (const Json* dirs = data.get("parents_created"))
    for (const Json& dir : dirs->items())
      out += "made directory " + contract::printable(dir.str()) + "\n";
  if (!data.get("changed")->as_bool())
    out += from + " -> " + to + ": already moved\n";
  else if (data.get("removed")->as_bool())
    out += "removed " + from + " (tombstone " + to + ")\n";
  else
    out += from + " -> " + to + "\n";
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
