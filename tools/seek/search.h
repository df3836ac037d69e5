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
  Ordered* pool = nullptr;
  bool lines() const { return mode == Mode::Lines && !totals; }
  bool last() const { return lines() && a.last > 0; }
  // Exact counts per -e pattern: -c, or totals of lines.
  bool pattern_counts() const { return !a.patterns.empty() && mode != Mode::Files && !lines(); }
};

// Searches one file on a worker thread: its records are published to the main thread in pieces
// as they fill, the rest left in Slot::last; what it counts goes in the slot.
void search_file(const Search& cfg, Slot& s, Worker& w);

// A slot that holds only an error found by the walk.
std::unique_ptr<Slot> error_slot(contract::Error e);

}  // namespace seek
