// roots.h — the directories a call may work beneath. The operator's --root is the outer bound;
// roots a client declares (roots/list) only narrow it, a root above it narrows to it, and a
// call's own `root` argument must lie beneath one of them. A call made while the client's
// roots are on their way waits for them (briefly).
//
// Beneath the operator's root no link is followed, as a tool follows none beneath its own:
// each call's root is opened from the server's open root (openat2, no link, not above it),
// and the tool works only in that very directory (its device and inode go with the argv,
// runner/waiting.h), not in whatever its name leads to by the time the tool starts. A
// directory swapped for a link, before the call or during it, is refused.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "contract/json.h"
#include "os/open.h"
#include "runner/waiting.h"

namespace mcp {

// A call's root: its spelling (the tool's --root, for its lexical checks and its answers) and
// the directory itself.
struct CallRoot {
  std::string path;
  os::Fd dir;                    // held open for the call, so its inode stays its own
  contract::waiting::RootId id;  // what the tool checks its root against
};

class Roots {
 public:
  explicit Roots(std::string server_root);
  // Whether the client said at initialize that it offers roots.
  void offered(bool yes);
  // The id of a roots/list request to send now (it is pending from here), or nothing when
  // the client offers no roots.
  std::optional<std::string> ask();
  // A response to a request of the server's: taken when it answers the pending roots/list.
  void response(const contract::Json& id, const contract::Json& msg);
  // The root of a call whose arguments are `args`, or nothing with the tagged `refusal`.
  std::optional<CallRoot> for_call(const contract::Json& args, contract::Json& refusal);

 private:
  const std::string server_root_;
  const os::Fd server_dir_;  // the operator's root, opened once
  std::mutex mu_;
  std::condition_variable cv_;
  bool offered_ = false, pending_ = false, known_ = false;
  std::vector<std::string> roots_;
  int seq_ = 0;
  std::string pending_id_;
};

}  // namespace mcp
