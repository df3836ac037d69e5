// roots.cpp — see roots.h.
#include "mcp/roots.h"

#include <chrono>

#include "mcp/answer.h"
#include "mcp/json_in.h"
#include "mcp/options.h"

namespace mcp {

using contract::Json;

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

std::optional<std::string> Roots::for_call(const Json& args, Json& refusal) {
  std::vector<std::string> bounds;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(5), [&] { return !pending_; });
    bounds = known_ ? roots_ : std::vector<std::string>{server_root_};
  }
  std::string root = bounds.empty() ? "" : bounds[0];
  const std::string* asked = string_member(args, "root");
  if (asked) {
    std::string want = *asked;
    if (want.empty() || want == ".") {
      want = server_root_;
    } else {
      if (want[0] != '/') want = server_root_ + "/" + want;
      for (size_t k = 0; k <= want.size();) {
        size_t e = want.find('/', k);
        if (e == std::string::npos) e = want.size();
        if (want.compare(k, e - k, "..") == 0 && e - k == 2) {
          refusal = tack_error("INVALID_ARGS", "path.dotdot",
                               "the root '" + *asked + "' has a '..' component.",
                               "name the directory without '..'", Json::object({{"path", *asked}}));
          return std::nullopt;
        }
        k = e + 1;
      }
      std::string r = real(want);
      want = r.empty() ? want : r;
    }
    root.clear();
    for (auto& b : bounds)
      if (beneath(want, b)) root = want;
  }
  if (root.empty()) {
    std::string shown = asked ? *asked : server_root_;
    Json listed = Json::array();
    for (auto& b : bounds) listed.push(b);
    refusal = tack_error("PERMISSION_DENIED", "path.outside-root",
                         "'" + shown + "' is outside the roots this server may use.",
                         "use a directory beneath one of the client's roots",
                         Json::object({{"path", shown}, {"roots", std::move(listed)}}));
    return std::nullopt;
  }
  return root;
}

}  // namespace mcp
