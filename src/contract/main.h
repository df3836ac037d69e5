// main.h — contract::main, the only place an exit code is decided. It parses the argv against
// the table (all argument errors collected, nothing read), answers --help, --version,
// introspect and skill, checks path operands lexically, opens the root, applies the sandbox,
// calls the tool's run(), writes the envelope or closes the stream, checks every write.
#pragma once

#include <cstdlib>
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
  // True once stdout has failed (closed pipe, full disk): stop working, nothing is read.
  bool output_failed() const { return out_.failed(); }

  // A dry run that completed: `planned` lists what would have been done.
  void dry_run(Json planned) {
    dry_run_ = true;
    planned_ = std::move(planned);
  }

  // Repairs: the invocation as given with one thing changed, so it runs as it stands.
  std::vector<std::string> argv_with_token(size_t index, std::string token) const;
  std::vector<std::string> argv_with_flag(std::string_view flag, std::string value) const;
  // The same for one input of several: of the operands only the k-th is kept, so the retry
  // clears that input's error without meeting the others'.
  std::vector<std::string> argv_with_flag_for_operand(size_t k, std::string_view flag,
                                                      std::string value) const;

  // Set up by main before run().
  Format format_ = Format::Json;
  std::string root_, root_abs_;
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

// The untyped core: the template below adapts the typed table to it.
struct Adapter {
  std::vector<FlagInfo> flags;
  std::vector<OperandInfo> operands;
  std::function<void(size_t flag, const Value&)> set_flag;
  std::function<void(size_t operand, std::string value)> set_operand;
  std::function<void(std::vector<Error>&, const Context&)> check;
  std::function<Json(Context&)> run;
};

int run_main(const Tool& tool, Adapter& adapter, int argc, char** argv);

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
// The flags every tool has, appended to its own: --root (when it touches files), --format.
std::vector<FlagInfo> common_flags(const Tool& tool);

template <class A>
struct Spec {
  const Tool& tool;
  std::span<const Flag<A>> flags;
  std::span<const Operand<A>> operands;
  // Value checks that need no I/O (ranges, combinations); errors are argument errors.
  void (*check)(const A&, std::vector<Error>&, const Context&) = nullptr;
  Json (*run)(const A&, Context&) = nullptr;
};

template <class A>
int main(const Spec<A>& spec, int argc, char** argv) {
  A args{};
  Adapter ad;
  for (auto& f : spec.flags) ad.flags.push_back(info(f));
  for (auto& o : spec.operands) ad.operands.push_back(info(o));
  ad.set_flag = [&](size_t i, const Value& v) {
    std::visit(
        [&](auto member) {
          using M = decltype(member);
          if constexpr (std::is_same_v<M, std::monostate>) {
          } else if constexpr (std::is_same_v<M, bool A::*>) {
            args.*member = true;
          } else if constexpr (std::is_same_v<M, uint64_t A::*> ||
                               std::is_same_v<M, std::optional<uint64_t> A::*>) {
            args.*member = v.nat;
          } else if constexpr (std::is_same_v<M, std::vector<std::string> A::*>) {
            (args.*member).push_back(v.text);
          } else if constexpr (std::is_same_v<M, Span A::*>) {
            args.*member = v.span;
          } else {
            args.*member = v.text;
          }
        },
        spec.flags[i].bind);
  };
  ad.set_operand = [&](size_t i, std::string v) {
    std::visit(
        [&](auto member) {
          using M = decltype(member);
          if constexpr (std::is_same_v<M, std::monostate>) {
          } else if constexpr (std::is_same_v<M, std::vector<std::string> A::*>) {
            (args.*member).push_back(std::move(v));
          } else {
            args.*member = std::move(v);
          }
        },
        spec.operands[i].bind);
  };
  ad.check = [&](std::vector<Error>& errs, const Context& ctx) {
    if (spec.check) spec.check(args, errs, ctx);
  };
  ad.run = [&](Context& ctx) { return spec.run(args, ctx); };
  // Everything the tool does ends inside run_main (output flushed, temporary files gone,
  // threads joined), so the process ends here without running static destructors and the
  // libraries' exit handlers: nothing is left for them to do, and in the dynamically linked
  // jsonq they cost about a tenth of its start-up.
  std::_Exit(run_main(spec.tool, ad, argc, argv));
}

}  // namespace contract
