// regex.h — the RE2 matcher: the Matcher of search.h for an RE2 pattern. A unit of its own
// because it is the one part of libtack that needs RE2: a binary that never calls
// regex_matcher() links none of RE2.
#pragma once

#include <memory>
#include <string>

#include "text/search.h"

namespace text {

// Why RE2 refused a pattern: its message and the part of the pattern the message is about.
struct RegexError {
  std::string message, argument;
};

// An RE2 pattern (linear time; UTF-8: `.` is a character, \w \d \s \b are ASCII), matched
// within one line. `icase`: RE2's Unicode simple case folding. `word`: as for the literal
// matcher, a non-word character or the line's edge on each side of a match. Null, with
// `error` set, when RE2 refuses the pattern or one of the forms the search compiles from it.
std::unique_ptr<Matcher> regex_matcher(const std::string& pattern, bool icase, bool word,
                                       RegexError& error);

}  // namespace text
