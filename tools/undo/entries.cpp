// entries.cpp — see entries.h.
#include "tools/undo/entries.h"

#include <algorithm>

#include "os/path.h"
#include "writer/writer.h"

namespace undo_tool {

using contract::Json;
using writer::Change;

Json hash_or_null(const std::string& h) { return h.empty() ? Json() : Json(h); }

std::string root_of(const contract::Context& ctx) {
  return ctx.root().empty() ? os::absolute_root(".") : ctx.root_abs();
}

std::variant<std::string, contract::Error> journal_path(uint64_t id, const std::string& path,
                                                        const std::string& root_abs) {
  std::optional<std::string> beneath = os::beneath_form(root_abs, path);
  if (!beneath)
    return writer::damaged(id,
                           "names a path outside the root ('" + contract::printable(path) + "')");
  const std::string& p = *beneath;
  if (p == "." || p == ".tack" || p.starts_with(".tack/"))
    return writer::damaged(id, "names a path inside the journal's own directory ('" +
                                   contract::printable(path) + "')");
  return p;
}

os::Result<Standing> standing(const Change& c, const os::Place& at, const os::Entry& now) {
  using K = os::Entry::Kind;
  const bool moved = c.kind == "rename" || c.kind == "remove";
  // What was moved, where the entry says: a link whose text hashes as the file did is not it.
  const mode_t type = c.mode & S_IFMT;
  const bool kind_as_moved = type == 0 || (type == S_IFREG && now.kind == K::File) ||
                             (type == S_IFLNK && now.kind == K::Link) ||
                             (type == S_IFDIR && now.kind == K::Directory);
  Standing s;
  if (now.kind == K::File || now.kind == K::Link) {
    auto h = writer::entry_sha256(at, now);
    if (auto* e = std::get_if<contract::Error>(&h)) return std::move(*e);
    s.actual = std::get<std::string>(h);
    s.same = s.actual == c.after && (now.kind == K::File || moved) && (!moved || kind_as_moved);
  } else if (now.kind == K::Directory) {
    s.same = c.after.empty() && moved && kind_as_moved;
  }
  return s;
}

bool landed(const writer::Journal& j, const writer::Entry& e, const std::string& root_abs) {
  if (e.changes.empty()) return false;
  const Change& c = e.changes.back();
  const bool moved = c.kind == "rename" || c.kind == "remove";
  auto p = journal_path(e.id, moved ? c.to : c.path, root_abs);
  const std::string* path = std::get_if<std::string>(&p);
  if (!path) return false;
  auto at = os::open_place(j.root(), *path, os::Parents::Refuse);
  const os::Place* place = std::get_if<os::Place>(&at);
  if (!place) return false;
  auto looked = os::look(*place);
  const os::Entry* now = std::get_if<os::Entry>(&looked);
  if (!now) return false;
  auto st = standing(c, *place, *now);
  return std::holds_alternative<Standing>(st) && std::get<Standing>(st).same;
}

namespace {

Json change_json(const Change& c) {
  Json f = Json::object({{"path", Json::bytes(c.path)},
                         {"kind", c.kind},
                         {"before_sha256", hash_or_null(c.before)},
                         {"after_sha256", hash_or_null(c.after)},
                         {"added", c.added},
                         {"removed", c.removed}});
  if (!c.to.empty()) f.set("to", Json::bytes(c.to));
  return f;
}

// `complete`: its change was made (the entry is marked so, or its last change stands as it
// left it: undo --last takes it). `pending`: not marked, and its last change is not there.
Json entry_json(const writer::Entry& e, bool complete) {
  Json argv = Json::array();
  for (const std::string& w : e.argv) argv.push(Json::bytes(w));
  Json files = Json::array();
  for (const Change& c : e.changes) files.push(change_json(c));
  return Json::object({{"id", e.id},
                       {"tool", e.tool},
                       {"state", complete ? "complete" : "pending"},
                       {"argv", std::move(argv)},
                       {"files", std::move(files)}});
}

}  // namespace

Json list(const std::vector<std::string>& paths, contract::Context& ctx) {
  Json entries = Json::array();
  auto opened = writer::Journal::open(ctx.root_fd(), false);
  if (std::holds_alternative<contract::Error>(opened)) {
    const contract::Error& e = std::get<contract::Error>(opened);
    if (e.rule != "io.not-found") ctx.error(e);
    return Json::object({{"entries", std::move(entries)}});
  }
  const writer::Journal& j = std::get<writer::Journal>(opened);
  const std::string root_abs = root_of(ctx);
  auto ids = j.ids();
  if (auto* e = std::get_if<contract::Error>(&ids)) {
    ctx.error(std::move(*e));
    return nullptr;
  }
  std::vector<uint64_t> all = std::get<std::vector<uint64_t>>(ids);
  std::reverse(all.begin(), all.end());
  for (uint64_t id : all) {
    auto read = j.read(id, false);
    if (auto* e = std::get_if<contract::Error>(&read)) {
      if (!paths.empty()) continue;
      entries.push(Json::object({{"id", id},
                                 {"state", "damaged"},
                                 {"rule", e->rule},
                                 {"message", e->message}}));
      continue;
    }
    const writer::Entry& en = std::get<writer::Entry>(read);
    if (!paths.empty()) {
      bool named = false;
      for (const Change& c : en.changes)
        for (const std::string& t : paths) {
          const std::string want = os::check_path(ctx.root_abs(), t).path;
          named = named || os::check_path(ctx.root_abs(), c.path).path == want ||
                  (!c.to.empty() && os::check_path(ctx.root_abs(), c.to).path == want);
        }
      if (!named) continue;
    }
    entries.push(entry_json(en, !en.pending || landed(j, en, root_abs)));
  }
  return Json::object({{"entries", std::move(entries)}});
}

}  // namespace undo_tool
