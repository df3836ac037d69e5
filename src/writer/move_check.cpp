// move_check.cpp — see move_check.h.
#include "writer/move_check.h"

#include <climits>

#include "os/hash.h"
#include "os/open.h"
#include "writer/writer.h"

namespace writer {

using contract::Json;

namespace {

// PATH is gone and the destination is not shown to hold what the caller moved (`actual`: its
// hash, when it has one; `checked`: whether a hash was given to compare): io.not-found, with
// what is at the destination and a hint that says so.
contract::Error vanished(const std::string& path, const std::string& to_path, const os::Entry& d,
                         const std::string& actual, bool checked) {
  contract::Error e = os::errno_error(ENOENT, path, "move");
  if (d.kind != os::Entry::Kind::Missing) {
    e.detail.set("destination", Json::bytes(to_path));
    e.detail.set("destination_kind", kind_name(d.kind));
    if (!actual.empty()) e.detail.set("destination_sha256", actual);
    const std::string there = "'" + contract::printable(to_path) + "' exists";
    e.hint = checked ? there + " but does not hash to --if-sha256: it is not what an earlier "
                               "move of PATH left; check PATH's spelling."
                     : there + ": if an earlier move put it there, pass --if-sha256 with the "
                               "hash PATH had to confirm it; else check PATH's spelling.";
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

}  // namespace

std::string tombstone_of(const os::Place& from, const std::string& expect) {
  const std::string suffix = ".removed-" + expect.substr(0, 8);
  const std::string tomb = "." + from.name.substr(0, NAME_MAX - 1 - suffix.size()) + suffix;
  return from.parent == "." ? tomb : from.parent == "/" ? "/" + tomb : from.parent + "/" + tomb;
}

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
    // Only a hash shows that what is there is what was moved: without one, an existing
    // destination is as likely a mistyped PATH as a retry.
    std::string actual;
    if (l.d.kind != K::Missing && expect) {
      auto h = entry_sha256(to, l.d);
      if (auto* hex = std::get_if<std::string>(&h)) actual = *hex;
      l.landed = !actual.empty() && actual == *expect;
    }
    if (!l.landed) return vanished(path, to_path, l.d, actual, expect.has_value());
    return l;
  }
  if (expect) {
    auto h = entry_sha256(from, l.s);
    if (auto* e = std::get_if<contract::Error>(&h)) return unhashable(std::move(*e), path, remove);
    const std::string& actual = std::get<std::string>(h);
    if (actual != *expect)
      return os::hash_mismatch(path, *expect, actual, verb, kind_name(l.s.kind));
  }
  return l;
}

std::optional<contract::Error> record_move(Recorder& journal, const os::Place& from,
                                           const os::Entry& s, const std::string& path,
                                           const std::string& to_path,
                                           const std::optional<std::string>& expect, bool remove) {
  if (!journal.on()) return std::nullopt;
  Change c;
  c.kind = remove ? "remove" : "rename";
  c.path = path;
  c.to = to_path;
  c.mode = s.st.st_mode & (S_IFMT | 07777);
  if (expect) {
    c.before = *expect;
  } else if (s.kind == os::Entry::Kind::File || s.kind == os::Entry::Kind::Link) {
    auto h = entry_sha256(from, s);
    if (auto* e = std::get_if<contract::Error>(&h)) return std::move(*e);
    c.before = std::get<std::string>(h);
  }
  c.after = c.before;
  return journal.stage(std::move(c));
}

}  // namespace writer
