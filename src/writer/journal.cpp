// journal.cpp — the journal's store on disk (see journal.h): its directories and lock, the
// earlier contents kept as blobs, entries staged and completed, pruning to the cap, and
// reading all of it back. The entry's text form is journal_entry.cpp, its small files'
// reads and writes journal_files.cpp.
#include "writer/journal.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <set>
#include <utility>

#include "os/hash.h"
#include "os/open.h"
#include "os/write_error.h"
#include "writer/journal_entry.h"
#include "writer/journal_files.h"

namespace writer {

using contract::Json;

namespace {

// A directory beneath `at`, made if missing, opened without following a link. (Opened first:
// it is there at every change but the first.)
os::Result<os::Fd> subdir(int at, const char* name, std::string_view shown, bool make) {
  constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int fd = openat(at, name, kFlags);
  bool made = false;
  if (fd < 0 && errno == ENOENT && make) {
    made = mkdirat(at, name, 0755) == 0;
    if (!made && errno != EEXIST) return os::write_error(errno, shown, "mkdir");
    fd = openat(at, name, kFlags);
  }
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

uint64_t cap_of(int journal) {
  auto text = read_small(journal, "max-bytes", 64, "max-bytes");
  if (auto* s = std::get_if<std::string>(&text)) {
    std::string_view v = *s;
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
    if (auto n = parse_nat(v)) return *n;
  }
  return kJournalCap;
}

// The tally, .tack/journal/tally: "ID BYTES", the newest id allocated and the journal's size
// once that entry was staged, each 20 digits wide. A hint that spares a change listing and
// measuring every entry and blob (which grew with the journal: thousands of stats a call).
// Ids are allocated one after another and pruned oldest first, so the id after it is used
// only while an entry holds ID and none ID + 1 (else the entries are listed); the size is
// measured from the files again every kRecount ids and whenever the tally passes the cap
// (pruning measures it too: a full journal is measured once every cap/8 bytes of changes).
// The tally is written once each change is recorded, so only a writer stopped in between, or
// someone else's hand in the journal, leaves it off; the recount bounds that.
// Read and written under the lock, in place (always the same width), never fsynced: a
// crash, or a write torn by one, costs at most one listing and a size off until measured.
constexpr uint64_t kRecount = 1024;

struct Tally {
  uint64_t last = 0, bytes = 0;
};

std::optional<Tally> read_tally(int journal) {
  auto text = read_small(journal, "tally", 64, "tally");
  auto* s = std::get_if<std::string>(&text);
  if (!s) return std::nullopt;
  std::string_view v = *s;
  const size_t space = v.find(' ');
  if (space == std::string_view::npos || v.empty() || v.back() != '\n') return std::nullopt;
  auto last = parse_nat(v.substr(0, space));
  auto bytes = parse_nat(v.substr(space + 1, v.size() - space - 2));
  if (!last || !bytes) return std::nullopt;
  return Tally{*last, *bytes};
}

void write_tally(int journal, Tally t) {
  char text[64];
  const int n = snprintf(text, sizeof text, "%020llu %020llu\n",
                         static_cast<unsigned long long>(t.last),
                         static_cast<unsigned long long>(t.bytes));
  int fd = openat(journal, "tally", O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) return;
  os::Fd owned(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || n <= 0) return;
  if (st.st_size > n && ftruncate(fd, n) != 0) return;  // longer: not written by this code
  (void)write_all(fd, std::string_view(text, static_cast<size_t>(n)), "tally");
}

}  // namespace

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

bool Journal::entry_named(const std::string& name) const {
  struct stat st {};
  return fstatat(entries_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool Journal::pending(uint64_t id) const {
  return !entry_named(id_name(id)) && entry_named(id_name(id) + ".pending");
}

bool Journal::holds(uint64_t id) const {
  return entry_named(id_name(id)) || entry_named(id_name(id) + ".pending");
}

bool Journal::has_blob(const std::string& sha256) const {
  struct stat st {};
  return fstatat(blobs_.get(), sha256.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISREG(st.st_mode);
}

// A blob already there is trusted only while nothing else shares it and its bytes are still
// what it is named: a blob linked from a file whose change then failed shares that file's
// inode, and whatever writes to the file meanwhile writes to the blob. (Read only when a
// blob of that content is there already: a content written back, or a change retried.)
uint64_t Journal::kept_blob(const std::string& sha256, const std::string_view* content,
                            uint64_t seen) const {
  int fd = openat(blobs_.get(), sha256.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  os::Fd owned(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_ino == 0) return 0;
  const uint64_t ino = static_cast<uint64_t>(st.st_ino);
  // Compared already: still that file, of that size (an appender through a descriptor held
  // on the replaced file grows it).
  if (seen != 0 && ino == seen &&
      (!content || static_cast<uint64_t>(st.st_size) == content->size()))
    return ino;
  if (content) {
    // A comparison costs a copy where a hash costs a SHA-256 pass (up to 1 MiB, before the
    // entry's fsync).
    if (static_cast<uint64_t>(st.st_size) != content->size()) return 0;
    std::string buf(std::min<size_t>(content->size(), 256 * 1024), '\0');
    for (size_t at = 0; at < content->size();) {
      const size_t n = std::min(buf.size(), content->size() - at);
      if (os::pread_full(fd, buf.data(), n, at) != static_cast<long long>(n) ||
          std::memcmp(buf.data(), content->data() + at, n) != 0)
        return 0;
      at += n;
    }
    char extra;  // grown since the fstat: not the bytes named
    return pread(fd, &extra, 1, static_cast<off_t>(content->size())) == 0 ? ino : 0;
  }
  auto hashed = os::sha256_fd(fd, ".tack/journal/blobs/" + sha256);
  const auto* h = std::get_if<os::Hashed>(&hashed);
  return h && h->hex == sha256 ? ino : 0;
}

uint64_t blob_holding(int root_fd, const std::string& sha256, std::string_view content) {
  auto opened = Journal::open(root_fd, false);
  if (!std::holds_alternative<Journal>(opened)) return 0;
  return std::get<Journal>(opened).kept_blob(sha256, &content);
}

// The earlier content kept by linking the old file's inode into blobs/, not by copying it:
// the change then renames its new file over the name, and the old inode lives on only as the
// blob. Only where nothing can change those bytes afterwards nor make the blob more than
// bytes: a regular file of one link (another name could write to the blob later), without
// set-id or sticky bits (a set-id program would outlive its replacement), still the size of
// the content hashed, on the journal's filesystem; its data is made durable (fdatasync)
// before stage() returns, since the blob is relied on once the change commits. Whatever
// refuses the link (EXDEV: a mount beneath the root, or Landlock without the right to link
// across directories; EPERM: an immutable file, protected_hardlinks; ENOENT: the file
// unlinked meanwhile, or a kernel that allows AT_EMPTY_PATH only to CAP_DAC_READ_SEARCH)
// leaves the copy to do.
bool Journal::link_blob(const Change& c, uint64_t size) {
  struct stat st {};
  if (c.source_fd < 0 || fstat(c.source_fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_nlink != 1 || (st.st_mode & 07000) != 0 || static_cast<uint64_t>(st.st_size) != size)
    return false;
  struct stat dir {};
  if (fstat(blobs_.get(), &dir) != 0 || dir.st_dev != st.st_dev) return false;
  // Its writeback starts now; stage() waits for it (fdatasync) once the entry is written.
  sync_file_range(c.source_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  const std::string tmp = c.before + ".tmp";
  unlinkat(blobs_.get(), tmp.c_str(), 0);  // left by a writer that was killed (under the lock)
  if (linkat(c.source_fd, "", blobs_.get(), tmp.c_str(), AT_EMPTY_PATH) != 0) return false;
  // Two links now, the name and the blob: a third made meanwhile by anyone means copy instead.
  struct stat now {};
  if (fstat(c.source_fd, &now) != 0 || now.st_nlink != 2 ||
      renameat(blobs_.get(), tmp.c_str(), blobs_.get(), c.before.c_str()) != 0) {
    unlinkat(blobs_.get(), tmp.c_str(), 0);
    return false;
  }
  return true;
}

// The earlier content, linked (`linked`: the descriptor whose data stage() must still make
// durable) or copied (fsynced). The blobs directory itself is fsynced by stage().
std::optional<contract::Error> Journal::write_blob(const Change& c, int& linked, uint64_t& bytes) {
  std::string held;
  std::string_view content;
  if (c.content) {
    content = *c.content;  // hashed to `before` by the caller
  } else {
    // Read back and hashed here, linked or not: the descriptor may not be where `before`
    // was taken from (undo opens the file again after checking it).
    auto hashed = os::sha256_fd(c.source_fd, c.path, &held, kJournalHeld);
    if (auto* e = std::get_if<contract::Error>(&hashed)) return std::move(*e);
    const os::Hashed& h = std::get<os::Hashed>(hashed);
    if (!h.kept) return os::write_error(EFBIG, c.path, "journal");
    if (h.hex != c.before) return os::write_error(ESTALE, c.path, "journal");
    content = held;
  }
  bytes = content.size();
  if (link_blob(c, content.size())) {
    linked = c.source_fd;
    return std::nullopt;
  }
  return put_file(blobs_.get(), c.before, content, ".tack/journal/blobs");
}

// Ordered so that few of the fsyncs wait for a journal commit of their own: the blob's name is
// made before the entry's fsync, which commits it (and, on ext4, the linked file's data whose
// writeback started at the link); the waits after it mostly find their work done. The change's
// new file (Change::new_file) is fsynced on a second thread beside the entry's fsync.
std::optional<contract::Error> Journal::stage(const contract::Context& ctx, Change c) {
  JournalLock lock(journal_.get());
  if (auto e = lock.take()) return e;
  if (id_ == 0) {
    // The id after the tally's, unless an entry holds it (the tally is behind, or missing):
    // then after the newest entry there is, and the size is measured in done().
    const std::optional<Tally> tally = read_tally(journal_.get());
    if (tally && tally->last > 0 && holds(tally->last) && !holds(tally->last + 1)) {
      id_ = tally->last + 1;
      size_ = tally->bytes;
    } else {
      auto all = ids();
      if (auto* e = std::get_if<contract::Error>(&all)) return std::move(*e);
      const auto& list = std::get<std::vector<uint64_t>>(all);
      id_ = list.empty() ? 1 : list.back() + 1;
    }
    staged_.id = id_;
    staged_.tool = std::string(ctx.tool().name);
    staged_.argv = ctx.argv();
  }
  const bool blob =
      c.restore == Change::Restore::Blob && kept_blob(c.before, c.content, c.blob_seen) == 0;
  int linked = -1;
  uint64_t blob_bytes = 0;
  if (blob)
    if (auto e = write_blob(c, linked, blob_bytes)) return e;
  os::TempFile* new_file = c.new_file;
  c.source_fd = -1;
  c.content = nullptr;
  c.new_file = nullptr;
  staged_.changes.push_back(std::move(c));
  // The entry's fsync commits the blob's name (and, on ext4, the linked file's data, whose
  // writeback began at the link): the blob's own waits after it find little left. Each
  // rename's directory is fsynced before the next rename.
  const std::string name = id_name(id_) + ".pending";
  const std::string_view shown = ".tack/journal/entries";
  const std::string entry = format_entry(staged_);
  // The call's first change: the entry is made under its pending name at once (no entry of
  // this id exists: ids are allocated under the lock), one wait for the disk fewer. A crash
  // while it is written leaves a torn pending entry, before anything was changed (read()
  // says so, undo --last passes over it). A later change of the call replaces an entry that
  // records changes made already: through a temporary name, renamed over it.
  const bool first = !written_;
  auto e = first ? put_new(entries_.get(), name, entry, shown, new_file)
                 : put_temp(entries_.get(), name, entry, shown, new_file);
  if (!e && linked >= 0 && fdatasync(linked) != 0)
    e = os::write_error(errno, staged_.changes.back().path, "fdatasync");
  if (!e && blob && fsync(blobs_.get()) != 0)
    e = os::write_error(errno, ".tack/journal/blobs", "fsync");
  if (e) unlinkat(entries_.get(), (first ? name : name + ".tmp").c_str(), 0);
  if (!e && !first) e = rename_temp(entries_.get(), name, shown);
  if (!e && fsync(entries_.get()) != 0) e = os::write_error(errno, shown, "fsync");
  if (e) {
    staged_.changes.pop_back();
    return e;
  }
  written_ = true;
  blob_bytes_ += blob_bytes;
  entry_bytes_ = entry.size();
  if (size_) write_tally(journal_.get(), {id_, *size_ + blob_bytes_ + entry_bytes_});
  return std::nullopt;
}

Json Journal::done() {
  Json out = Json::object({{"id", id_}});
  Json pruned = Json::array();
  if (!written_) return out;
  JournalLock lock(journal_.get());
  (void)lock.take();  // pruning is best effort; the entry itself is on disk already
  const std::string name = id_name(id_);
  // Not fsynced: the change is durable already, and an entry found pending after a crash is
  // taken for what the files say (undo --last takes it back when its last change is in place).
  // The filesystem's next commit makes the rename durable.
  renameat(entries_.get(), (name + ".pending").c_str(), entries_.get(), name.c_str());
  const uint64_t cap = cap_of(journal_.get());
  // The size from the tally where it is known and not due to be measured again.
  uint64_t total = size_ ? *size_ + blob_bytes_ + entry_bytes_ : 0;
  std::vector<std::pair<std::string, uint64_t>> entries, blobs;
  const bool measure = !size_ || id_ % kRecount == 0 || total > cap;
  if (measure) {
    entries = files_of(entries_.get());
    blobs = files_of(blobs_.get());
    total = 0;
    for (auto& [n, s] : entries) total += s;
    for (auto& [n, s] : blobs) total += s;
  }
  if (total > cap) {
    // Down to 7/8 of the cap, so that the journal is listed and read whole for pruning once
    // every cap/8 bytes of changes rather than at every change once it is full.
    const uint64_t goal = cap - cap / 8;
    std::sort(entries.begin(), entries.end());
    for (auto& [n, s] : entries) {
      if (total <= goal) break;
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
      if (!named.count(n) && os::is_sha256_hex(n) && unlinkat(blobs_.get(), n.c_str(), 0) == 0)
        total -= s;
    out.set("pruned", std::move(pruned));
    out.set("cap", cap);
  }
  if (!measure) return out;  // stage() wrote the tally as it stands
  // Never back to an older id than a writer after this one staged meanwhile.
  const std::optional<Tally> now = read_tally(journal_.get());
  const bool later = now && now->last > id_ && holds(now->last);
  write_tally(journal_.get(), {later ? now->last : id_, total});
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
  for (auto& [n, s] : files_of(entries_.get(), false))
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
  if (auto* e = std::get_if<contract::Error>(&parsed)) {
    // Only a call's first entry is written under its pending name; torn, it was never whole
    // on disk, and the change it was to record never made.
    if (pending)
      return damaged(id, "is pending and incomplete: its writer stopped while recording it, "
                         "before it changed anything");
    return std::move(*e);
  }
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
