// page.h — seek's paging, on the main thread: the pieces of each file in walk order, cut to
// the window --skip and --max-count ask for, with the totals the end record reports.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "contract/context.h"
#include "tools/seek/search.h"
#include "tools/seek/tail.h"

namespace seek {

struct Page {
  const Args& a;
  contract::Context& ctx;
  const Search& cfg;
  uint64_t base = 0;  // matching lines found in the files before the head slot
  // emitted: the items of the page (matching lines; with -c/-l, file records)
  uint64_t emitted = 0, file_emitted = 0, files = 0;
  uint64_t matched_files = 0, total = 0;  // without lines: files with a match, lines counted
  std::vector<uint64_t> pattern_totals =
      std::vector<uint64_t>(cfg.pattern_counts() ? a.patterns.size() : 0);
  bool truncated = false;
  std::string cut{};  // what cut the answer: "max-count", "max-bytes", "last"
  // --max-bytes: the answer's bytes are counted from here.
  const uint64_t start = ctx.produced();
  // --last: the ring of the last matches, written when the search is over.
  std::optional<Tail> tail =
      cfg.last() ? std::optional<Tail>(std::in_place, a.last, a.max_bytes, a.context) : std::nullopt;
  Tail::Shown shown{};
  os::SkipCounts skips{};
  const Slot* current = nullptr;
  // Context lines met while --skip passes over matches: the last --context of them wait for
  // the first match shown, and those within --context of it are its before-context.
  std::deque<std::pair<uint64_t, std::string>> held{};

  // A file searched in parts (Slot::part): what its parts before the one taken now held.
  struct Parts {
    text::ScanResult scan{};  // joined: matches, long lines, and the lines the parts held
    std::vector<uint64_t> pattern_counts{};
    bool broken = false;  // a part ended before its end (a read failed): the rest is not shown
  };
  Parts parts{};
  bool joined = false;  // parts holds a part's result (to be cleared at the next file)
  uint64_t shift = 0;   // added to the line numbers of the records taken now
  uint64_t file_seq = 0;  // --last: the file's place in the walk, its first part's (Tail)
  // The number of the last line of the current file taken. A file searched in parts with
  // --context may show a line near an edge twice (the after-context of one part's last match,
  // the before-context of the next one's first): the second is dropped (text::Scanner's
  // post_part).
  uint64_t last_line = 0;
  bool again(const Rec& r) const {
    return r.kind == RecKind::Context && r.line + shift <= last_line;
  }

  void enter(const Slot& s);
  // Appends a record's bytes, less its '\n', its line number moved by `shift`, to `out`.
  void put(std::string& out, const Piece& p, const Rec& r, const Slot& s) const;
  void write(const Piece& p, const Rec& r, const Slot& s);
  bool join(Slot& s);
  void error(contract::Error e);
  void file_record(const Slot& s);
  // -c, -l: the one record of a file with a match. --format text: `path:count` (-c), `path`.
  void count_record(const Slot& s);
  void add_totals(const Slot& s);
  bool take(Slot& s, Piece& p);
  bool done(Slot& s);
  // --last: the ring's records, once the search is over.
  void write_tail();

 private:
  bool full() const { return ctx.produced() - start >= a.max_bytes; }
  void stop(const char* why) {
    truncated = true;
    cut = why;
  }
  bool take_tail(Slot& s, Piece& p);
};

}  // namespace seek
