// answer.cpp — roots and answers as tack-mcp makes them itself (see answer.h).
#include "mcp/answer.h"

#include <cctype>

namespace mcp {

using contract::Json;

bool beneath(const std::string& path, const std::string& root) {
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          (root == "/" || path[root.size()] == '/'));
}

std::string decode_file_uri(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return "";
  std::string rest = uri.substr(7);
  if (rest.rfind("localhost/", 0) == 0) rest = rest.substr(9);
  if (rest.empty() || rest[0] != '/') return "";
  std::string out;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out += static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += rest[i];
    }
  }
  return out;
}

Json tack_error(const std::string& code, const std::string& rule, const std::string& message,
                const std::string& hint, Json detail) {
  return Json::object({{"code", code},
                       {"rule", rule},
                       {"message", message},
                       {"hint", hint},
                       {"repair", Json()},
                       {"detail", std::move(detail)}});
}

std::string compact_text(const Json& doc) {
  if (const Json* ok = doc.get("ok"); ok && ok->as_bool()) {
    const Json* data = doc.get("data");
    return data ? data->dump() : doc.dump();
  }
  Json errs = doc.get("errors") ? *doc.get("errors") : Json::array();
  Json out = Json::object({{"ok", false}, {"errors", std::move(errs)}});
  if (const Json* data = doc.get("data")) out.set("data", *data);
  return out.dump();
}

}  // namespace mcp
