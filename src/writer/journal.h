// journal.h — the record of every change the writers make, kept beneath the root in
// ROOT/.tack/journal/ (without --root, beneath the working directory), so that `undo` can take
// a change back later, from any process.
//
// Layout:
//   .tack/.gitignore          "*": the journal is never committed by accident
//   .tack/journal/entries/    one file per entry, named by its id (16 decimal digits);
//                             `ID.pending` until the change it records is committed
//   .tack/journal/blobs/      earlier contents, named by their SHA-256: stored once however
//                             often they recur (linked where they can be, see below)
//   .tack/journal/max-bytes   optional: the cap on the journal's size, in decimal (default
//                             64 MiB); past it the oldest entries are pruned, down
//                             to 7/8 of it
//   .tack/journal/tally       the newest id and the journal's size: a hint (see journal.cpp)
//
// An entry is text lines, then the bytes its patches took out (the payload):
//   tack-journal 1
//   id N
//   tool NAME
//   arg HEX                   one per argv word, its bytes in hex
//   file KIND PATH BEFORE AFTER MODE TO RESTORE ADDED REMOVED
//   patch AT LEN OLDLEN       (after a `file` whose RESTORE is `patch`, in order of AT)
//   payload BYTES
//   end
//   <payload: the OLDLEN bytes of each patch, in order>
// KIND is create, replace, rename or remove; PATH and TO (the new name of a rename or
// remove's tombstone, else `-`) are hex of their bytes, so no name can break a line; BEFORE
// and AFTER are SHA-256 hex or `-` (none: a create has no before, a directory no hash); MODE
// is the octal permission bits before; RESTORE is `blob` (the earlier content is
// blobs/BEFORE: a small file, or a whole-file write), `patch` (a large file: only what the
// change took out, each patch saying that bytes [AT, AT+LEN) of the file as the change left
// it were OLDLEN bytes of the payload before) or `none` (a create, rename or remove: the name
// is what goes back). ADDED and REMOVED count lines, for the listing.
//
// A blob is kept by linking the replaced file's inode into blobs/ (linkat of the descriptor the
// change read it from, to a temporary name, then a rename to its hash) wherever that is safe:
// a regular file of one link, without set-id or sticky bits, on the journal's filesystem, still
// the size of the content hashed. The change then renames its new file over the name, so the
// old inode lives on only as the blob, and keeping 1 MiB costs a link and no copy. Anything
// else (a second link, which could write to the blob later; a mount beneath the root; a kernel
// or Landlock refusing the link) is copied, as are the patches' bytes. The linked file's data
// is made durable (fdatasync) before the change commits. A blob already there is used again
// only when nothing else shares its inode and it still hashes to its name: a blob linked from a
// file whose commit then failed shares that file's inode, and what writes to one writes to both.
// undo reads a blob's bytes (checking their hash) into a new file: it never renames the blob.
//
// Order on disk: the blob, then the entry as `ID.pending`, each fsynced with its directory
// (every name made first, so that the entry's fsync commits them all and the waits after it
// mostly find their work done), then the caller commits its change, then the entry is renamed
// to `ID` (not fsynced: the change it records is durable already). A crash leaves the old file
// with a pending entry or the new file with its entry, complete or pending (pending when the
// crash fell between the commit and that rename's reaching the disk: read() says so, and undo
// looks at the files themselves: `undo --last` takes a pending entry back when its last change
// is in place). No clock is read: ids are allocated in order under the journal's lock.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "contract/context.h"
#include "contract/error.h"
#include "os/open.h"
#include "os/temp_file.h"
#include "text/line_edits.h"

namespace writer {

inline constexpr uint64_t kJournalCap = 64ull * 1024 * 1024;
// A file at most this large is journaled whole (its earlier content, as a blob); a larger one
// by what the change took out, where the change knows it (replace's and edit's streamed
// rewrites).
inline constexpr uint64_t kJournalWhole = 1ull * 1024 * 1024;
// The most the journal holds of one blob or patch (the writers' --max-bytes ceiling).
inline constexpr uint64_t kJournalHeld = 256ull * 1024 * 1024;
// The most an entry's header may be (its lines before the payload).
inline constexpr uint64_t kHeaderMax = 1ull * 1024 * 1024;

// Bytes [at, at+len) of the file as the change left it were `old` before.
struct Patch {
  uint64_t at = 0, len = 0;
  std::string old;
  uint64_t old_len = 0;  // read from an entry: the size of `old` (read only with the payload)
};

struct Change {
  std::string kind;  // create, replace, rename, remove
  std::string path, to;
  std::string before, after;  // SHA-256 hex, or empty
  // Permission bits; for a rename or a removal also the type (S_IFREG, S_IFLNK, S_IFDIR) of
  // what was moved, so that undo puts back only that kind (an entry without one: any kind).
  mode_t mode = 0;
  enum class Restore { None, Blob, Patch } restore = Restore::None;
  std::vector<Patch> patches;
  uint64_t added = 0, removed = 0;
  // Writing a Blob change: the earlier content, read from this descriptor (it must hash to
  // `before`), unless `content` holds it already.
  int source_fd = -1;
  const std::string_view* content = nullptr;
  // The change's new content, written whole and not yet committed: fsynced (sync_ahead) beside
  // the entry, once every name the entry's fsync commits is made, so that one journal commit
  // of the filesystem carries both (a new file fsynced first commits alone, and the entry's
  // fsync then waits for a second).
  os::TempFile* new_file = nullptr;
  // The inode blob_holding() found holding `content` as the blob of `before` (0: none): a
  // blob still of that inode is trusted without being read again.
  uint64_t blob_seen = 0;
};

struct Entry {
  uint64_t id = 0;
  bool pending = false;
  std::string tool;
  std::vector<std::string> argv;
  std::vector<Change> changes;
  uint64_t payload_at = 0, payload_bytes = 0;  // where the payload starts in the entry file
};

class Journal {
 public:
  // Opens the journal beneath root_fd (-1: the working directory), making what is missing.
  // Errors: path.symlink (a link inside .tack/), io.not-a-directory, io.write-failed.
  // Without `make` nothing is made: a journal not there is io.not-found.
  static os::Result<Journal> open(int root_fd, bool make = true);
  Journal(Journal&&) noexcept = default;
  ~Journal();

  // One more change of this call recorded: the pending entry (every change staged so far) is
  // written and fsynced before this returns; the caller then commits the change. The first
  // call allocates the id.
  std::optional<contract::Error> stage(const contract::Context& ctx, Change c);
  // After the commits: the entry is complete (renamed from pending) and the journal pruned to
  // its cap, oldest first. The answer's `journal` object: id, and the ids pruned.
  contract::Json done();
  uint64_t id() const { return id_; }

  // Reading. Ids, oldest first; an entry (its header, and with payload its patches' bytes);
  // a blob, checked against its name.
  os::Result<std::vector<uint64_t>> ids() const;
  os::Result<Entry> read(uint64_t id, bool payload) const;
  os::Result<std::string> blob(const std::string& sha256, uint64_t max) const;
  bool has_blob(const std::string& sha256) const;
  bool pending(uint64_t id) const;  // the entry of that id is there only as pending
  int root() const { return root_.get(); }

 private:
  Journal() = default;
  // A blob of that name is there and holds those bytes: compared with `content` where the
  // caller holds them (already hashed to the name), else hashed; or it is the inode `seen`
  // (blob_holding() compared it already). Its inode, or 0.
  uint64_t kept_blob(const std::string& sha256, const std::string_view* content,
                     uint64_t seen = 0) const;
  friend uint64_t blob_holding(int root_fd, const std::string& sha256, std::string_view content);
  bool holds(uint64_t id) const;  // an entry of that id, complete or pending
  bool entry_named(const std::string& name) const;  // a name in entries/, of whatever kind
  bool link_blob(const Change& c, uint64_t size);
  std::optional<contract::Error> write_blob(const Change& c, int& linked, uint64_t& bytes);
  os::Fd root_, entries_, blobs_, journal_;
  uint64_t id_ = 0;
  Entry staged_;
  bool written_ = false;
  // The journal's size before this call's entry, from the tally (none: measured in done()),
  // and what this call added: the blobs it wrote, and its entry as last written.
  std::optional<uint64_t> size_;
  uint64_t blob_bytes_ = 0, entry_bytes_ = 0;
};

// The journal of one call, opened at its first change (never with --no-journal, nor in a dry
// run, which changes nothing). A writer stages each change just before committing it, and
// once done puts the entry's id in its answer (`journal`: null when nothing was recorded).
class Recorder {
 public:
  Recorder(const contract::Context& ctx, bool off)
      : ctx_(ctx), off_(off || ctx.journal_outside()) {}
  std::optional<contract::Error> stage(Change c);
  void finish(contract::Json& data);
  bool on() const { return !off_; }

 private:
  const contract::Context& ctx_;
  bool off_;
  std::optional<Journal> j_;
};

// The inode of the blob of `sha256` in the journal beneath root_fd when it holds exactly
// `content` (0: no journal, no such blob, or other bytes). Makes nothing and takes no lock:
// a writer asks on a second thread, before its change is staged, and passes the answer on as
// Change::blob_seen. Blobs are only ever made whole under a name (renamed or linked there)
// and tack never writes one in place, so a blob that is still that inode, of that size, is
// taken to hold those bytes still. (A blob linked from a replaced file can be written through
// a descriptor still open on that file; the comparison stage() would make instead is only a
// moment later and no safer.)
uint64_t blob_holding(int root_fd, const std::string& sha256, std::string_view content);

// The change of a file that existed (kind replace): its mode, hashes, and the lines the diff
// (text::diff_json, or null) counts. Its restore is left for the caller to choose.
Change replaced_file(const std::string& path, const struct stat& st, const std::string& before,
                     const std::string& after, const contract::Json& diff);

// The change of a streamed rewrite (replace's and edit's): a file of at most kJournalWhole
// bytes by its earlier content whole (a blob, from source_fd), a larger one by the patches
// `taken_out` gives (called only then: what the rewrite removed, with its places).
template <class TakenOut>
os::Result<Change> rewritten_file(const std::string& path, const struct stat& st,
                                  const std::string& before, const std::string& after,
                                  const contract::Json& diff, uint64_t total, int source_fd,
                                  TakenOut taken_out) {
  Change c = replaced_file(path, st, before, after, diff);
  if (total <= kJournalWhole) {
    c.restore = Change::Restore::Blob;
    c.source_fd = source_fd;
    return c;
  }
  c.restore = Change::Restore::Patch;
  os::Result<std::vector<Patch>> patches = taken_out();
  if (auto* e = std::get_if<contract::Error>(&patches)) return std::move(*e);
  c.patches = std::move(std::get<std::vector<Patch>>(patches));
  return c;
}

// What a streamed rewrite took out, as patches: the cuts (text::Cut, of the file at fd as it
// was) read back from fd.
os::Result<std::vector<Patch>> patches_of_cuts(int fd, const std::string& path,
                                               const std::vector<text::Cut>& cuts);

// journal.damaged: an entry or blob that is truncated, malformed or not what it names.
contract::Error damaged(uint64_t id, std::string what);

// The entry's text form (header and payload), and the parse of one; exposed for the tests.
std::string format_entry(const Entry& e);
os::Result<Entry> parse_header(uint64_t id, std::string_view text, uint64_t file_size);

}  // namespace writer
