// table.h — the static table a tool is built from: flags bound by name to fields of the tool's
// Args struct, operands, the rules it can reach, its effects. Parser, --help, --version,
// introspect, skill, the output schema and "did you mean" all come from this table alone.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "contract/error.h"

namespace contract {

enum class Kind { Bool, Nat, Text, Path, Choice, Range, List };
enum class Role { None, Root, PathRead, PathWrite, Pattern, Content, Format };
enum class Output { Document, Stream };
enum class Reversibility { ReversibleCheap, IrreversibleBounded, IrreversibleConsequential };
enum class Repairable { Never, Sometimes, Always };

// What a tool may do; enforced by the sandbox, printed by introspect.
enum Effect : unsigned {
  kReadFiles = 1u << 0,
  kWriteFiles = 1u << 1,
  kReadStdin = 1u << 2,
  kStartPrograms = 1u << 3,
};

// A range flag's value: "A:B", "A:", ":B" or "A", each end an integer that may be negative
// (counted from the end). The tool gives the ends their meaning.
struct Span {
  bool given = false;
  std::optional<int64_t> from, to;
  bool open_end = false;  // "A:"
};

template <class A>
using FlagBinding = std::variant<std::monostate, bool A::*, uint64_t A::*, std::string A::*,
                                 std::optional<std::string> A::*, std::optional<uint64_t> A::*,
                                 std::vector<std::string> A::*, Span A::*>;

template <class A>
struct Flag {
  std::string_view name;
  char short_name = 0;
  Kind kind = Kind::Bool;
  Role role = Role::None;
  FlagBinding<A> bind{};
  std::string_view value_name = "";
  std::string_view fallback = "";  // the default, spelled as on the command line
  uint64_t ceiling = 0;            // Nat: the largest value accepted (0: no ceiling)
  uint64_t floor = 0;              // Nat: the smallest value accepted
  std::string_view choices = "";   // Choice: "a|b|c"
  std::string_view excludes = "";  // names of flags that cannot be given with this one
  std::string_view help = "";
  bool limit = false;              // listed among the tool's limits
  // The call touches more with it than without (--create, --remove, --parents, --all,
  // undo's --last): a repair never adds it, so a typo of it is told, not retried.
  bool widens = false;
};

// The answer's byte budget, one row for every tool whose answer can grow (--max-bytes): an
// answer stops adding items once it holds this many bytes (the first item always goes in, so
// the answer is at most the budget and one item), and says so with truncated, a next cursor
// where one can exist, and cut naming the flag that cut it. The default is what an agent
// reads in one piece; the ceiling bounds what one call may ask for.
inline constexpr uint64_t kAnswerBytes = 64 * 1024;
inline constexpr uint64_t kAnswerBytesCeiling = 16 * 1024 * 1024;
inline constexpr std::string_view kAnswerBytesHelp =
    "the answer's size: past N bytes it stops at the next item with truncated, cut:max-bytes "
    "and a next cursor";

// A tool whose --max-bytes already caps its input names the budget for what it cuts
// (--max-value-bytes, --max-diff-bytes), bound to a field of that name.
template <class A>
constexpr Flag<A> max_bytes(std::string_view help = kAnswerBytesHelp,
                            std::string_view name = "max-bytes",
                            uint64_t A::*field = &A::max_bytes) {
  return {.name = name,
          .kind = Kind::Nat,
          .bind = field,
          .value_name = "N",
          .fallback = "65536",
          .ceiling = kAnswerBytesCeiling,
          .floor = 1,
          .help = help,
          .limit = true};
}

template <class A>
using OperandBinding =
    std::variant<std::monostate, std::string A::*, std::optional<std::string> A::*,
                 std::vector<std::string> A::*>;

inline constexpr size_t kMany = std::numeric_limits<size_t>::max();

template <class A>
struct Operand {
  std::string_view name;
  Role role = Role::PathRead;
  size_t min = 1;
  size_t max = 1;
  OperandBinding<A> bind{};
  std::string_view help = "";
  bool dash_is_stdin = false;  // "-" names standard input, not a path
  // A flag whose presence means this operand is not taken (its slot is skipped: the tokens
  // go to the operands after it), as grep's PATTERN when -e is given.
  std::string_view unless = "";
};

struct Rule {
  std::string_view tag;
  Repairable repairable = Repairable::Never;
  std::string_view when = "";  // empty: the catalogue's sentence
};

// A worked example: a command line as an agent types it (shell words, starting with the tool's
// name) and one line of what it shows. Examples appear in --help, introspect and the skill, and
// a test runs each one on a fixture tree, so none can rot.
struct Example {
  std::string_view args;
  std::string_view shows;
};

class Context;
// Renders `value` as text into `out`; a long rendering calls `drain` (when set) between pieces so
// the output is handed on as it is made (a document's only; a stream's records are short).
using TextRenderer = void (*)(const Json& value, std::string& out, const Drain& drain);

struct Tool {
  std::string_view name;
  std::string_view summary = "";  // one sentence
  std::string_view differs = "";  // how it deliberately differs from the classic tool
  std::string_view usage = "";    // the synopsis line
  Output output = Output::Document;
  std::string_view schema = "";   // "peek.v1"
  // Document: the JSON Schema of `data`. Stream: the JSON Schemas of the tool's own record
  // types (not "error" or "end"), comma-separated, each with its "type" property.
  std::string_view data_schema = "";
  // Stream: JSON Schema "properties" of the tool's own end-record fields (counts, next).
  // Both are written as JSON in tools/NAME.schema.json and embedded at build (gen/embed_schema).
  std::string_view end_schema = "";
  // Stream: the flags that can cut the answer short, space-separated (the end record's `cut`
  // names one of them, or is null).
  std::string_view cuts = "";
  unsigned effects = kReadFiles;
  bool takes_root = true;
  Reversibility reversibility = Reversibility::ReversibleCheap;
  std::string_view guarantees = "deterministic, idempotent, bounded_memory";
  std::string_view concurrency = "read-only: it never writes, so any number may run at once";
  TextRenderer text = nullptr;  // --format text: data (document) or one record (stream)
  std::string_view programs_dir = "";  // kStartPrograms: the only directory it starts from
  std::string_view programs_from = "";  // and how that directory was decided
  std::span<const Rule> rules{};
  // The skill is short enough to read in one go: it names only these flags (space-separated,
  // the first clause of each one's help) and the examples; --help and introspect have the rest.
  std::string_view key_flags = "";
  std::span<const Example> examples{};
  // The flags tack-mcp offers a model as arguments (space-separated): what an agent needs to do
  // the tool's work. The rest (tuning knobs) stay the command line's and cost no model a byte.
  std::string_view mcp_flags = "";
};

// The parts of a flag the untyped core needs.
struct FlagInfo {
  std::string_view name;
  char short_name;
  Kind kind;
  Role role;
  std::string_view value_name, fallback;
  uint64_t ceiling, floor;
  std::string_view choices, excludes, help;
  bool limit;
  bool widens;
};

struct OperandInfo {
  std::string_view name;
  Role role;
  size_t min, max;
  std::string_view help;
  bool dash_is_stdin;
  std::string_view unless;
};

template <class A>
constexpr FlagInfo info(const Flag<A>& f) {
  return {f.name,  f.short_name, f.kind,     f.role, f.value_name, f.fallback, f.ceiling,
          f.floor, f.choices,    f.excludes, f.help, f.limit,      f.widens};
}
template <class A>
constexpr OperandInfo info(const Operand<A>& o) {
  return {o.name, o.role, o.min, o.max, o.help, o.dash_is_stdin, o.unless};
}

// Table invariants, checked at compile time by each tool (static_assert) and by a unit test.
constexpr bool valid_flag(const FlagInfo& f) {
  // kebab-case: a letter first, no leading, trailing or doubled hyphen
  if (f.name.empty() || f.name[0] < 'a' || f.name[0] > 'z' || f.name.back() == '-') return false;
  for (size_t i = 0; i < f.name.size(); ++i) {
    char c = f.name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    if (c == '-' && f.name[i - 1] == '-') return false;
  }
  if (f.help.empty()) return false;
  if (f.kind != Kind::Bool && f.value_name.empty()) return false;
  if (f.kind == Kind::Bool && !f.value_name.empty()) return false;
  if (f.kind == Kind::Choice && f.choices.empty()) return false;
  if (f.kind == Kind::Nat && f.ceiling != 0 && f.ceiling < f.floor) return false;
  if (f.limit && (f.kind != Kind::Nat || f.ceiling == 0 || f.fallback.empty())) return false;
  if (f.short_name && !((f.short_name >= 'a' && f.short_name <= 'z') ||
                         (f.short_name >= 'A' && f.short_name <= 'Z') ||
                         (f.short_name >= '0' && f.short_name <= '9')))
    return false;
  if (f.kind == Kind::Nat && !f.fallback.empty()) {
    if (f.fallback.size() > 20) return false;
    uint64_t v = 0;
    for (char c : f.fallback) {
      if (c < '0' || c > '9') return false;
      uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (UINT64_MAX - d) / 10) return false;  // would overflow
      v = v * 10 + d;
    }
    if (v < f.floor || (f.ceiling != 0 && v > f.ceiling)) return false;
  }
  if (f.kind == Kind::Choice && !f.fallback.empty()) {
    bool found = false;
    for (std::string_view rest = f.choices; !found;) {
      size_t bar = rest.find('|');
      if (rest.substr(0, bar) == f.fallback) found = true;
      if (bar == std::string_view::npos) break;
      rest.remove_prefix(bar + 1);
    }
    if (!found) return false;
  }
  if (f.kind == Kind::Range && !f.fallback.empty()) {
    // the same forms parse_value takes: A, A:, :B, A:B with optional '-' signs
    size_t colons = 0, digits = 0;
    for (size_t i = 0; i < f.fallback.size(); ++i) {
      char c = f.fallback[i];
      if (c == ':') {
        ++colons;
      } else if (c >= '0' && c <= '9') {
        ++digits;
      } else if (c != '-' || (i > 0 && f.fallback[i - 1] != ':')) {
        return false;
      }
    }
    if (colons > 1 || digits == 0) return false;
  }
  return true;
}

template <class A>
constexpr bool valid(std::span<const Flag<A>> flags, std::span<const Operand<A>> ops) {
  const size_t NF = flags.size(), NO = ops.size();
  for (size_t i = 0; i < NF; ++i) {
    if (!valid_flag(info(flags[i]))) return false;
    if (flags[i].bind.index() == 0) return false;
    for (std::string_view rest = flags[i].excludes; !rest.empty();) {
      size_t sp = rest.find(' ');
      std::string_view other = rest.substr(0, sp);
      bool known = false;
      for (size_t j = 0; j < NF; ++j) known = known || flags[j].name == other;
      if (!known) return false;
      if (sp == std::string_view::npos) break;
      rest.remove_prefix(sp + 1);
    }
    for (size_t j = 0; j < i; ++j) {
      if (flags[i].name == flags[j].name) return false;
      if (flags[i].short_name && flags[i].short_name == flags[j].short_name) return false;
    }
  }
  bool unbounded_seen = false;
  for (size_t i = 0; i < NO; ++i) {
    if (ops[i].name.empty() || ops[i].help.empty() || ops[i].max < ops[i].min) return false;
    if (ops[i].bind.index() == 0) return false;
    if (!ops[i].unless.empty()) {
      bool known = false;
      for (size_t j = 0; j < NF; ++j) known = known || flags[j].name == ops[i].unless;
      if (!known) return false;
    }
    if (unbounded_seen) return false;  // only the last operand may take any number
    if (ops[i].max == kMany) unbounded_seen = true;
  }
  return true;
}

}  // namespace contract
