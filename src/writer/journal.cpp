// journal.cpp — see journal.h.
#include "writer/journal.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <ctime>
#include <set>
#include <utility>

#include "os/hash.h"
#include "os/write_error.h"

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

std::optional<uint64_t> parse_nat(std::string_view s, int base = 10) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
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

// A directory beneath `at`, made if missing, opened without following a link.
os::Result<os::Fd> subdir(int at, const char* name, std::string_view shown, bool make) {
  bool made = make && mkdirat(at, name, 0755) == 0;
  if (make && !made && errno != EEXIST) return os::write_error(errno, shown, "mkdir");
  int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    struct stat st {};
    if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      contract::Error e = contract::make_error(
          "path.symlink",
          "the journal's directory '" + std::string(shown) +
              "' is a symbolic link, which tack does not follow; nothing was changed.",
          Json::object({{"path", Json::bytes(std::string(shown))}}));
      e.repair = contract::Repair::none("move the link away (or pass --no-journal)");
      return e;
    }
    return os::errno_error(err, shown, "open");
  }
  if (made) fsync(at);
  return os::Fd(fd);
}

// flock on the journal's directory, waited for a bounded while (as os::lock does).
class JournalLock {
 public:
  explicit JournalLock(int fd) : fd_(fd) {}
  std::optional<contract::Error> take() {
    long wait_ms = 1, waited_ms = 0;
    while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) return os::write_error(errno, ".tack/journal", "lock");
      if (waited_ms >= 2000) {
        contract::Error e = contract::make_error(
            "conflict.locked", "another tack writer held the journal's lock for seconds.",
            Json::object({{"path", ".tack/journal"}}));
        e.repair = contract::Repair::none("try again once the other writer is done");
        return e;
      }
      timespec ts{0, wait_ms * 1'000'000};
      while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
      }
      waited_ms += wait_ms;
      wait_ms = std::min(wait_ms * 2, 64L);
    }
    held_ = true;
    return std::nullopt;
  }
  ~JournalLock() {
    if (held_) flock(fd_, LOCK_UN);
  }

 private:
  int fd_;
  bool held_ = false;
};

std::optional<contract::Error> write_all(int fd, std::string_view bytes, std::string_view shown) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return os::write_error(errno, shown, "write");
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return std::nullopt;
}

// `bytes` written to dir/name through a temporary name, fsynced, renamed into place.
std::optional<contract::Error> put_file(int dir, const std::string& name, std::string_view bytes,
                                        std::string_view shown) {
  const std::string tmp = name + ".tmp";
  unlinkat(dir, tmp.c_str(), 0);  // left by a writer that was killed (under the lock)
  int fd = openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return os::write_error(errno, shown, "create");
  os::Fd owned(fd);
  if (auto e = write_all(fd, bytes, shown)) {
    unlinkat(dir, tmp.c_str(), 0);
    return e;
  }
  if (fsync(fd) != 0) {
    int err = errno;
    unlinkat(dir, tmp.c_str(), 0);
    return os::write_error(err, shown, "fsync");
  }
  if (renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) {
    int err = errno;
    unlinkat(dir, tmp.c_str(), 0);
    return os::write_error(err, shown, "rename");
  }
  return std::nullopt;
}

// A regular file beneath dir read whole, at most `max` bytes (else nothing and `over`).
os::Result<std::string> read_small(int dir, const std::string& name, uint64_t max,
                                   std::string_view shown, bool* over = nullptr) {
  int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return os::errno_error(errno, shown, "open");
  os::Fd owned(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) return os::errno_error(errno, shown, "stat");
  if (!S_ISREG(st.st_mode)) return os::errno_error(EINVAL, shown, "open");
  if (static_cast<uint64_t>(st.st_size) > max) {
    if (over) *over = true;
    return std::string();
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  long long n = os::pread_full(fd, out.data(), out.size(), 0);
  if (n < 0) return os::errno_error(static_cast<int>(-n), shown, "read");
  out.resize(static_cast<size_t>(n));
  return out;
}

uint64_t cap_of(int journal) {
  auto text = read_small(journal, "max-bytes", 64, "max-bytes");
  if (auto* s = std::get_if<std::string>(&text)) {
    std::string_view v = *s;
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
    if (auto n = parse_nat(v)) return *n;
  }
  return kJournalCap;
}

// Every regular file in a directory: name and size.
std::vector<std::pair<std::string, uint64_t>> files_of(int dir) {
  std::vector<std::pair<std::string, uint64_t>> out;
  int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return out;
  }
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    out.emplace_back(name, S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0);
  }
  closedir(d);
  return out;
}

}  // namespace

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
  for (const std::string& a : e.argv) out += "arg " + to_hex(a) + "\n";
  uint64_t payload = 0;
  for (const Change& c : e.changes) {
    char mode[16];
    snprintf(mode, sizeof mode, "%o", static_cast<unsigned>(c.mode & 07777));
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
    } else if (w[0] == "arg" && w.size() == 2) {
      auto a = from_hex(w[1]);
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
      if (!path || path->empty() || !to || !mode || *mode > 07777 || !added || !removed ||
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

Journal::~Journal() = default;

os::Result<Journal> Journal::open(int root_fd, bool make) {
  Journal j;
  int fd = root_fd >= 0 ? openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                        : ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return os::errno_error(errno, ".", "open");
  j.root_ = os::Fd(fd);
  auto tack = subdir(j.root_.get(), ".tack", ".tack", make);
  if (auto* e = std::get_if<contract::Error>(&tack)) return std::move(*e);
  os::Fd t = std::move(std::get<os::Fd>(tack));
  int gi = !make ? -1 : openat(t.get(), ".gitignore", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (gi >= 0) {
    os::Fd g(gi);
    if (auto e = write_all(gi, "# tack's journal of changes (undo): not for version control\n*\n",
                           ".tack/.gitignore"))
      return std::move(*e);
    fsync(gi);
  }
  auto journal = subdir(t.get(), "journal", ".tack/journal", make);
  if (auto* e = std::get_if<contract::Error>(&journal)) return std::move(*e);
  j.journal_ = std::move(std::get<os::Fd>(journal));
  auto entries = subdir(j.journal_.get(), "entries", ".tack/journal/entries", make);
  if (auto* e = std::get_if<contract::Error>(&entries)) return std::move(*e);
  j.entries_ = std::move(std::get<os::Fd>(entries));
  auto blobs = subdir(j.journal_.get(), "blobs", ".tack/journal/blobs", make);
  if (auto* e = std::get_if<contract::Error>(&blobs)) return std::move(*e);
  j.blobs_ = std::move(std::get<os::Fd>(blobs));
  return j;
}

bool Journal::has_blob(const std::string& sha256) const {
  struct stat st {};
  return fstatat(blobs_.get(), sha256.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(st.st_mode);
}

std::optional<contract::Error> Journal::write_blob(const Change& c) {
  if (c.restore != Change::Restore::Blob || has_blob(c.before)) return std::nullopt;
  std::string held;
  std::string_view content;
  if (c.content) {
    content = *c.content;
  } else {
    auto hashed = os::sha256_fd(c.source_fd, c.path, &held, kJournalHeld);
    if (auto* e = std::get_if<contract::Error>(&hashed)) return std::move(*e);
    const os::Hashed& h = std::get<os::Hashed>(hashed);
    if (!h.kept) return os::write_error(EFBIG, c.path, "journal");
    if (h.hex != c.before) return os::write_error(ESTALE, c.path, "journal");
    content = held;
  }
  if (auto e = put_file(blobs_.get(), c.before, content, ".tack/journal/blobs")) return e;
  if (fsync(blobs_.get()) != 0) return os::write_error(errno, ".tack/journal/blobs", "fsync");
  return std::nullopt;
}

std::optional<contract::Error> Journal::write_entry() {
  const std::string text = format_entry(staged_);
  if (auto e = put_file(entries_.get(), id_name(id_) + ".pending", text, ".tack/journal/entries"))
    return e;
  if (fsync(entries_.get()) != 0) return os::write_error(errno, ".tack/journal/entries", "fsync");
  return std::nullopt;
}

std::optional<contract::Error> Journal::stage(const contract::Context& ctx, Change c) {
  JournalLock lock(journal_.get());
  if (auto e = lock.take()) return e;
  if (id_ == 0) {
    auto all = ids();
    if (auto* e = std::get_if<contract::Error>(&all)) return std::move(*e);
    const auto& list = std::get<std::vector<uint64_t>>(all);
    id_ = list.empty() ? 1 : list.back() + 1;
    staged_.id = id_;
    staged_.tool = std::string(ctx.tool().name);
    staged_.argv = ctx.argv();
  }
  if (auto e = write_blob(c)) return e;
  c.source_fd = -1;
  c.content = nullptr;
  staged_.changes.push_back(std::move(c));
  if (auto e = write_entry()) {
    staged_.changes.pop_back();
    return e;
  }
  written_ = true;
  return std::nullopt;
}

Json Journal::done() {
  Json out = Json::object({{"id", id_}});
  Json pruned = Json::array();
  if (!written_) return out;
  JournalLock lock(journal_.get());
  (void)lock.take();  // pruning is best effort; the entry itself is on disk already
  const std::string name = id_name(id_);
  renameat(entries_.get(), (name + ".pending").c_str(), entries_.get(), name.c_str());
  fsync(entries_.get());  // complete on disk: a crash from here on leaves the entry complete
  const uint64_t cap = cap_of(journal_.get());
  auto entries = files_of(entries_.get());
  auto blobs = files_of(blobs_.get());
  uint64_t total = 0;
  for (auto& [n, s] : entries) total += s;
  for (auto& [n, s] : blobs) total += s;
  if (total > cap) {
    std::sort(entries.begin(), entries.end());
    for (auto& [n, s] : entries) {
      if (total <= cap) break;
      auto parsed = parse_name(n);
      if (!parsed || parsed->first >= id_) continue;
      if (unlinkat(entries_.get(), n.c_str(), 0) == 0) {
        total -= s;
        pruned.push(parsed->first);
      }
    }
    // Blobs no entry names any more go too.
    std::set<std::string> named;
    auto left = ids();
    if (auto* l = std::get_if<std::vector<uint64_t>>(&left))
      for (uint64_t id : *l) {
        auto e = read(id, false);
        if (auto* en = std::get_if<Entry>(&e))
          for (const Change& c : en->changes)
            if (c.restore == Change::Restore::Blob) named.insert(c.before);
      }
    for (auto& [n, s] : blobs)
      if (!named.count(n) && os::is_sha256_hex(n)) unlinkat(blobs_.get(), n.c_str(), 0);
    out.set("pruned", std::move(pruned));
    out.set("cap", cap);
  }
  return out;
}

std::optional<contract::Error> Recorder::stage(Change c) {
  if (off_) return std::nullopt;
  if (!j_) {
    auto opened = Journal::open(ctx_.root_fd());
    if (auto* e = std::get_if<contract::Error>(&opened)) {
      contract::Error err = std::move(*e);
      err.hint = "every change is journaled before it is made (.tack/journal); --no-journal "
                 "changes without a record";
      return err;
    }
    j_.emplace(std::move(std::get<Journal>(opened)));
  }
  return j_->stage(ctx_, std::move(c));
}

void Recorder::finish(Json& data) {
  data.set("journal", j_ && j_->id() ? j_->done() : Json());
}

os::Result<std::vector<uint64_t>> Journal::ids() const {
  std::vector<uint64_t> out;
  for (auto& [n, s] : files_of(entries_.get()))
    if (auto p = parse_name(n)) out.push_back(p->first);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

os::Result<Entry> Journal::read(uint64_t id, bool payload) const {
  const std::string name = id_name(id);
  bool pending = false;
  int fd = openat(entries_.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    pending = true;
    fd = openat(entries_.get(), (name + ".pending").c_str(),
                O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  }
  if (fd < 0) {
    if (errno == ENOENT) {
      contract::Error e = contract::make_error(
          "journal.no-entry", "the journal holds no entry " + std::to_string(id) + ".",
          Json::object({{"id", id}}));
      e.repair = contract::Repair::none("undo --list shows the entries there are");
      return e;
    }
    if (errno == ELOOP) return damaged(id, "is a symbolic link");
    return os::errno_error(errno, ".tack/journal/entries/" + name, "open");
  }
  os::Fd owned(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) return os::errno_error(errno, name, "stat");
  if (!S_ISREG(st.st_mode)) return damaged(id, "is not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  std::string head(static_cast<size_t>(std::min<uint64_t>(size, kHeaderMax)), '\0');
  long long n = os::pread_full(fd, head.data(), head.size(), 0);
  if (n < 0) return os::errno_error(static_cast<int>(-n), name, "read");
  head.resize(static_cast<size_t>(n));
  auto parsed = parse_header(id, head, size);
  if (auto* e = std::get_if<contract::Error>(&parsed)) return std::move(*e);
  Entry e = std::move(std::get<Entry>(parsed));
  e.pending = pending;
  uint64_t at = e.payload_at;
  for (Change& c : e.changes)
    for (Patch& p : c.patches) {
      const uint64_t len = p.old_len;
      if (!payload) {
        p.old.clear();
        at += len;
        continue;
      }
      if (len > kJournalHeld) return damaged(id, "keeps a patch larger than tack holds");
      p.old.assign(static_cast<size_t>(len), '\0');
      long long got = os::pread_full(fd, p.old.data(), p.old.size(), at);
      if (got != static_cast<long long>(len)) return damaged(id, "is truncated");
      at += len;
    }
  return e;
}

os::Result<std::string> Journal::blob(const std::string& sha256, uint64_t max) const {
  bool over = false;
  auto got = read_small(blobs_.get(), sha256, max, ".tack/journal/blobs/" + sha256, &over);
  if (auto* e = std::get_if<contract::Error>(&got)) {
    contract::Error m = contract::make_error(
        "journal.damaged",
        "the journal's copy of the earlier content (" + sha256.substr(0, 12) +
            "…) is missing or unreadable; nothing was changed.",
        Json::object({{"blob", sha256}, {"cause", e->rule}}));
    m.repair = contract::Repair::none("the earlier content is not kept any more");
    return m;
  }
  if (over || os::sha256_hex(std::get<std::string>(got)) != sha256) {
    contract::Error m = contract::make_error(
        "journal.damaged",
        "the journal's copy of the earlier content (" + sha256.substr(0, 12) +
            "…) is not what its name says (or larger than tack holds); nothing was changed.",
        Json::object({{"blob", sha256}}));
    m.repair = contract::Repair::none("the earlier content is not kept any more");
    return m;
  }
  return got;
}

}  // namespace writer
