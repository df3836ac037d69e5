// remove_many.cpp — see remove_many.h.
#include "remove_many.h"

#include <optional>

#include "os/hash.h"
#include "os/place.h"
#include "os/rename_noreplace.h"
#include "writer/move_check.h"
#include "writer/writer.h"

namespace move_tool {

using contract::Json;

Json remove_many(const std::vector<std::string>& paths, const std::vector<std::string>& if_sha256,
                 bool dry_run, contract::Context& ctx, writer::Recorder& journal) {
  using K = os::Entry::Kind;
  struct Item {
    std::string path, expect, to_path;
    std::optional<os::Place> from, to;
    std::optional<contract::Error> error;
    bool pending = false, landed = false, written = false, refused = false;
    std::string kind;
    mode_t mode = 0;
  };
  std::vector<Item> items(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    Item& it = items[i];
    it.path = paths[i];
    it.expect = os::lower_hex(if_sha256[i]);
    auto from = os::open_place(ctx.root_fd(), it.path, os::Parents::Refuse);
    if (auto* e = std::get_if<contract::Error>(&from)) {
      it.error = std::move(*e);
      continue;
    }
    it.from.emplace(std::move(std::get<os::Place>(from)));
    it.to_path = writer::tombstone_of(*it.from, it.expect);
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
  auto held = writer::hold_all(places, paths, dry_run,
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
    auto judged = writer::judge(*it.from, *it.to, it.path, it.to_path, it.expect, true, "removed");
    if (auto* e = std::get_if<contract::Error>(&judged)) {
      it.error = std::move(*e);
      continue;
    }
    const writer::Looked& l = std::get<writer::Looked>(judged);
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
    it.mode = l.s.st.st_mode & (S_IFMT | 07777);
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
  if (dry_run) {
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
    // Each removal recorded (the entry names the tombstone) before its rename.
    writer::Change c;
    c.kind = "remove";
    c.path = it.path;
    c.to = it.to_path;
    c.before = it.expect;
    c.after = it.expect;
    c.mode = it.mode;
    if (auto e = journal.stage(std::move(c))) {
      ctx.error(std::move(*e));
      break;
    }
    if (auto e = os::rename_noreplace(*it.from, *it.to)) {
      ctx.error(std::move(*e));
      break;
    }
    it.written = true;
  }
  Json all = answer();
  journal.finish(all);
  return all;
}

}  // namespace move_tool
