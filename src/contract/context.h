// context.h — what a tool's run() sees besides its Args (Context), and the untyped form of a
// tool's table (Adapter) that the parser, the generated descriptions and the runner
// (runner/main.h, which decides the exit code) share.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "contract/json.h"
#include "contract/output.h"
#include "contract/table.h"

namespace contract {

enum class Format { Json, Text };

// What run() sees besides its Args: the root, the format, the argv (for repairs), and where
// errors and records go.
class Context {
 public:
  Context(const Tool& tool, Out& out) : tool_(tool), out_(out) {}

  const Tool& tool() const { return tool_; }
  Format format() const { return format_; }
  const std::string& root() const { return root_; }          // as given; empty without --root
  const std::string& root_abs() const { return root_abs_; }  // lexical absolute spelling
  int root_fd() const { return root_fd_; }                   // -1 without --root
  bool given(std::string_view flag) const { return given_.count(std::string(flag)) != 0; }
  // No --root, and a path to change lies outside the working directory, beneath which the
  // journal would be: the change is made without a record (as --no-journal).
  bool journal_outside() const { return journal_outside_; }
  const std::vector<std::string>& argv() const { return argv_; }

  // An error. Document tools collect it; stream tools also write it as a record now, so
  // errors stay in input order among the other records.
  void error(Error e);
  // Stream tools: an error written as a record like error(), but kept only when it is the
  // first (which decides the exit code), so a stream of any length holds one error in memory.
  void error_streamed(Error e);
  const std::vector<Error>& errors() const { return errors_; }

  // Stream tools: one record (a JSON line, or the tool's text rendering).
  void record(const Json& rec);
  // Hot path: append one serialized JSON record (without the newline) to raw(), then commit().
  std::string& raw() { return out_.buffer(); }
  void commit() {
    out_.buffer() += '\n';
    out_.maybe_flush();
  }
  // The bytes of the answer so far (records and errors, before the end record).
  uint64_t produced() const { return out_.produced(); }
  // True once stdout has failed (closed pipe, full disk): stop working, nothing is read.
  bool output_failed() const { return out_.failed(); }

  // A dry run that completed: `planned` lists what would have been done.
  void dry_run(Json planned) {
    dry_run_ = true;
    planned_ = std::move(planned);
  }

  // Repairs: the invocation as given with one thing changed, so it runs as it stands.
  std::vector<std::string> argv_with_token(size_t index, std::string token) const;
  // The argv index of the k-th operand (argv().size() when there is none).
  size_t operand_token(size_t k) const {
    return k < operand_tokens_.size() ? operand_tokens_[k] : argv_.size();
  }
  std::vector<std::string> argv_with_flag(std::string_view flag, std::string value) const;
  // The same for one input of several: of the operands only the k-th is kept, so the retry
  // clears that input's error without meeting the others'.
  std::vector<std::string> argv_with_flag_for_operand(size_t k, std::string_view flag,
                                                      std::string value) const;

  // Set up by main before run().
  Format format_ = Format::Json;
  std::string root_, root_abs_;
  bool journal_outside_ = false;
  int root_fd_ = -1;
  std::set<std::string> given_;
  std::vector<std::string> argv_;
  std::vector<size_t> operand_tokens_;  // argv index of each operand, in order
  std::vector<FlagInfo> flags_;  // the tool's and the common ones
  bool dry_run_ = false;
  Json planned_;

 private:
  const Tool& tool_;
  Out& out_;
  std::vector<Error> errors_;
};

// A parsed flag value before it is stored in the Args struct.
struct Value {
  std::string text;
  uint64_t nat = 0;
  Span span;
  size_t token = 0;          // argv index of the token holding the value
  std::string token_prefix;  // "--name=" when the value shared its token with the flag
};

// The untyped core: contract::main (runner/main.h) adapts the typed table to it.
struct Adapter {
  std::vector<FlagInfo> flags;
  std::vector<OperandInfo> operands;
  std::function<void(size_t flag, const Value&)> set_flag;
  std::function<void(size_t operand, std::string value)> set_operand;
  std::function<void(std::vector<Error>&, const Context&)> check;
  std::function<Json(Context&)> run;
};

// --format text: errors go to stderr as "TOOL: RULE: message".
void text_errors_to_stderr(std::string_view tool, std::span<const Error> errors);

// Generated descriptions (describe.cpp).
std::string help_text(const Tool& tool, const Adapter& a);
Json introspect(const Tool& tool, const Adapter& a);
std::string skill_text(const Tool& tool, const Adapter& a);
// The contract every tool keeps, as one skill (`TOOL skill contract`): answers, exit codes,
// errors and repairs, --root, pages, changing files.
std::string contract_skill();
std::string output_schema(const Tool& tool, const Adapter& a);
// Every rule the tool can reach: the contract's own (parser, path checks) and the table's.
std::vector<Rule> rules_of(const Tool& tool, const Adapter& a);
// The first clause of a help text: what a flag does, without the fine print.
std::string_view first_clause(std::string_view help);
// The flags every tool has, appended to its own: --root (when it touches files), --format.
std::vector<FlagInfo> common_flags(const Tool& tool);

}  // namespace contract
