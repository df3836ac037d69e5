// roots.cpp — see roots.h.
#include "mcp/roots.h"

#include <fcntl.h>

#include <chrono>

#include "mcp/answer.h"
#include "mcp/json_in.h"
#include "mcp/options.h"
#include "os/path.h"

namespace mcp {

using contract::Json;

Roots::Roots(std::string server_root)
    : server_root_(std::move(server_root)),
      server_dir_(open(server_root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {}

void Roots::offered(bool yes) {
  std::lock_guard<std::mutex> lock(mu_);
  offered_ = yes;
}

std::optional<std::string> Roots::ask() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!offered_) return std::nullopt;
  pending_id_ = "tack-roots-" + std::to_string(++seq_);
  pending_ = true;
  return pending_id_;
}

void Roots::response(const Json& id, const Json& msg) {
  std::lock_guard<std::mutex> lock(mu_);
  if (id.type() != Json::Type::Str || id.str() != pending_id_) return;
  pending_ = false;
  known_ = true;
  roots_.clear();
  const Json* result = msg.get("result");
  const Json* list =
      result && result->type() == Json::Type::Object ? result->get("roots") : nullptr;
  if (!list || list->type() != Json::Type::Array) {
    known_ = false;  // an error answer: no narrowing was declared
  } else {
    for (auto& r : list->items()) {
      const std::string* uri = string_member(r, "uri");
      std::string path = uri ? real(decode_file_uri(*uri)) : "";
      if (path.empty()) continue;
      if (beneath(path, server_root_))
        roots_.push_back(path);
      else if (beneath(server_root_, path))
        roots_.push_back(server_root_);
    }
  }
  cv_.notify_all();
}

std::optional<CallRoot> Roots::for_call(const Json& args, Json& refusal) {
  std::vector<std::string> bounds;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // A client that does not answer in 5 s is not waited for again (its answer, when it
    // comes, still narrows the calls after it).
    if (!cv_.wait_for(lock, std::chrono::seconds(5), [&] { return !pending_; })) pending_ = false;
    bounds = known_ ? roots_ : std::vector<std::string>{server_root_};
  }
  auto refuse = [&](const std::string& code, const std::string& rule, const std::string& message,
                    const std::string& hint, Json detail) {
    refusal = tack_error(code, rule, message, hint, std::move(detail));
    return std::nullopt;
  };
  // The directory as a path beneath the server's root ("." for the root itself).
  auto relative = [&](const std::string& abs) {
    return abs == server_root_ ? std::string(".")
                               : abs.substr(server_root_.size() + (server_root_ == "/" ? 0 : 1));
  };
  std::string root = bounds.empty() ? "" : bounds[0];
  std::string shown = server_root_;
  const Json* given = args.get("root");
  if (given && given->type() != Json::Type::Null) {
    if (given->type() != Json::Type::Str)
      return refuse("INVALID_ARGS", "args.bad-value", "the argument 'root' must be a string.",
                    "give the directory as a path", Json::object({{"argument", "root"}}));
    const std::string& asked = given->str();
    shown = asked;
    std::string want;
    if (asked.empty() || asked == ".") {
      want = server_root_;
    } else {
      // Lexical first (`..`, NUL, length), as a tool checks its operands; an absolute spelling
      // beneath the root is taken as its relative one.
      std::optional<std::string> rel = os::beneath_form(server_root_, asked);
      os::CheckedPath c = rel ? os::CheckedPath{} : os::check_path(server_root_, asked);
      if (rel) {
        want = *rel == "." ? server_root_ : os::join(server_root_, *rel);
      } else if (c.issue->rule == "path.outside-root" && asked[0] == '/') {
        // Another spelling of a directory beneath the root (a link above it, the operator's
        // own spelling of --root): where it really is, if that is beneath.
        want = real(asked);
        if (!beneath(want, server_root_)) want = asked;
      } else {
        refusal = contract::make_error(
                      c.issue->rule,
                      "the root '" + contract::printable(asked) + "': " + c.issue->message + ".",
                      Json::object({{"path", Json::bytes(asked)}}))
                      .to_json();
        return std::nullopt;
      }
    }
    root.clear();
    for (auto& b : bounds)
      if (beneath(want, b)) root = want;
  }
  if (root.empty()) {
    Json listed = Json::array();
    for (auto& b : bounds) listed.push(b);
    return refuse("PERMISSION_DENIED", "path.outside-root",
                  "'" + shown + "' is outside the roots this server may use.",
                  "use a directory beneath one of the client's roots",
                  Json::object({{"path", shown}, {"roots", std::move(listed)}}));
  }
  if (server_dir_.get() < 0)  // never opened: nothing is opened by name instead
    return refuse("GENERAL_ERROR", "io.read-failed", "the server's root could not be opened.", "",
                  Json::object({{"path", server_root_}}));
  if (!given || given->type() == Json::Type::Null) shown = root;
  auto opened = os::open_read(server_dir_.get(), relative(root), os::Want::Directory, shown);
  if (auto* e = std::get_if<contract::Error>(&opened)) {
    refusal = e->to_json();
    return std::nullopt;
  }
  os::Opened& o = std::get<os::Opened>(opened);
  return CallRoot{root,
                  std::move(o.fd),
                  {static_cast<uint64_t>(o.st.st_dev), static_cast<uint64_t>(o.st.st_ino)}};
}

}  // namespace mcp
