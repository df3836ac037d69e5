// content.cpp — a tool result's content as a model reads it (see content.h).
#include "mcp/content.h"

#include "tools/render/render.h"

namespace mcp {

using contract::Json;

namespace {

const Json* get(const Json& j, std::string_view key) {
  return j.type() == Json::Type::Object ? j.get(key) : nullptr;
}

std::string call_text(const Json& repair) {
  const Json* tool = get(repair, "tool");
  const Json* args = get(repair, "arguments");
  if (!tool || !args) return "";
  return tool->str() + " " + args->dump();
}

}  // namespace

std::string error_text(const ToolEntry& tool, const Json& e) {
  auto field = [&](std::string_view k) {
    const Json* v = get(e, k);
    return v && v->type() == Json::Type::Str ? v->str() : std::string();
  };
  std::string out = field("rule") + ": " + in_arguments(tool, field("message")) + "\n";
  if (std::string hint = field("hint"); !hint.empty()) out += "hint: " + in_arguments(tool, hint) + "\n";
  if (const Json* r = get(e, "repair"); r && !r->is_null()) {
    const Json* kind = get(*r, "kind");
    std::string k = kind && kind->type() == Json::Type::Str ? kind->str() : "";
    if (k == "retry") {
      if (std::string c = call_text(*r); !c.empty()) out += "repair: " + c + "\n";
    } else if (k == "choose") {
      std::string opts;
      if (const Json* o = get(*r, "options"))
        for (const Json& x : o->items())
          if (std::string c = call_text(x); !c.empty()) opts += (opts.empty() ? "" : " | ") + c;
      if (!opts.empty()) out += "repair, one of: " + opts + "\n";
    } else if (k == "none") {
      if (const Json* why = get(*r, "reason")) out += "repair: none: " + in_arguments(tool, why->str()) + "\n";
    }
  }
  if (const Json* d = get(e, "detail"); d && d->type() == Json::Type::Object && !d->members().empty())
    out += "detail: " + d->dump() + "\n";
  return out;
}

std::string document_text(const ToolEntry& tool, const Json& doc) {
  std::string out;
  const Json* data = get(doc, "data");
  if (data && !data->is_null()) {
    if (auto render = render::for_tool(tool.name)) render(*data, out, {});
  }
  if (const Json* dry = get(doc, "dry_run"); dry && dry->type() == Json::Type::Bool && dry->as_bool())
    out += "[dry run: nothing was changed]\n";
  if (const Json* errs = get(doc, "errors"))
    for (const Json& e : errs->items()) out += error_text(tool, e);
  return out;
}

std::string stream_text(const ToolEntry& tool, const Json& records, const Json& end) {
  std::string out;
  auto render = render::for_tool(tool.name);
  auto type_of = [](const Json& r) {
    const Json* type = get(r, "type");
    return type && type->type() == Json::Type::Str ? type->str() : std::string();
  };
  // seek's file records are its answer when no line is (-c, -l, counts only).
  bool lines = false;
  for (const Json& r : records.items()) lines = lines || type_of(r) == "match" || type_of(r) == "context";
  for (const Json& r : records.items()) {
    const std::string type = type_of(r);
    if (type == "error") {
      if (const Json* e = get(r, "error")) out += error_text(tool, *e);
    } else if (tool.name == "seek" && type == "file" && !lines) {
      const Json* m = get(r, "matches");
      render::seek_file(render::bytes_of(*get(r, "path")), m ? *m : Json(), out);
      out += '\n';
    } else if (render) {
      render(r, out, {});
    }
  }
  if (render) render(end, out, {});
  return out;
}

void cut_content(std::string& text, size_t max) {
  if (text.size() <= max) return;
  const size_t whole = text.size();
  size_t at = text.rfind('\n', max > 0 ? max - 1 : 0);
  at = at == std::string::npos ? 0 : at + 1;
  // Never in the middle of a UTF-8 sequence when one line is longer than the budget.
  if (at == 0) {
    at = max;
    while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  }
  text.resize(at);
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += "[content cut at " + std::to_string(at) + " of " + std::to_string(whole) +
          " bytes; structuredContent holds the whole answer: ask for less, or page with its next]\n";
}

std::string instructions() {
  return "Paths are relative to the root. Content is compact text (peek: N<TAB>line, seek: "
         "path:line:text); structuredContent is the JSON. A [bracketed] line is notable: a cut "
         "answer gives next, the arguments to go on with. Errors: `rule: message`, a hint, a "
         "repair to call as it stands. Writers need create (new file) or if_sha256 (from digest "
         "or a writer's answer); dry_run changes nothing. E.g. peek {\"paths\":[\"a.c\"],"
         "\"lines\":\"10:20\"}.";
}

}  // namespace mcp
