// search.h — seek's per-file worker: a file searched on a worker thread into pieces of
// rendered records, handed to the main thread in walk order (os::Ordered).
#pragma once

#include <sys/stat.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contract/error.h"
#include "os/inputs.h"
#include "os/open.h"
#include "os/ordered.h"
#include "os/walk.h"
#include "text/scan.h"
#include "tools/seek/args.h"

namespace seek {

// --- per-file output, handed from the workers to the main thread in walk order ------------

enum class RecKind : uint8_t { Match, Context, Error };
struct Rec {
  RecKind kind;
  uint64_t lo, hi;    // Match: its ordinal in the file (lo == hi); Context: the matches it
                      // serves (lo exact; hi may miss a match found later); Error: the index
                      // into Slot::errors
  size_t begin, end;  // its bytes in Piece::bytes, '\n' included
  uint64_t line = 0;  // Match, Context: the line number
};
struct Piece {
  std::string bytes;
  std::vector<Rec> recs;
  size_t size() const { return bytes.size(); }
  bool empty() const { return bytes.empty() && recs.empty(); }
};

// A part's size: a file of twice this or more is split (when Search::parts says so).
constexpr uint64_t kPartBytes = 16 << 20;
// The parts of kPartBytes that `size` bytes fill (the last one short).
constexpr uint64_t part_count(uint64_t size) {
  return size / kPartBytes + (size % kPartBytes != 0);
}

// A large file is searched in parts, a slot each, so that the workers share it: a file named
// as an operand is pushed as its parts; a walked one (whose size the walk does not know) is
// searched as its first part, and the rest are made when its worker finds it goes on (Page
// takes them next: os::Ordered's Expand). Part k holds the lines that start in [from, to)
// (text::ScanOptions::from). The worker cannot know the lines and matches of the parts before its
// own, so its records number lines from the part's first; the main thread, which takes the parts in
// order, moves them (Page) and joins the parts' results into the file's.
struct SharedFile {
  os::Fd fd;
  text::FileEol eol;  // its line endings, found once
};
struct Part {
  std::shared_ptr<SharedFile> file;
  uint64_t from = 0, to = UINT64_MAX;
  bool last = false;  // the file's last part
  // Set by the worker: the part's result, and where the line number sits in the records it
  // rendered (bytes from a record's start; a match's and a context line's).
  text::ScanResult scan;
  size_t match_line_at = 0, context_line_at = 0;
};

// One input in walk order: a file to search, or an error found by the walk.
struct Slot : os::OrderedSlot<Piece> {
  std::string path;
  std::optional<os::Entry> entry;  // a walked file, opened by the worker
  os::Fd fd;                       // a named file, opened by the main thread
  struct stat st {};
  bool named = false;
  os::SkipCounts walk_skips;  // what the walk left out between the previous slot and this one
  std::vector<contract::Error> errors;
  bool searched = false, binary = false;
  uint64_t found = 0;
  // The file's size as opened (as its first read found it, for a file opened without fstat):
  // known before the first of its pieces is published.
  uint64_t bytes() const { return static_cast<uint64_t>(st.st_size); }
  std::vector<uint64_t> pattern_counts;  // -e with counts: lines each pattern matched
  os::SkipCounts own;                    // this entry, when opening showed it is not to be searched
  std::unique_ptr<Part> part;            // one part of a file searched in parts
};

struct Worker {
  std::unique_ptr<text::Matcher> matcher;
  text::ScanBuffer buffer;
};

using Ordered = os::Ordered<Slot, Worker>;

// --- one file (worker side) ---------------------------------------------------------------

// What an answer holds: matching lines (the default), or with -c, -l or --max-count 0 a
// record per file or only totals, for which no line is rendered.
enum class Mode { Lines, Count, Files };

struct Search {
  const Args& a;
  bool text = false;
  Mode mode = Mode::Lines;
  bool totals = false;  // --max-count 0: no records, totals only
  uint64_t limit = 0;   // matching lines worth finding in one file: skip + max-count + 1
  size_t workers = 1;   // the pool's threads
  Ordered* pool = nullptr;
  bool lines() const { return mode == Mode::Lines && !totals; }
  bool last() const { return lines() && a.last > 0; }
  // Exact counts per -e pattern: -c, or totals of lines.
  bool pattern_counts() const { return !a.patterns.empty() && mode != Mode::Files && !lines(); }
  // Whether a large file is searched in parts: when more than one worker runs, and what is
  // asked for can be joined from parts (counts, or lines, with their context and --last's
  // too, without witnesses; -l reads a file only to its first match).
  bool splits() const;
  // How many parts a file of `size` bytes is searched in (1: whole).
  uint64_t parts(uint64_t size) const;
};

// Part k of n of a file whose parts share `file`.
std::unique_ptr<Slot> part_slot(const std::string& path, const struct stat& st,
                                const std::shared_ptr<SharedFile>& file, uint64_t k, uint64_t n);

// The main thread's Expand step (os::Ordered): for the first part of a walked file that its
// worker found to be larger than a part (search_file), the parts after it; else none.
std::vector<std::unique_ptr<Slot>> rest_of(const Slot& s);

// Searches one file on a worker thread: its records are published to the main thread in pieces
// as they fill, the rest left in Slot::last; what it counts goes in the slot.
void search_file(const Search& cfg, Slot& s, Worker& w);

// A slot that holds only an error found by the walk.
std::unique_ptr<Slot> error_slot(contract::Error e);

}  // namespace seek
