// main.h — contract::main, the only place an exit code is decided. It parses the argv against
// the table (all argument errors collected, nothing read), answers --help, --version,
// introspect and skill, checks path operands lexically, opens the root, applies the sandbox,
// calls the tool's run(), writes the envelope or closes the stream, checks every write.
//
// The runner stands above both the contract (the table, the parser, the envelope) and os/
// (the root, the path checks, the sandbox), so neither has to reach up into the other; a
// tool includes this header. Its names stay in namespace contract: contract::main and
// contract::Spec are the contract's entry point as every tool sees it.
#pragma once

#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "contract/context.h"
#include "contract/json.h"
#include "contract/table.h"

namespace contract {

int run_main(const Tool& tool, Adapter& adapter, int argc, char** argv);

// A path argument checked against the root (os::check_path) as every tool checks its path
// operands and flags: the tagged error, with the right spelling (detail.suggested) put in
// `fixed_argv` at `token`, after `prefix` (a flag's "--name="), where there is one, else
// `all_fixable` set false; no error: `value` becomes its normal form.
std::optional<Error> check_path_arg(std::string_view root_abs, std::string& value, size_t token,
                                    std::string_view prefix, std::vector<std::string>& fixed_argv,
                                    bool& all_fixable);

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
  // libraries' exit handlers: nothing is left for them to do.
  std::_Exit(run_main(spec.tool, ad, argc, argv));
}

}  // namespace contract
