// write_error.cpp — the tagged error of a failed write-side system call (see write_error.h).
#include "os/write_error.h"

#include <cerrno>
#include <cstring>

#include "contract/json.h"

namespace os {

using contract::Json;

std::string errno_tag(int err) {
  if (const char* name = strerrorname_np(err)) return name;
  return "errno " + std::to_string(err);
}

std::string quoted(std::string_view path) {
  std::string out(1, '\'');
  out += contract::printable(path);
  out += '\'';
  return out;
}

contract::Error write_error(int err, std::string_view shown, std::string_view stage) {
  std::string_view rule = "io.write-failed";
  if (err == EACCES || err == EPERM || err == EROFS) rule = "io.permission-denied";
  // The directory being written in was removed (or replaced) while this call ran.
  if (err == ENOENT) rule = "io.not-found";
  std::string what = "cannot write " + quoted(shown) + " (" + std::string(stage) + "): ";
  what += std::strerror(err);
  return contract::make_error(
      rule, std::move(what),
      Json::object({{"path", Json::bytes(shown)}, {"stage", stage}, {"errno", errno_tag(err)}}));
}

}  // namespace os
