// pattern_set.h — many patterns in one scan: a Hyperscan database of every pattern of a seek
// -e list, which says where the first line that may match is and which patterns may match in
// a line. It only narrows the search: the spans still come from each pattern's own matcher
// (any_of.h), so they are exactly what they would be without it. A pattern set is a superset
// of its patterns: it may name a pattern that does not match (then the pattern's own matcher
// finds nothing), never miss one that does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace text {

// Scratch space of one thread over one set (Hyperscan's scratch), made by PatternSet::scanner.
// One scan of a slice of the buffer names every line in it where some pattern may match, and
// which patterns; first() and which() answer from it until the slice is used up, so dense
// matches cost one scan per slice, not one per matching line.
class SetScanner {
 public:
  virtual ~SetScanner() = default;
  // A position in buf[from, buf.size()) inside the first line (from `from`, which starts a
  // line) where some pattern may match, or npos. The lines before it hold no match. Calls with
  // the same buffer and a growing `from` are answered from the scan already made.
  virtual size_t first(std::string_view buf, size_t from) = 0;
  // The patterns that may match in `line` (no '\n' in it), ascending, replacing `out`. For
  // the line first() last named (the line as shown, within that buffer), from its scan.
  virtual void which(std::string_view line, std::vector<uint32_t>& out) = 0;
  // The bytes of the buffer first() was given are about to change: what was found ahead in
  // it is forgotten.
  virtual void forget() = 0;
};

// Compiled once and shared by every thread; each thread scans with its own scanner().
class PatternSet {
 public:
  virtual ~PatternSet() = default;
  virtual std::unique_ptr<SetScanner> scanner() const = 0;
  // The same without waiting for another thread that is still compiling the set: false then
  // (`out` untouched; the caller searches on without it and asks again later), else true with
  // `out` as scanner() gives it.
  virtual bool try_scanner(std::unique_ptr<SetScanner>& out) const {
    out = scanner();
    return true;
  }
};

// How the patterns are to be read: literal bytes (with ASCII case folding under `icase`) or
// RE2 syntax (with RE2's Unicode case folding under `icase`).
enum class SetSyntax { Literal, Regex };

// A set for `patterns`, or null where none can be built: no multi-pattern engine on this
// machine (Hyperscan needs x86-64 with SSSE3), an empty pattern, a pattern that can match the
// empty string, or
// a regex whose meaning the engine's syntax might not keep (then the caller searches pattern
// by pattern, as before). `word` (--word) is not part of the set: the set is a superset.
std::shared_ptr<const PatternSet> pattern_set(const std::vector<std::string>& patterns,
                                              SetSyntax syntax, bool icase);

// The same set, compiled only when a scanner is first asked of it (once, by whichever thread
// asks first, while try_scanner() in the others says it is not ready; null scanners when it
// cannot be built). Compiling costs about a millisecond for a few literals and several for
// regexes, more than a small search takes: any_of asks for its scanner only once it has
// searched enough bytes pattern by pattern to repay it.
std::shared_ptr<const PatternSet> lazy_pattern_set(std::vector<std::string> patterns,
                                                   SetSyntax syntax, bool icase);

// Whether an RE2 pattern can be handed to Hyperscan as a superset of its own matches, and in
// what spelling (exposed for the unit tests). Empty when it cannot.
std::string hyperscan_spelling(std::string_view re2_pattern, bool icase);

}  // namespace text
