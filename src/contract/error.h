// error.h — errors are data: a rule tag from the shared catalogue, a sentence, a hint, a
// repair a program can apply, and the facts in `detail`. The exit code of a tag is fixed by
// the catalogue and nowhere else.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contract/json.h"

namespace contract {

enum class Exit : int {
  Success = 0,
  GeneralError = 1,
  InvalidArgs = 2,
  NotFound = 3,
  PermissionDenied = 4,
  Conflict = 5,
  Timeout = 6,
  PreconditionFailed = 8,
  DryRun = 9,
};

std::string_view exit_name(Exit e);  // "NOT_FOUND"
std::string_view exit_meaning(Exit e);

struct CatalogueRow {
  std::string_view rule;
  Exit exit;
  std::string_view when;  // one line: when the rule is reached
};

// The shared catalogue (CONTRACT.md §3), in a fixed order.
std::span<const CatalogueRow> catalogue();
const CatalogueRow* find_rule(std::string_view rule);

struct Repair {
  enum class Kind { Null, None, Retry, Choose };
  Kind kind = Kind::Null;
  std::string reason;                           // None
  std::vector<std::vector<std::string>> argvs;  // Retry: exactly one; Choose: the options

  static Repair none(std::string reason) { return {Kind::None, std::move(reason), {}}; }
  static Repair retry(std::vector<std::string> argv) { return {Kind::Retry, {}, {std::move(argv)}}; }
  Json to_json() const;
};

struct Error {
  std::string_view rule;  // must be a catalogue row
  std::string message;    // one sentence for a person
  std::optional<std::string> hint;
  Repair repair;
  Json detail = Json::object();

  Exit exit() const;
  Json to_json() const;
};

Error make_error(std::string_view rule, std::string message, Json detail = Json::object());

}  // namespace contract
