// writer.cpp — see writer.h.
#include "writer/writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <tuple>
#include <utility>

#include "os/hash.h"
#include "text/diff.h"
#include "writer/table.h"

namespace writer {

using contract::Json;

std::optional<std::string> read_input(
    const std::optional<std::string>& path, uint64_t max_bytes, contract::Context& ctx,
    const std::function<contract::Error(uint64_t size, bool exact)>& over) {
  std::string bytes;
  if (path) {
    auto opened = os::open_read(ctx.root_fd(), *path, os::Want::File, *path);
    if (auto* e = std::get_if<contract::Error>(&opened)) {
      ctx.error(std::move(*e));
      return std::nullopt;
    }
    auto hashed = os::sha256_fd(std::get<os::Opened>(opened).fd.get(), *path, &bytes, max_bytes);
    if (auto* e = std::get_if<contract::Error>(&hashed)) {
      ctx.error(std::move(*e));
      return std::nullopt;
    }
    if (!std::get<os::Hashed>(hashed).kept) {
      ctx.error(over(std::get<os::Hashed>(hashed).bytes, true));
      return std::nullopt;
    }
    return bytes;
  }
  // Read on past the cap (discarding) up to the ceiling, so the error names the size a retry
  // needs.
  const os::CappedRead r =
      os::read_capped(STDIN_FILENO, max_bytes, kMaxBytesCeiling, [&](std::string_view piece) {
        bytes.append(piece);
        return true;
      });
  if (r.error) {
    ctx.error(os::errno_error(r.error, "standard input", "read"));
    return std::nullopt;
  }
  if (r.total > max_bytes) {
    const bool exact = r.total <= kMaxBytesCeiling;
    ctx.error(over(exact ? r.total : kMaxBytesCeiling, exact));
    return std::nullopt;
  }
  return bytes;
}

os::Result<os::DirLock> lock_unless_dry(bool dry_run, const os::Place& a, const os::Place* b) {
  if (dry_run) return os::DirLock();
  return os::lock(a, b);
}

os::Result<std::vector<os::DirLock>> lock_each(std::vector<const os::Place*> places) {
  std::erase(places, nullptr);
  auto key = [](const os::Place* p) { return std::pair(p->dir_st.st_dev, p->dir_st.st_ino); };
  std::sort(places.begin(), places.end(), [&](auto* x, auto* y) { return key(x) < key(y); });
  places.erase(
      std::unique(places.begin(), places.end(), [&](auto* x, auto* y) { return key(x) == key(y); }),
      places.end());
  std::vector<os::DirLock> held;
  for (const os::Place* d : places) {
    auto locked = os::lock(*d);
    if (auto* e = std::get_if<contract::Error>(&locked)) return std::move(*e);
    held.push_back(std::move(std::get<os::DirLock>(locked)));
  }
  return held;
}

os::Result<Held> hold_all(const std::vector<const os::Place*>& places,
                          const std::vector<std::string>& paths, bool dry_run, Twice words) {
  Held held;
  if (!dry_run) {
    auto locked = lock_each(places);
    if (auto* e = std::get_if<contract::Error>(&locked)) return std::move(*e);
    held.locks = std::move(std::get<std::vector<os::DirLock>>(locked));
  }
  const std::vector<std::optional<size_t>> before = named_before(places);
  held.twice.resize(places.size());
  for (size_t i = 0; i < places.size(); ++i) {
    if (!before[i]) continue;
    const std::string& path = paths[i];
    const std::string& other = paths[*before[i]];
    contract::Error e = contract::make_error(
        "args.conflict",
        "'" + contract::printable(path) + "' is " + std::string(words.again) + "'" +
            contract::printable(other) + "' again.",
        Json::object({{"path", Json::bytes(path)}, {"same_as", Json::bytes(other)}}));
    e.repair = contract::Repair::none(std::string(words.repair));
    held.twice[i] = std::move(e);
    held.any_twice = true;
  }
  return held;
}

std::vector<std::optional<size_t>> named_before(std::span<const os::Place* const> places) {
  using Id = std::tuple<dev_t, ino_t, std::string_view>;
  std::vector<std::pair<Id, size_t>> seen;
  std::vector<std::optional<size_t>> out(places.size());
  for (size_t i = 0; i < places.size(); ++i) {
    const os::Place* p = places[i];
    if (!p) continue;
    Id id{p->dir_st.st_dev, p->dir_st.st_ino, p->name};
    auto first =
        std::find_if(seen.begin(), seen.end(), [&](const auto& x) { return x.first == id; });
    if (first == seen.end())
      seen.emplace_back(id, i);
    else
      out[i] = first->second;
  }
  return out;
}

os::Result<os::Opened> open_file(const os::Place& place, const std::string& path) {
  auto looked = os::look(place);
  if (auto* e = std::get_if<contract::Error>(&looked)) return std::move(*e);
  const os::Entry& entry = std::get<os::Entry>(looked);
  if (entry.kind == os::Entry::Kind::Missing) return os::errno_error(ENOENT, path, "open");
  if (entry.kind != os::Entry::Kind::File) return os::wrong_kind(place, entry);
  return os::open_existing(place);
}

os::Result<Whole> read_file(const os::Opened& file, const std::string& path, uint64_t max_bytes) {
  Whole out;
  os::Sha hash;
  auto read = os::read_whole(file.fd.get(), path, &out.bytes, max_bytes,
                             [&](std::string_view piece) { hash.update(piece); });
  if (auto* e = std::get_if<contract::Error>(&read)) return std::move(*e);
  out.size = std::get<os::WholeFile>(read).bytes;
  out.kept = std::get<os::WholeFile>(read).kept;
  out.sha256 = hash.hex();
  return out;
}

uint64_t file_size(int root_fd, const std::string& path) {
  auto placed = os::open_place(root_fd, path, os::Parents::Refuse);
  if (auto* p = std::get_if<os::Place>(&placed)) {
    auto looked = os::look(*p);
    if (auto* en = std::get_if<os::Entry>(&looked))
      if (en->kind == os::Entry::Kind::File) return static_cast<uint64_t>(en->st.st_size);
  }
  return 0;
}

os::Result<std::string> entry_sha256(const os::Place& place, const os::Entry& e) {
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

os::CommitOptions replacing(const struct stat& st) {
  os::CommitOptions copt;
  copt.replace = os::Replace::Allow;
  copt.mode = st.st_mode & 01777;  // set-id bits do not survive a content change
  copt.owner = std::pair(st.st_uid, st.st_gid);
  return copt;
}

Json planned(const os::Place& place, const std::string& path, bool changed,
             const std::string& before, const std::string& after, uint64_t bytes) {
  return changed ? os::planned_write(place, path, before, after, bytes) : Json::array();
}

Json paths_json(const std::vector<std::string>& paths) {
  Json list = Json::array();
  for (const std::string& p : paths) list.push(Json::bytes(p));
  return list;
}

Json diff_cut(const Json& diff, bool truncated, uint64_t max_lines) {
  if (!truncated) return nullptr;
  uint64_t listed = 0;
  if (const Json* hunks = diff.is_null() ? nullptr : diff.get("hunks"))
    for (const Json& h : hunks->items()) listed += h.get("lines")->items().size();
  return listed >= max_lines ? "max-diff-lines" : "max-diff-bytes";
}


}  // namespace writer
