// journal_entry.cpp — an entry's text form: written, read back, and refused as
// journal.damaged wherever it is not exactly what format_entry writes (see journal.h).
#include "writer/journal_entry.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "os/hash.h"
#include "os/write_error.h"
#include "writer/journal.h"

namespace writer {

using contract::Json;

namespace {

constexpr std::string_view kMagic = "tack-journal 1\n";

std::string to_hex(std::string_view bytes) {
  static constexpr char d[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2) return std::nullopt;
  auto val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int a = val(hex[i]), b = val(hex[i + 1]);
    if (a < 0 || b < 0) return std::nullopt;
    out += static_cast<char>(a * 16 + b);
  }
  return out;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    size_t j = line.find(' ', i);
    if (j == std::string_view::npos) j = line.size();
    out.push_back(line.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

bool is_hash_or_none(std::string_view s) { return s == "-" || os::is_sha256_hex(s); }

}  // namespace

std::string id_name(uint64_t id) {
  std::string s = std::to_string(id);
  return std::string(16 - std::min<size_t>(16, s.size()), '0') + s;
}

// An entry's file name: its id, and whether it is pending; nothing for another name.
std::optional<std::pair<uint64_t, bool>> parse_name(std::string_view name) {
  bool pending = false;
  if (name.size() == 16 + 8 && name.substr(16) == ".pending") {
    pending = true;
    name = name.substr(0, 16);
  }
  if (name.size() != 16) return std::nullopt;
  uint64_t id = 0;
  auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
  if (ec != std::errc() || p != name.data() + name.size() || id == 0) return std::nullopt;
  return std::pair(id, pending);
}

std::optional<uint64_t> parse_nat(std::string_view s, int base) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

contract::Error damaged(uint64_t id, std::string what) {
  contract::Error e = contract::make_error(
      "journal.damaged", "journal entry " + std::to_string(id) + " " + what + "; nothing was changed.",
      Json::object({{"id", id}, {"path", ".tack/journal/entries/" + id_name(id)}}));
  e.repair = contract::Repair::none("the entry cannot be trusted; restore the file by hand, "
                                    "or take back a later or earlier entry");
  return e;
}

std::string format_entry(const Entry& e) {
  std::string out(kMagic);
  out += "id " + std::to_string(e.id) + "\n";
  out += "tool " + e.tool + "\n";
  // An empty argument (replace --new '') is "-", as an empty field is on a file line.
  for (const std::string& a : e.argv) out += "arg " + (a.empty() ? "-" : to_hex(a)) + "\n";
  uint64_t payload = 0;
  for (const Change& c : e.changes) {
    char mode[16];
    snprintf(mode, sizeof mode, "%o", static_cast<unsigned>(c.mode & (S_IFMT | 07777)));
    out += "file " + c.kind + " " + (c.path.empty() ? "-" : to_hex(c.path)) + " " +
           (c.before.empty() ? "-" : c.before) + " " + (c.after.empty() ? "-" : c.after) + " " +
           mode + " " + (c.to.empty() ? "-" : to_hex(c.to)) + " " +
           (c.restore == Change::Restore::Blob    ? "blob"
            : c.restore == Change::Restore::Patch ? "patch"
                                                  : "none") +
           " " + std::to_string(c.added) + " " + std::to_string(c.removed) + "\n";
    for (const Patch& p : c.patches) {
      out += "patch " + std::to_string(p.at) + " " + std::to_string(p.len) + " " +
             std::to_string(p.old.size()) + "\n";
      payload += p.old.size();
    }
  }
  out += "payload " + std::to_string(payload) + "\nend\n";
  for (const Change& c : e.changes)
    for (const Patch& p : c.patches) out += p.old;
  return out;
}

os::Result<Entry> parse_header(uint64_t id, std::string_view text, uint64_t file_size) {
  Entry e;
  e.id = id;
  if (!text.starts_with(kMagic)) return damaged(id, "does not begin as an entry does");
  size_t end = text.find("\nend\n");
  if (end == std::string_view::npos) return damaged(id, "is truncated (no end line)");
  std::string_view head = text.substr(kMagic.size(), end + 1 - kMagic.size());
  e.payload_at = end + 5;
  bool have_id = false, have_payload = false;
  Change* last = nullptr;
  while (!head.empty()) {
    size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    head.remove_prefix(nl + 1);
    std::vector<std::string_view> w = words(line);
    if (w.empty()) return damaged(id, "has an empty line");
    if (w[0] == "id" && w.size() == 2) {
      auto v = parse_nat(w[1]);
      if (!v || *v != id) return damaged(id, "names another id");
      have_id = true;
    } else if (w[0] == "tool" && w.size() == 2) {
      e.tool = std::string(w[1]);
    } else if (w[0] == "arg" && w.size() <= 2) {
      // An empty argument: "-", or nothing after "arg " (as entries were written before).
      auto a = w.size() == 1 || w[1] == "-" ? std::optional<std::string>("") : from_hex(w[1]);
      if (!a) return damaged(id, "has a malformed arg line");
      e.argv.push_back(std::move(*a));
    } else if (w[0] == "file" && w.size() == 10) {
      Change c;
      c.kind = std::string(w[1]);
      if (c.kind != "create" && c.kind != "replace" && c.kind != "rename" && c.kind != "remove")
        return damaged(id, "has a change of an unknown kind");
      auto path = from_hex(w[2]);
      auto to = w[6] == "-" ? std::optional<std::string>("") : from_hex(w[6]);
      auto mode = parse_nat(w[5], 8);
      auto added = parse_nat(w[8]), removed = parse_nat(w[9]);
      const uint64_t type = mode ? *mode & ~uint64_t{07777} : 0;
      if (!path || path->empty() || !to || !mode || !added || !removed ||
          (type != 0 && type != S_IFREG && type != S_IFLNK && type != S_IFDIR) ||
          !is_hash_or_none(w[3]) || !is_hash_or_none(w[4]))
        return damaged(id, "has a malformed file line");
      c.path = std::move(*path);
      c.to = std::move(*to);
      c.before = w[3] == "-" ? "" : std::string(w[3]);
      c.after = w[4] == "-" ? "" : std::string(w[4]);
      c.mode = static_cast<mode_t>(*mode);
      c.added = *added;
      c.removed = *removed;
      if (w[7] == "blob")
        c.restore = Change::Restore::Blob;
      else if (w[7] == "patch")
        c.restore = Change::Restore::Patch;
      else if (w[7] == "none")
        c.restore = Change::Restore::None;
      else
        return damaged(id, "has a malformed file line");
      if (c.restore == Change::Restore::Blob && c.before.empty())
        return damaged(id, "keeps a blob of no content");
      e.changes.push_back(std::move(c));
      last = &e.changes.back();
    } else if (w[0] == "patch" && w.size() == 4) {
      if (!last || last->restore != Change::Restore::Patch)
        return damaged(id, "has a patch outside a patched file");
      auto at = parse_nat(w[1]), len = parse_nat(w[2]), old = parse_nat(w[3]);
      if (!at || !len || !old) return damaged(id, "has a malformed patch line");
      uint64_t floor = last->patches.empty() ? 0 : last->patches.back().at + last->patches.back().len;
      if (*at < floor) return damaged(id, "has patches out of order");
      last->patches.push_back(Patch{*at, *len, {}, *old});
      e.payload_bytes += *old;
    } else if (w[0] == "payload" && w.size() == 2) {
      auto v = parse_nat(w[1]);
      if (!v) return damaged(id, "has a malformed payload line");
      if (*v != e.payload_bytes) return damaged(id, "counts its payload wrongly");
      have_payload = true;
    } else {
      return damaged(id, "has a line it cannot read");
    }
  }
  if (!have_id || !have_payload || e.tool.empty() || e.changes.empty())
    return damaged(id, "lacks a line every entry has");
  if (e.payload_at + e.payload_bytes != file_size)
    return damaged(id, "is truncated or overlong (its payload is not the size it says)");
  return e;
}

Change replaced_file(const std::string& path, const struct stat& st, const std::string& before,
                     const std::string& after, const Json& diff) {
  Change c;
  c.kind = "replace";
  c.path = path;
  c.before = before;
  c.after = after;
  c.mode = st.st_mode & 07777;
  if (!diff.is_null()) {
    if (const Json* n = diff.get("added")) c.added = n->as_uint();
    if (const Json* n = diff.get("removed")) c.removed = n->as_uint();
  }
  return c;
}

os::Result<std::vector<Patch>> patches_of_cuts(int fd, const std::string& path,
                                               const std::vector<text::Cut>& cuts) {
  std::vector<Patch> out;
  int64_t shift = 0;
  for (const text::Cut& cut : cuts) {
    Patch p;
    p.at = static_cast<uint64_t>(static_cast<int64_t>(cut.start) + shift);
    p.len = cut.bytes.size();
    p.old.assign(static_cast<size_t>(cut.end - cut.start), '\0');
    long long n = os::pread_full(fd, p.old.data(), p.old.size(), cut.start);
    if (n != static_cast<long long>(p.old.size()))
      return os::errno_error(n < 0 ? static_cast<int>(-n) : EIO, path, "read");
    p.old_len = p.old.size();
    shift += static_cast<int64_t>(cut.bytes.size()) - static_cast<int64_t>(cut.end - cut.start);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace writer
