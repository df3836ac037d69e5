// any_of.h — one Matcher over several patterns (seek -e P -e Q …): a line matches when any
// of them does; its spans cover every pattern's matches, and patterns() says which matched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "text/pattern_set.h"
#include "text/search.h"

namespace text {

// `parts` in the caller's order (their indices are what patterns() reports); at least one.
// The spans of a line are every part's spans, sorted by start, overlapping ones merged (so
// they stay disjoint), empty ones kept only when nothing non-empty matched (then the first).
// The matcher keeps per-line state: it belongs to one thread, as the Scanner's buffer does.
// With `set` (pattern_set.h, of the same patterns in the same order), a buffer is searched
// once for all of them, and a line only by the parts the set names; the answer is the same.
// The set is asked for its scanner once `set_after` bytes times patterns have been searched
// pattern by pattern (0: at once): by then the one-by-one search has cost about what
// compiling a set does, so a small search never pays for one.
inline constexpr uint64_t kSetAfter = uint64_t{4} << 20;
// Fewer patterns than this are searched one by one even on a long search. Not for time: since
// the set names every line of a slice in one scan, it is ahead even at three common words
// (64 MiB of prose, -c, user time: 3 common words 159 against 164-182 ms one by one, 8 common
// words 357-367 against 498-511 ms, 8 rare words 19-21 against 26-30 ms). For memory:
// Hyperscan's compiler touches about 2.6 MB of its own code and heap, which doubles the peak
// RSS of a search of a few patterns (2.8 to 5.6 MB) between an input too small to compile for
// and one large enough, past the flat-memory gate (1, 64 and 256 MiB within 1.5x). At 16
// patterns and more the passes one by one cost enough to be worth that (300 literals: 4.45x
// rg's time without the set).
inline constexpr size_t kSetMinPatterns = 16;
std::unique_ptr<Matcher> any_of(std::vector<std::unique_ptr<Matcher>> parts,
                                std::shared_ptr<const PatternSet> set = nullptr,
                                uint64_t set_after = kSetAfter);

// One pattern (`part`) whose candidate lines come from `set` (of that pattern alone) once
// `set_after` bytes have been searched by the pattern's own find(); its spans and everything
// else are the part's. For a regex that RE2 cannot narrow to a literal (a class, an
// alternation), where Hyperscan's scan is the faster.
std::unique_ptr<Matcher> set_filtered(std::unique_ptr<Matcher> part,
                                      std::shared_ptr<const PatternSet> set,
                                      uint64_t set_after = kSetAfter);

}  // namespace text
