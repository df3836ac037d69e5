// table.h — the rows every tool that changes files shares: --if-sha256, --dry-run, --max-bytes,
// --max-diff-lines, --max-diff-bytes, and the rule limit.input-too-large with its repair (writer.h). A tool's
// table lists them where it wants them, bound to its own Args, whose fields carry the same
// names (if_sha256, dry_run, max_bytes, max_diff_lines). The helps say what each tool does with
// the flag; a row's kind, value name, default and ceiling are the same in every writer.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "contract/table.h"

namespace writer {

inline constexpr uint64_t kMaxBytesCeiling = 256ull * 1024 * 1024;
inline constexpr uint64_t kDiffLinesCeiling = 1'000'000;

inline constexpr std::string_view kDryRunHelp =
    "change nothing; check everything and answer with the diff and planned_actions (exit 9)";
inline constexpr std::string_view kDiffLinesHelp =
    "the most diff lines listed; past it diff_truncated is true";

// --if-sha256 HEX: once (a std::optional field) or once per PATH (a std::vector field).
template <class A>
constexpr contract::Flag<A> if_sha256(std::string_view help) {
  using Field = std::remove_cvref_t<decltype(std::declval<A&>().if_sha256)>;
  constexpr bool list = std::is_same_v<Field, std::vector<std::string>>;
  return {.name = "if-sha256",
          .kind = list ? contract::Kind::List : contract::Kind::Text,
          .bind = &A::if_sha256,
          .value_name = "HEX",
          .help = help};
}

template <class A>
constexpr contract::Flag<A> dry_run(std::string_view help = kDryRunHelp) {
  return {.name = "dry-run", .kind = contract::Kind::Bool, .bind = &A::dry_run, .help = help};
}

// --max-bytes N: the largest input held (limit.input-too-large past it).
template <class A>
constexpr contract::Flag<A> max_bytes(std::string_view help, uint64_t floor = 1) {
  return {.name = "max-bytes",
          .kind = contract::Kind::Nat,
          .bind = &A::max_bytes,
          .value_name = "N",
          .fallback = "16777216",
          .ceiling = kMaxBytesCeiling,
          .floor = floor,
          .help = help,
          .limit = true};
}

// --max-diff-bytes N: the answer's budget (contract::max_bytes) spent on the diff's text.
inline constexpr std::string_view kDiffBytesHelp =
    "the most bytes of diff text listed; past it diff_truncated is true, cut says which cap, "
    "and the change itself is whole (peek shows the rest)";
template <class A>
constexpr contract::Flag<A> max_diff_bytes() {
  return contract::max_bytes<A>(kDiffBytesHelp, "max-diff-bytes", &A::max_diff_bytes);
}

// --no-journal: the change is made without its record in ROOT/.tack/journal (writer/journal.h).
template <class A>
constexpr contract::Flag<A> no_journal() {
  return {.name = "no-journal",
          .kind = contract::Kind::Bool,
          .bind = &A::no_journal,
          .help =
              "make the change without recording it in .tack/journal (undo cannot take it "
              "back); without --root a change outside the working directory is never "
              "recorded (journal: null)"};
}

template <class A>
constexpr contract::Flag<A> max_diff_lines(std::string_view help = kDiffLinesHelp) {
  return {.name = "max-diff-lines",
          .kind = contract::Kind::Nat,
          .bind = &A::max_diff_lines,
          .value_name = "N",
          .fallback = "400",
          .ceiling = kDiffLinesCeiling,
          .floor = 0,
          .help = help,
          .limit = true};
}

// Text fixed at compile time from pieces, for a table's string that repeats a shared part.
template <size_t N>
struct Joined {
  char text[N] = {};
  constexpr operator std::string_view() const { return {text, N}; }
};
template <size_t A, size_t B>
constexpr Joined<A + B - 2> join(const char (&a)[A], const char (&b)[B]) {
  Joined<A + B - 2> out;
  for (size_t i = 0; i + 1 < A; ++i) out.text[i] = a[i];
  for (size_t i = 0; i + 1 < B; ++i) out.text[A - 1 + i] = b[i];
  return out;
}

// How the writers of one file share its directory (Tool::concurrency), and then `rest`.
inline constexpr char kTakeTurns[] =
    "tack writers of one directory take turns (flock on the directory, about a second's wait, "
    "then conflict.locked); ";
template <size_t N>
constexpr auto take_turns(const char (&rest)[N]) {
  return join(kTakeTurns, rest);
}

// The rules each tool that rewrites a file's content lists first, in this order: where its
// input comes from (args.required-flag), and reading and writing the file (io.*).
inline constexpr contract::Rule kReadWriteRules[] = {
    {"args.required-flag"}, {"io.is-a-directory"}, {"io.read-failed"}, {"io.write-failed"}};

// A tool's rules: the shared rows, then its own.
template <size_t A, size_t B>
constexpr std::array<contract::Rule, A + B> rules(const contract::Rule (&shared)[A],
                                                  const contract::Rule (&own)[B]) {
  std::array<contract::Rule, A + B> out{};
  for (size_t i = 0; i < A; ++i) out[i] = shared[i];
  for (size_t i = 0; i < B; ++i) out[A + i] = own[i];
  return out;
}

// The rule writer::too_large reaches: repaired by a retry when the size is within the ceiling.
inline constexpr contract::Rule kInputTooLarge{"limit.input-too-large",
                                               contract::Repairable::Sometimes};

}  // namespace writer
