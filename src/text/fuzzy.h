// fuzzy.h — fuzzy ranking of paths against a query, in the manner of fzf's v2 algorithm: the
// query must be a subsequence of the path (ASCII letters compared without case), and the best
// alignment wins. Pure and integer-only, so scores are the same on every machine.
//
// Scoring (fzf's constants): each matched byte scores 16; a gap costs 3 to open and 1 per
// further byte; a match right after a word boundary earns a bonus (10 after a space, 9 after
// '/', 8 after any other non-word byte such as _ - ., 7 on a lower→upper or letter→digit
// change), doubled for the query's first byte; consecutive matches carry the bonus of their
// run's first byte (at least 4); and every match in the basename earns 2 more, so `list.cpp`
// beats `li/st/x.cpp` for "list".
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace text {

// The longest query accepted: the alignment costs query × path steps per path.
inline constexpr size_t kFuzzyQueryMax = 256;

// The score of the best alignment of `query` in `path`, or nullopt when `query` is not a
// subsequence of it (an empty query matches nothing). Deterministic; integers only.
std::optional<int> fuzzy_score(std::string_view query, std::string_view path);

}  // namespace text
