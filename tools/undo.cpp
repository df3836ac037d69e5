// undo.cpp — take back a change the writers (write, replace, edit, move) made, from their
// journal beneath the root (.tack/journal, writer/journal.h), whichever process made it.
//
// Decisions:
//  * Only a file that is still exactly what the entry left is restored: its SHA-256 must be
//    the entry's after-hash, read under the lock of its directory. Otherwise nothing at all is
//    written and the answer is conflict.changed-since, naming the file, both hashes, the later
//    entries that changed it, and a command that shows the difference.
//  * Every file of the entry is checked before any is touched; then each is put back, in the
//    reverse of the order the entry changed them.
//  * A create is taken back as move --remove does it (to the tombstone .NAME.removed-<8 hex>:
//    nothing in tack unlinks), a remove by renaming the tombstone back, a rename by renaming
//    back; none of them replaces a name that exists.
//  * A replaced file gets back its earlier bytes (the blob, or the current file with the
//    patches' bytes put back, checked to hash to the before-hash: a journal that says
//    otherwise is journal.damaged and nothing is written), its mode, and keeps its owner.
//  * An undo is itself an entry of the journal, so it can be undone in turn (--last after an
//    undo takes the undo back).
//  * Paths come from the journal, so they are checked as any path is: beneath the root,
//    following no link; one naming .tack/ or outside the root is journal.damaged.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "os/dir_lock.h"
#include "os/hash.h"
#include "os/open.h"
#include "os/path.h"
#include "os/place.h"
#include "os/rename_noreplace.h"
#include "os/temp_file.h"
#include "runner/main.h"
#include "text/diff.h"
#include "tools/render/render.h"
#include "tools/undo.schema.h"
#include "tools/undo/entries.h"
#include "writer/journal.h"
#include "writer/move_check.h"
#include "writer/table.h"
#include "writer/writer.h"

namespace {

using contract::Json;
using writer::Change;
using namespace undo_tool;

struct Args {
  std::vector<std::string> targets;  // ID, or with --list the paths whose entries are listed
  bool list = false;
  bool last = false;
  bool dry_run = false;
  bool no_journal = false;
};

using contract::Kind;
using contract::Role;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "list",
     .kind = Kind::Bool,
     .bind = &Args::list,
     .excludes = "last dry-run",
     .help = "list the entries, newest first (those naming a PATH, if given): id, tool, "
             "paths, kind, hashes, lines added and removed"},
    {.name = "last",
     .kind = Kind::Bool,
     .bind = &Args::last,
     .help = "take back the newest complete entry (an undo is one too)",
     .widens = true},
    writer::dry_run<Args>("check everything and answer with each file's diff and "
                          "planned_actions, changing nothing (exit 9)"),
    writer::no_journal<Args>(),
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "TARGET",
     .role = Role::None,
     .min = 0,
     .max = contract::kMany,
     .bind = &Args::targets,
     .help = "the id of the entry to take back; with --list, paths whose entries are listed"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"args.conflict", Repairable::Never, "an ID with --last, or no ID nor --last"},
    {"args.bad-value", Repairable::Never, "an ID that is not a positive integer"},
    {"args.too-many-operands", Repairable::Never, "more than one ID"},
    {"journal.no-entry", Repairable::Never, "no entry has that id (or the journal is empty)"},
    {"journal.damaged"},
    {"conflict.changed-since"},
    {"conflict.exists", Repairable::Never, "the name a file goes back to is taken"},
    {"conflict.locked"},
    {"io.read-failed"},
    {"io.write-failed"},
    {"io.rename-unsupported"},
    {"path.too-long", Repairable::Never, "a --list PATH longer than 4096 bytes"},
    {"path.symlink", Repairable::Never,
     "a directory on the way to a file the entry names is a symbolic link now"},
    {"io.not-found", Repairable::Never, "a directory on the way to a file the entry names is gone"},
    {"io.not-a-directory", Repairable::Never,
     "a directory on the way to a file the entry names is no longer a directory"},
};

constexpr contract::Example kExamples[] = {
    {"undo --list notes.txt", "the entries that changed notes.txt, newest first, with their ids"},
    {"undo --last --dry-run",
     "the diff undoing the newest change would make; journal.no-entry before any change"},
};

const contract::Tool kTool{
    .name = "undo",
    .summary = "Take back a change write, replace, edit or move made, from the journal beneath "
               "the root, only where each file is still what that change left.",
    .differs = "Unlike an editor's undo or git checkout it works across processes and outside "
               "git, and refuses (conflict.changed-since) rather than overwrite what anyone "
               "wrote since; it is itself journaled, so it can be undone.",
    .usage = "undo [--root DIR] --list [PATH...] | undo [--root DIR] [--dry-run] (ID | --last)",
    .output = contract::Output::Document,
    .schema = "undo.v1",
    .data_schema = tool_schema::kData,
    .effects = contract::kReadFiles | contract::kWriteFiles,
    .reversibility = contract::Reversibility::ReversibleCheap,
    .guarantees = "deterministic, atomic, never_replaces, no_delete, bounded_memory",
    .concurrency = "tack writers of a directory take turns (flock on each directory, in inode "
                   "order); a file changed meanwhile by anyone is refused, never overwritten",
    .text = render::undo,
    .rules = kRules,
    .key_flags = "list last",
    .examples = kExamples,
    .mcp_flags = "list last dry-run",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

std::optional<uint64_t> parse_id(const std::string& s) {
  if (s.empty() || s.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v == 0) return std::nullopt;
  return v;
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  if (a.list) {
    // The paths to list by are checked as a tool checks its path operands, before anything is
    // read; one retry spells every fixable one right.
    std::vector<std::string> fixed = ctx.argv();
    bool fixable = true;
    const size_t first = errs.size();
    for (size_t k = 0; k < a.targets.size(); ++k) {
      std::string path = a.targets[k];
      if (auto e = contract::check_path_arg(ctx.root_abs(), path, ctx.operand_token(k), "", fixed,
                                            fixable))
        errs.push_back(std::move(*e));
    }
    if (fixable)
      for (size_t i = first; i < errs.size(); ++i) errs[i].repair = contract::Repair::retry(fixed);
    return;
  }
  if (a.last && !a.targets.empty()) {
    errs.push_back(contract::make_error("args.conflict", "give an ID or --last, not both.",
                                        Json::object({{"flags", Json::array({"--last"})}})));
    return;
  }
  if (!a.last && a.targets.empty()) {
    errs.push_back(contract::make_error(
        "args.conflict", "undo takes an entry's ID, or --last (undo --list shows the ids).",
        Json::object({{"flags", Json::array({"--last", "--list"})}})));
    return;
  }
  if (a.targets.size() > 1) {
    errs.push_back(contract::make_error("args.too-many-operands", "undo takes one ID.",
                                        Json::object({{"operand", Json::bytes(a.targets[1])}})));
    return;
  }
  if (!a.last && !parse_id(a.targets[0]))
    errs.push_back(contract::make_error(
        "args.bad-value", "the ID is not a positive integer (undo --list shows the ids).",
        Json::object({{"operand", Json::bytes(a.targets[0])}})));
}

// One change of the entry being taken back: where things stand and what goes back.
struct Step {
  const Change* c = nullptr;
  std::string path, to;              // checked
  std::optional<os::Place> at;       // the entry's result: the file (replace, create) or `to`
  std::optional<os::Place> back;     // where it goes: the path (rename, remove), the tombstone (create)
  std::string back_path;
  struct stat st {};
  std::string restored;  // Blob: the earlier bytes
  Json diff;
};

contract::Error changed_since(uint64_t id, const Step& s, const std::string& actual,
                              const std::vector<uint64_t>& later, const writer::Journal& j) {
  const std::string& shown = s.c->kind == "replace" || s.c->kind == "create" ? s.path : s.to;
  Json detail = Json::object({{"id", id},
                              {"path", Json::bytes(shown)},
                              {"expected_sha256", hash_or_null(s.c->after)},
                              {"actual_sha256", hash_or_null(actual)}});
  Json l = Json::array();
  for (uint64_t n : later) l.push(n);
  detail.set("later_entries", std::move(l));
  // The command that shows what undo would put back against what is there now.
  if (s.c->restore == Change::Restore::Blob && j.has_blob(s.c->before))
    detail.set("show", Json::array({"diff", "-u", ".tack/journal/blobs/" + s.c->before,
                                     Json::bytes(shown)}));
  contract::Error e = contract::make_error(
      "conflict.changed-since",
      "'" + contract::printable(shown) + "' is no longer what entry " + std::to_string(id) +
          " left (someone changed it since); nothing was changed.",
      std::move(detail));
  e.hint = later.empty() ? "compare them (detail.show), then change the file by hand"
                         : "later entries changed it: take those back first (undo --list)";
  e.repair = contract::Repair::none("the file holds changes made since; undo never overwrites them");
  return e;
}

// The entries after `id` that name path.
std::vector<uint64_t> later_entries(const writer::Journal& j, uint64_t id, const std::string& path) {
  std::vector<uint64_t> out;
  auto ids = j.ids();
  if (auto* all = std::get_if<std::vector<uint64_t>>(&ids))
    for (uint64_t n : *all) {
      if (n <= id) continue;
      auto e = j.read(n, false);
      if (auto* en = std::get_if<writer::Entry>(&e))
        for (const Change& c : en->changes)
          if (c.path == path || c.to == path) {
            out.push_back(n);
            break;
          }
    }
  return out;
}

// The current file with the patches' bytes put back, into tmp; its hash must be `before`.
// The bytes the patches take out now are kept in `inverse` (the undo's own patches).
std::optional<contract::Error> unpatch(uint64_t id, int fd, const std::string& path,
                                       const Change& c, os::TempFile& tmp,
                                       std::vector<writer::Patch>& inverse) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return os::errno_error(errno, path, "stat");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  os::Sha hash;
  std::string buf;
  auto copy = [&](uint64_t from, uint64_t to) -> std::optional<contract::Error> {
    while (from < to) {
      buf.resize(static_cast<size_t>(std::min<uint64_t>(to - from, 1 << 20)));
      long long n = os::pread_full(fd, buf.data(), buf.size(), from);
      if (n != static_cast<long long>(buf.size()))
        return os::errno_error(n < 0 ? static_cast<int>(-n) : EIO, path, "read");
      hash.update(buf);
      if (auto e = tmp.write(buf)) return e;
      from += buf.size();
    }
    return std::nullopt;
  };
  uint64_t pos = 0;
  int64_t shift = 0;
  for (const writer::Patch& p : c.patches) {
    if (p.at < pos || p.at + p.len > size) return writer::damaged(id, "has a patch outside the file");
    if (auto e = copy(pos, p.at)) return e;
    writer::Patch inv;
    inv.at = static_cast<uint64_t>(static_cast<int64_t>(p.at) + shift);
    inv.len = p.old.size();
    inv.old.assign(static_cast<size_t>(p.len), '\0');
    long long n = os::pread_full(fd, inv.old.data(), inv.old.size(), p.at);
    if (n != static_cast<long long>(inv.old.size()))
      return os::errno_error(n < 0 ? static_cast<int>(-n) : EIO, path, "read");
    inv.old_len = inv.old.size();
    hash.update(p.old);
    if (auto e = tmp.write(p.old)) return e;
    shift += static_cast<int64_t>(p.old.size()) - static_cast<int64_t>(p.len);
    pos = p.at + p.len;
    inverse.push_back(std::move(inv));
  }
  if (auto e = copy(pos, size)) return e;
  if (hash.hex() != c.before)
    return writer::damaged(id, "puts back bytes that do not hash to the file's earlier content");
  return std::nullopt;
}

Json take_back(const Args& a, contract::Context& ctx) {
  auto fail = [&](contract::Error e) {
    ctx.error(std::move(e));
    return Json(nullptr);
  };
  auto opened = writer::Journal::open(ctx.root_fd(), false);
  if (auto* e = std::get_if<contract::Error>(&opened)) {
    if (e->rule != "io.not-found") return fail(std::move(*e));
    contract::Error none = contract::make_error(
        "journal.no-entry", "there is no journal here: nothing was changed through tack yet.",
        Json::object({{"path", ".tack/journal"}}));
    none.repair = contract::Repair::none("nothing to take back");
    return fail(std::move(none));
  }
  const writer::Journal& j = std::get<writer::Journal>(opened);
  const std::string root_abs = root_of(ctx);
  uint64_t id = 0;
  if (a.last) {
    auto ids = j.ids();
    if (auto* e = std::get_if<contract::Error>(&ids)) return fail(std::move(*e));
    const auto& all = std::get<std::vector<uint64_t>>(ids);
    if (all.empty()) {
      contract::Error none = contract::make_error("journal.no-entry", "the journal is empty.",
                                                  Json::object({{"path", ".tack/journal"}}));
      none.repair = contract::Repair::none("nothing to take back");
      return fail(std::move(none));
    }
    // The newest entry whose change landed: complete, or pending with its last change in
    // place (its writer stopped, or has yet to mark it complete, after the commit). A pending
    // one that did not land, or torn while it was written, is skipped (undo ID still names it).
    id = all.back();
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      auto e = j.read(*it, false);
      if (auto* en = std::get_if<writer::Entry>(&e); en && en->pending && !landed(j, *en, root_abs))
        continue;
      if (std::holds_alternative<contract::Error>(e) && j.pending(*it)) continue;
      id = *it;
      break;
    }
  } else {
    id = *parse_id(a.targets[0]);
  }
  auto read = j.read(id, true);
  if (auto* e = std::get_if<contract::Error>(&read)) return fail(std::move(*e));
  const writer::Entry entry = std::move(std::get<writer::Entry>(read));

  // Every step placed, then every directory locked once, then every file checked.
  std::vector<Step> steps(entry.changes.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    Step& s = steps[i];
    s.c = &entry.changes[i];
    auto p = journal_path(id, s.c->path, root_abs);
    if (auto* e = std::get_if<contract::Error>(&p)) return fail(std::move(*e));
    s.path = std::get<std::string>(p);
    if (!s.c->to.empty()) {
      auto t = journal_path(id, s.c->to, root_abs);
      if (auto* e = std::get_if<contract::Error>(&t)) return fail(std::move(*e));
      s.to = std::get<std::string>(t);
    } else if (s.c->kind == "rename" || s.c->kind == "remove") {
      return fail(writer::damaged(id, "has a rename without its new name"));
    }
    const bool moved = s.c->kind == "rename" || s.c->kind == "remove";
    auto at = os::open_place(j.root(), moved ? s.to : s.path, os::Parents::Refuse);
    if (auto* e = std::get_if<contract::Error>(&at)) return fail(std::move(*e));
    s.at.emplace(std::move(std::get<os::Place>(at)));
    if (s.c->kind == "create") {
      if (s.c->after.empty()) return fail(writer::damaged(id, "has a create without its hash"));
      s.back_path = writer::tombstone_of(*s.at, s.c->after);
    } else if (moved) {
      s.back_path = s.path;
    }
    if (!s.back_path.empty()) {
      auto back = os::open_place(j.root(), s.back_path, os::Parents::Refuse);
      if (auto* e = std::get_if<contract::Error>(&back)) return fail(std::move(*e));
      s.back.emplace(std::move(std::get<os::Place>(back)));
    }
  }
  std::vector<const os::Place*> places;
  for (const Step& s : steps) {
    places.push_back(&*s.at);
    if (s.back) places.push_back(&*s.back);
  }
  std::vector<os::DirLock> locks;
  if (!a.dry_run) {
    auto held = writer::lock_each(places);
    if (auto* e = std::get_if<contract::Error>(&held)) return fail(std::move(*e));
    locks = std::move(std::get<std::vector<os::DirLock>>(held));
  }

  using K = os::Entry::Kind;
  for (Step& s : steps) {
    auto looked = os::look(*s.at);
    if (auto* e = std::get_if<contract::Error>(&looked)) return fail(std::move(*e));
    const os::Entry& now = std::get<os::Entry>(looked);
    s.st = now.st;
    auto st = standing(*s.c, *s.at, now);
    if (auto* e = std::get_if<contract::Error>(&st)) return fail(std::move(*e));
    const Standing& found = std::get<Standing>(st);
    if (!found.same) {
      const std::string& p = s.c->kind == "rename" || s.c->kind == "remove" ? s.c->to : s.c->path;
      return fail(changed_since(id, s, found.actual, later_entries(j, id, p), j));
    }
    if (s.back) {
      auto there = os::look(*s.back);
      if (auto* e = std::get_if<contract::Error>(&there)) return fail(std::move(*e));
      if (std::get<os::Entry>(there).kind != K::Missing) {
        contract::Error e = contract::make_error(
            "conflict.exists",
            "cannot put '" + contract::printable(s.back_path) +
                "' back: the name exists, and undo never replaces anything.",
            Json::object({{"id", id},
                          {"path", Json::bytes(s.back_path)},
                          {"kind", writer::kind_name(std::get<os::Entry>(there).kind)}}));
        e.repair = contract::Repair::none("move what is there away first, then undo again");
        return fail(std::move(e));
      }
    }
    if (s.c->kind == "replace" && s.c->restore == Change::Restore::Blob) {
      auto blob = j.blob(s.c->before, writer::kJournalHeld);
      if (auto* e = std::get_if<contract::Error>(&blob)) {
        e->detail.set("id", id);
        return fail(std::move(*e));
      }
      s.restored = std::move(std::get<std::string>(blob));
    } else if (s.c->kind == "replace" && s.c->restore != Change::Restore::Patch) {
      return fail(writer::damaged(id, "keeps nothing to put a replaced file back with"));
    }
  }

  // Each file's answer; in a dry run, its diff and the plan.
  Json files = Json::array();
  Json planned = Json::array();
  for (Step& s : steps) {
    const Change& c = *s.c;
    Json f = Json::object({{"path", Json::bytes(s.path)}, {"kind", c.kind}});
    if (c.kind == "replace") {
      f.set("before_sha256", c.after);
      f.set("after_sha256", c.before);
      Json diff = nullptr;
      if (c.restore == Change::Restore::Blob) {
        auto opened_now = os::open_existing(*s.at);
        std::string now;
        if (auto* o = std::get_if<os::Opened>(&opened_now)) {
          auto h = os::sha256_fd(o->fd.get(), s.path, &now, writer::kJournalWhole * 16);
          if (auto* hh = std::get_if<os::Hashed>(&h); hh && hh->kept)
            diff = text::diff_json(text::diff_lines(now, s.restored));
        }
      }
      f.set("diff", std::move(diff));
      planned.push(Json::object({{"op", "replace"},
                                 {"path", Json::bytes(s.path)},
                                 {"before_sha256", c.after},
                                 {"after_sha256", c.before}}));
    } else {
      const std::string& from = c.kind == "create" ? s.path : s.to;
      f.set("from", Json::bytes(from));
      f.set("to", Json::bytes(s.back_path));
      planned.push(Json::object({{"op", "rename"},
                                 {"from", Json::bytes(from)},
                                 {"to", Json::bytes(s.back_path)}}));
    }
    files.push(std::move(f));
  }
  Json data = Json::object({{"id", id}, {"tool", entry.tool}, {"files", std::move(files)}});
  if (a.dry_run) {
    ctx.dry_run(std::move(planned));
    return data;
  }

  // Put back, last change first; each recorded in the undo's own entry before it is made.
  writer::Recorder journal(ctx, a.no_journal);
  for (size_t k = steps.size(); k-- > 0;) {
    Step& s = steps[k];
    const Change& c = *s.c;
    if (c.kind == "replace") {
      auto cur = os::open_existing(*s.at);
      if (auto* e = std::get_if<contract::Error>(&cur)) return fail(std::move(*e));
      const os::Opened& file = std::get<os::Opened>(cur);
      os::CommitOptions copt = writer::replacing(file.st);
      copt.mode = c.mode;
      auto made = os::TempFile::create(*s.at, copt);
      if (auto* e = std::get_if<contract::Error>(&made)) return fail(std::move(*e));
      os::TempFile& tmp = std::get<os::TempFile>(made);
      Change mine = writer::replaced_file(s.path, file.st, c.after, c.before, Json());
      mine.added = c.removed;
      mine.removed = c.added;
      if (c.restore == Change::Restore::Blob) {
        if (auto e = tmp.write(s.restored)) return fail(std::move(*e));
        mine.restore = Change::Restore::Blob;
        mine.source_fd = file.fd.get();
      } else {
        if (auto e = unpatch(id, file.fd.get(), s.path, c, tmp, mine.patches))
          return fail(std::move(*e));
        mine.restore = Change::Restore::Patch;
      }
      mine.new_file = &tmp;
      if (auto e = journal.stage(std::move(mine))) return fail(std::move(*e));
      if (auto e = tmp.commit()) return fail(std::move(*e));
      os::close_at_exit(std::get<os::Opened>(cur).fd);
    } else {
      Change mine;
      mine.kind = c.kind == "create" ? "remove" : "rename";
      mine.path = c.kind == "create" ? s.path : s.to;
      mine.to = s.back_path;
      mine.before = mine.after = c.after;
      mine.mode = s.st.st_mode & (S_IFMT | 07777);
      if (auto e = journal.stage(std::move(mine))) return fail(std::move(*e));
      if (auto e = os::rename_noreplace(*s.at, *s.back)) return fail(std::move(*e));
    }
  }
  journal.finish(data);
  return data;
}

Json run(const Args& a, contract::Context& ctx) {
  if (a.list) return list(a.targets, ctx);
  return take_back(a, ctx);
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
