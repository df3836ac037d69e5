// walk.h — a recursive directory walk for the readers that take directories (seek, list):
// depth-first, names in bytewise order, never following a symbolic link, honest about what
// it leaves out.
//
// Confinement: every directory is opened relative to its parent's descriptor with
// O_NOFOLLOW|O_DIRECTORY and read through that descriptor (getdents64); no path is ever
// resolved again from the top, so a directory swapped for a link mid-walk is refused by the
// kernel instead of followed. Links are reported as links (kind Link) and never entered.
//
// Filtering, in ripgrep's order: --glob rules first (a match decides; with any plain glob, a
// file matching none is left out), then `.ignore` and `.gitignore` rules (gitignore(5): the
// deepest file with a matching rule decides, any `.ignore` match before any `.gitignore`
// match; an excluded directory is not entered, so nothing inside it can be re-included), then
// hidden names (a leading '.'). A rule that re-includes a path (`!`) also admits it when
// hidden. Ignore files are read in every directory from the ignore root down.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contract/error.h"
#include "os/open.h"
#include "text/ignore.h"

namespace os {

enum class EntryKind { File, Directory, Link, Other };
std::string_view kind_name(EntryKind k);  // "file" | "directory" | "link" | "other"

// What a walk (and its caller) left out, by cause, each entry counted once under the first
// rule that left it out (the order above): the walker counts `glob` (--glob), `ignored`
// (ignore files) and `hidden`; the caller counts the rest as it meets them.
struct SkipCounts {
  uint64_t ignored = 0, hidden = 0, binary = 0, special = 0, symlink = 0, glob = 0;
  SkipCounts& operator+=(const SkipCounts& o);
  SkipCounts operator-(const SkipCounts& o) const;
  // {"ignored":…,"glob":…,"hidden":…,"binary":…,"special":…,"symlink":…}
  contract::Json to_json() const;
};

struct WalkOptions {
  bool hidden = false;             // include hidden names
  bool no_ignore = false;          // read no .gitignore / .ignore
  std::vector<std::string> globs;  // --glob: gitignore syntax, a match includes, `!` excludes
  uint64_t max_depth =
      UINT64_MAX;         // entries below it are not listed; directories at it not entered
  // max_depth is the walk's ceiling, not a depth asked for: a directory at it that holds
  // entries is a limit.too-deep error right after its entry (never a silent cut).
  bool depth_is_a_limit = false;
  bool stat_all = false;  // lstat every entry (Entry::st); else only where needed
  bool fs_kind = false;   // set Entry::whole_reads (one fstatfs per directory with files)
  size_t max_ignore_bytes = 16 * 1024 * 1024;  // a larger ignore file is limit.input-too-large
};

struct Entry {
  std::string path;  // as shown: the operand's spelling, then the names below it
  std::string name;  // the last component
  EntryKind kind = EntryKind::Other;
  uint64_t depth = 0;                // 1 for the operand's own children
  std::shared_ptr<const Fd> parent;  // the directory that holds `name`, for openat
  struct stat st {};                 // lstat data when has_stat
  bool has_stat = false;
  // Its directory is on a filesystem whose regular files are read whole (whole_reads_fs):
  // there a read short of what it asked for, and not ending at a page boundary, ends the file.
  bool whole_reads = false;
};

struct WalkItem {
  enum class Type { Entry, Error } type = Type::Entry;
  Entry entry;
  contract::Error error;
};

class Walker {
 public:
  // Walks below the directory `dir` (taken), shown as `shown`. `ignore_root` (not taken; -1
  // for none) is the directory ignore rules start from and `rel` the walked directory's path
  // below it ("" when it is the ignore root itself): the ignore files of the directories in
  // between are read first, so `seek x src` honours the root's .gitignore. Globs and ignore
  // rules see paths relative to the ignore root.
  Walker(WalkOptions opts, Fd dir, std::string shown, int ignore_root, std::string rel);

  // The next entry or error, in walk order; false when the walk is over.
  bool next(WalkItem& out);
  const SkipCounts& counts() const { return counts_; }

 private:
  struct Name {
    size_t at;  // in the frame's pool
    uint16_t len;
    unsigned char type;  // d_type
  };
  struct Level {
    size_t base = 0;  // length of the directory's relative path plus its '/' (0 at the top)
    text::IgnoreList git, dot;
  };
  struct Frame {
    std::shared_ptr<const Fd> dir;
    std::string shown, rel;
    uint64_t depth = 0;
    std::string pool;  // the names, each ended by a NUL
    std::vector<Name> names;
    size_t next = 0;
    bool level = false;  // pushed an ignore level
    bool whole_reads = false;
  };

  static int read_names(int fd, std::string& pool, std::vector<Name>& out);
  void enter(std::shared_ptr<const Fd> dir, std::string shown, std::string rel, uint64_t depth);
  void load_ignores(int dirfd, const std::string& shown, const std::string& rel, bool listed_git,
                    bool listed_dot);
  bool read_ignore(int dirfd, const char* file, const std::string& shown, std::string& out);
  bool excluded(const std::string& rel, const std::string& name, bool is_dir);
  void error(contract::Error e);

  WalkOptions opts_;
  text::IgnoreList globs_;
  std::vector<Level> levels_;
  std::vector<Frame> stack_;
  std::deque<WalkItem> pending_;
  // A directory just reported, entered on the next call (its errors follow its entry).
  struct Enter {
    std::shared_ptr<const Fd> parent;
    std::string name, shown, rel;
    uint64_t depth;
  };
  std::optional<Enter> enter_next_;
  std::string rel_;  // the entry's path below the ignore root, made in place for each entry
  SkipCounts counts_;
};

// Whether the filesystem of `fd` reads a regular file whole: its reads go through the page
// cache and come back short of what they asked only at the end of the file, or before a page
// whose read failed (so never short of a page boundary but at the end). ext2-4, XFS, Btrfs,
// F2FS and tmpfs; not procfs, sysfs, FUSE or network filesystems, whose reads may stop
// anywhere.
bool whole_reads_fs(int fd);

// Opens a walked file for reading: openat(parent, name, O_NOFOLLOW|O_NONBLOCK), then fstat on
// the same descriptor (the caller checks the kind: a FIFO swapped in is open but never read).
// Returns the descriptor, or -errno (ELOOP: it is now a link).
int open_entry(const Entry& e, struct stat& st);
// The same without the fstat, for an entry the walk listed as a regular file whose first read
// says what it is (inputs.h: walked_reader).
int open_entry(const Entry& e);

}  // namespace os
