// render.cpp — seek's --format text.
#include "tools/seek/render.h"

namespace seek {

using contract::Json;

void render_text(const Json& rec, std::string& out, const contract::Drain&) {
  const Json* type = rec.get("type");
  if (!type || type->str() == "file") return;
  auto tob = [](const Json& j) -> std::string {
    if (j.type() == Json::Type::Object) {
      std::string b;
      contract::unbase64(j.get("b64")->str(), b);
      return b;
    }
    return j.str();
  };
  const bool match = type->str() == "match";
  out += tob(*rec.get("path"));
  out += match ? ':' : '-';
  out += std::to_string(rec.get("line")->as_uint());
  out += match ? ':' : '-';
  const Json* t = rec.get("text");
  if (t->is_null())
    out += "[" + std::to_string(rec.get("length")->as_uint()) +
           " bytes, longer than --max-line-bytes]";
  else
    out += tob(*t);
  out += '\n';
}

}  // namespace seek
