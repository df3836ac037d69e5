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

contract::Error too_large(const Oversize& o, const contract::Context& ctx) {
  Json detail = o.where;
  detail.set("bytes", o.bytes);
  if (o.say_exact) detail.set("exact", o.exact);
  detail.set("max_bytes", o.max_bytes);
  detail.set("ceiling", kMaxBytesCeiling);
  contract::Error e = contract::make_error(
      "limit.input-too-large",
      o.what + " is " + (o.exact ? "" : "more than ") + std::to_string(o.bytes) +
          " bytes, past --max-bytes " + std::to_string(o.max_bytes) + ".",
      std::move(detail));
  retry_max_bytes(e, std::max(o.need, o.bytes), o.exact, o.larger, ctx);
  return e;
}

void retry_max_bytes(contract::Error& e, uint64_t need, bool exact, std::string_view larger,
                     const contract::Context& ctx) {
  if (exact && need <= kMaxBytesCeiling) {
    e.repair = contract::Repair::retry(ctx.argv_with_flag("max-bytes", std::to_string(need)));
    e.hint = "retry with --max-bytes " + std::to_string(need) + ".";
  } else {
    e.repair =
        contract::Repair::none(std::string(larger) + " is larger than the ceiling of --max-bytes");
  }
}

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

std::vector<size_t> operand_tokens(const contract::Context& ctx) {
  const std::vector<std::string>& argv = ctx.argv();
  std::vector<size_t> out;
  bool ended = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& t = argv[i];
    if (ended || t.size() < 2 || t[0] != '-') {
      out.push_back(i);
    } else if (t == "--") {
      ended = true;
    } else if (t[1] == '-') {
      if (t.find('=') != std::string::npos) continue;
      for (const contract::FlagInfo& f : ctx.flags_)
        if (f.name == std::string_view(t).substr(2) && f.kind != contract::Kind::Bool) ++i;
    } else {
      for (size_t j = 1; j < t.size(); ++j) {
        auto f = std::find_if(ctx.flags_.begin(), ctx.flags_.end(),
                              [&](const contract::FlagInfo& x) { return x.short_name == t[j]; });
        if (f != ctx.flags_.end() && f->kind != contract::Kind::Bool) {
          if (j + 1 == t.size()) ++i;
          break;
        }
      }
    }
  }
  return out;
}

std::vector<contract::Error> named_twice(const std::vector<std::string>& paths,
                                         const contract::Context& ctx, bool retry,
                                         std::string_view instead) {
  std::vector<size_t> later;
  for (size_t i = 0; i < paths.size(); ++i)
    if (std::find(paths.begin(), paths.begin() + static_cast<long>(i), paths[i]) !=
        paths.begin() + static_cast<long>(i))
      later.push_back(i);
  std::vector<contract::Error> out;
  if (later.empty()) return out;
  const std::vector<size_t> tokens = operand_tokens(ctx);
  for (size_t i : later) {
    contract::Error e = contract::make_error(
        "args.conflict", "'" + contract::printable(paths[i]) + "' is named more than once.",
        Json::object({{"path", Json::bytes(paths[i])}}));
    if (retry && tokens.size() == paths.size()) {
      std::vector<std::string> argv;
      for (size_t t = 0; t < ctx.argv().size(); ++t) {
        bool drop = false;
        for (size_t k : later) drop = drop || tokens[k] == t;
        if (!drop) argv.push_back(ctx.argv()[t]);
      }
      e.repair = contract::Repair::retry(std::move(argv));
      e.hint = "name each file once.";
    } else {
      e.repair = contract::Repair::none(std::string(instead));
    }
    out.push_back(std::move(e));
  }
  return out;
}

contract::Error bad_hex(std::string_view flag, const std::string* value) {
  Json detail = Json::object({{"flag", flag}});
  if (value) detail.set("value", Json::bytes(*value));
  return contract::make_error("args.bad-value",
                              "--" + std::string(flag) + " must be 64 hex digits (a SHA-256).",
                              std::move(detail));
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

void render_diff_of(const Json& data, std::string& out) {
  const Json* diff = data.get("diff");
  if (diff && !diff->is_null()) text::render_diff(*diff, out);
  if (data.get("diff_truncated")->as_bool()) out += "[diff truncated]\n";
}

}  // namespace writer
