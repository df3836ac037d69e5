// error.cpp — the shared rule catalogue (CONTRACT.md §3) and the error's JSON form. A tag's
// exit code lives here and only here.
#include "contract/error.h"

#include <array>

namespace contract {

namespace {

using E = Exit;
constexpr std::array kCatalogue = {
    CatalogueRow{"args.unknown-flag", E::InvalidArgs, "a flag that is not in the tool's table"},
    CatalogueRow{"args.missing-value", E::InvalidArgs, "a flag that takes a value was given none"},
    CatalogueRow{"args.bad-value", E::InvalidArgs, "a flag's value is not of the flag's kind"},
    CatalogueRow{"args.unexpected-value", E::InvalidArgs, "a flag that takes no value was given one"},
    CatalogueRow{"args.duplicate-flag", E::InvalidArgs, "the same flag was given twice"},
    CatalogueRow{"args.conflict", E::InvalidArgs, "two flags that exclude each other were both given"},
    CatalogueRow{"args.missing-operand", E::InvalidArgs, "an operand the tool needs was not given"},
    CatalogueRow{"args.required-flag", E::InvalidArgs, "a flag the tool needs was not given"},
    CatalogueRow{"args.too-many-operands", E::InvalidArgs, "more operands than the tool takes"},
    CatalogueRow{"path.empty", E::InvalidArgs, "an empty path"},
    CatalogueRow{"path.dotdot", E::InvalidArgs, "a path with a `..` component under --root"},
    CatalogueRow{"path.absolute", E::InvalidArgs, "an absolute path where one relative to --root is wanted"},
    CatalogueRow{"path.outside-root", E::PermissionDenied, "an absolute path that is not under --root"},
    CatalogueRow{"path.too-long", E::InvalidArgs, "a path longer than 4096 bytes"},
    CatalogueRow{"path.symlink", E::PermissionDenied, "a path that runs through a symbolic link, which the tool does not follow"},
    CatalogueRow{"path.bad-name", E::InvalidArgs, "a name the tool cannot create or use"},
    CatalogueRow{"io.not-found", E::NotFound, "a named input does not exist"},
    CatalogueRow{"io.not-a-directory", E::NotFound, "a path runs through something that is not a directory"},
    CatalogueRow{"io.is-a-directory", E::InvalidArgs, "a directory where a file is wanted"},
    CatalogueRow{"io.special-file", E::InvalidArgs, "a FIFO, socket or device, refused without blocking"},
    CatalogueRow{"io.permission-denied", E::PermissionDenied, "the operating system refused access"},
    CatalogueRow{"io.read-failed", E::GeneralError, "the operating system failed a read"},
    CatalogueRow{"io.write-failed", E::GeneralError, "the operating system failed a write"},
    CatalogueRow{"io.rename-unsupported", E::PreconditionFailed, "the filesystem cannot refuse to replace an existing name"},
    CatalogueRow{"limit.line-too-long", E::PreconditionFailed, "a line longer than --max-line-bytes"},
    CatalogueRow{"limit.input-too-large", E::PreconditionFailed, "an input larger than the tool's cap"},
    CatalogueRow{"limit.too-many-keys", E::PreconditionFailed, "more distinct keys than --max-keys"},
    CatalogueRow{"limit.too-deep", E::PreconditionFailed, "a directory below the deepest level a walk can go to holds entries"},
    CatalogueRow{"precondition.required", E::InvalidArgs, "a write without --create or --if-sha256"},
    CatalogueRow{"precondition.hash-mismatch", E::Conflict, "the file's hash is not the one the caller gave"},
    CatalogueRow{"precondition.content-mismatch", E::Conflict, "the content is not what the caller said it is"},
    CatalogueRow{"precondition.count-mismatch", E::Conflict, "the text occurs a number of times other than expected"},
    CatalogueRow{"precondition.no-match", E::PreconditionFailed, "nothing matched where a match was required"},
    CatalogueRow{"precondition.hash-failed", E::PreconditionFailed, "a computed hash is not the one given to verify"},
    CatalogueRow{"precondition.stale-witness", E::Conflict, "a witness names no line, or several"},
    CatalogueRow{"conflict.exists", E::Conflict, "the name already exists"},
    CatalogueRow{"conflict.locked", E::Conflict, "another tack writer holds the lock"},
    CatalogueRow{"parse.json", E::PreconditionFailed, "the input is not valid JSON"},
    CatalogueRow{"parse.checksum-line", E::PreconditionFailed, "a line of a checksum list is not HEX  NAME"},
    CatalogueRow{"query.bad-pointer", E::InvalidArgs, "a malformed JSON pointer"},
    CatalogueRow{"query.no-such-path", E::NotFound, "the pointer names nothing in the document"},
    CatalogueRow{"query.wrong-kind", E::PreconditionFailed, "the value is not of the kind the query needs"},
    CatalogueRow{"query.unsupported-syntax", E::InvalidArgs, "a query in a syntax the tool does not take"},
    CatalogueRow{"query.bad-pattern", E::InvalidArgs, "a pattern that does not compile"},
    CatalogueRow{"query.duplicate-key", E::PreconditionFailed, "the path runs through a key its object writes more than once"},
    CatalogueRow{"limit.timeout", E::PreconditionFailed, "the program ran past --timeout-ms and was killed"},
    CatalogueRow{"limit.output-too-large", E::PreconditionFailed, "the program wrote more than --max-output to one stream and was killed"},
    CatalogueRow{"run.program-name", E::InvalidArgs, "the program is not one plain name (it is empty, `.`, `..` or has a `/`)"},
    CatalogueRow{"run.program-not-found", E::NotFound, "the programs directory holds no program of that name"},
    CatalogueRow{"run.spawn-failed", E::PreconditionFailed, "the operating system could not start the program or its channels"},
    // the journal of changes (writers, undo)
    CatalogueRow{"conflict.changed-since", E::Conflict, "a file is no longer what the journal entry left, so undo refuses"},
    CatalogueRow{"journal.damaged", E::PreconditionFailed, "a journal entry or blob is truncated, malformed, or not what it names"},
    CatalogueRow{"journal.no-entry", E::NotFound, "the journal holds no entry of that id"},
};

}  // namespace

std::string_view exit_name(Exit e) {
  switch (e) {
    case Exit::Success: return "SUCCESS";
    case Exit::GeneralError: return "GENERAL_ERROR";
    case Exit::InvalidArgs: return "INVALID_ARGS";
    case Exit::NotFound: return "NOT_FOUND";
    case Exit::PermissionDenied: return "PERMISSION_DENIED";
    case Exit::Conflict: return "CONFLICT";
    case Exit::Timeout: return "TIMEOUT";
    case Exit::PreconditionFailed: return "PRECONDITION_FAILED";
    case Exit::DryRun: return "DRY_RUN";
  }
  return "GENERAL_ERROR";
}

std::string_view exit_meaning(Exit e) {
  switch (e) {
    case Exit::Success: return "done; zero matches is an answer, not a failure";
    case Exit::GeneralError: return "the operating system failed mid-operation, or output could not be written";
    case Exit::InvalidArgs: return "the invocation is malformed or names something of the wrong kind; nothing was read";
    case Exit::NotFound: return "a named input does not exist";
    case Exit::PermissionDenied: return "the operating system refused, or the tool's own confinement did";
    case Exit::Conflict: return "the state is not what the caller said it is";
    case Exit::Timeout: return "reserved";
    case Exit::PreconditionFailed: return "the answer is no, or a limit was reached";
    case Exit::DryRun: return "a --dry-run completed";
  }
  return "";
}

std::span<const CatalogueRow> catalogue() { return kCatalogue; }

const CatalogueRow* find_rule(std::string_view rule) {
  for (auto& row : kCatalogue)
    if (row.rule == rule) return &row;
  return nullptr;
}

Exit Error::exit() const {
  auto row = find_rule(rule);
  return row ? row->exit : Exit::GeneralError;
}

static Json argv_json(const std::vector<std::string>& argv) {
  Json a = Json::array();
  for (auto& s : argv) a.push(Json::bytes(s));
  return a;
}

Json Repair::to_json() const {
  switch (kind) {
    case Kind::Null: return nullptr;
    case Kind::None: return Json::object({{"kind", "none"}, {"reason", reason}});
    case Kind::Retry:
      return Json::object({{"kind", "retry"}, {"argv", argv_json(argvs.at(0))}});
    case Kind::Choose: {
      Json opts = Json::array();
      for (auto& a : argvs) opts.push(Json::object({{"argv", argv_json(a)}}));
      return Json::object({{"kind", "choose"}, {"options", std::move(opts)}});
    }
  }
  return nullptr;
}

Json Error::to_json() const {
  return Json::object({
      {"code", exit_name(exit())},
      {"rule", rule},
      {"message", message},
      {"hint", hint ? Json(*hint) : Json()},
      {"repair", repair.to_json()},
      {"detail", detail},
  });
}

Error make_error(std::string_view rule, std::string message, Json detail) {
  Error e;
  e.rule = rule;
  e.message = std::move(message);
  e.detail = std::move(detail);
  return e;
}

}  // namespace contract
