// call.cpp — see call.h.
#include "mcp/call.h"

#include <algorithm>

#include "contract/context.h"
#include "mcp/answer.h"
#include "mcp/child.h"
#include "mcp/content.h"
#include "mcp/json_in.h"

namespace mcp {

using contract::Json;

namespace {

Json text_result(const std::string& text, bool error) {
  return Json::object({{"content", Json::array({Json::object({{"type", "text"}, {"text", text}})})},
                       {"isError", error}});
}

}  // namespace

Json refusal(const Options& opt, const ToolEntry& t, const Json& err) {
  Json structured;
  if (t.stream) {
    structured =
        Json::object({{"records", Json::array({Json::object({{"type", "error"}, {"error", err}})})},
                      {"end", Json::object({{"type", "end"},
                                            {"ok", false},
                                            {"command", t.name},
                                            {"schema", t.schema_id},
                                            {"complete", false},
                                            {"truncated", false},
                                            {"next", Json()},
                                            {"cut", Json()}})}});
  } else {
    structured = Json::object({{"ok", false},
                               {"command", t.name},
                               {"schema", t.schema_id},
                               {"error", err},
                               {"errors", Json::array({err})},
                               {"meta", Json::object({{"version", TACK_VERSION}})}});
  }
  Json res = text_result(opt.content_json
                             ? Json::object({{"ok", false}, {"errors", Json::array({err})}}).dump()
                             : error_text(t, err),
                         true);
  res.set("structuredContent", std::move(structured));
  return res;
}

Json call_tool(const CallEnv& env, const ToolEntry& t, const Json& arguments,
               const std::string& root, contract::waiting::RootId root_id,
               const std::atomic<bool>* cancel, Waiting& ending) {
  std::string stdin_data;
  std::optional<ArgumentError> bad;
  std::vector<std::string> argv = build_argv(t, arguments, root, stdin_data, bad);
  if (bad) {
    Json err = tack_error("INVALID_ARGS", bad->rule, bad->message, bad->hint, bad->detail);
    if (bad->hint.empty()) err.set("hint", Json());
    // One fix that clears it: the same call with the argument it meant, as a retry.
    std::string unused;
    std::optional<ArgumentError> still;
    std::vector<std::string> fixed;
    if (!bad->retry.is_null()) fixed = build_argv(t, bad->retry, root, unused, still);
    if (!fixed.empty() && !still) {
      Json plain = Json::array({t.name});
      for (size_t i = t.takes_root ? 3 : 1; i < fixed.size(); ++i) plain.push(fixed[i]);
      err.set("repair", Json::object({{"kind", "retry"},
                                      {"argv", std::move(plain)},
                                      {"tool", t.name},
                                      {"arguments", bad->retry}}));
    }
    return refusal(env.opt, t, err);
  }
  std::string spawn_error;
  const Whole whole = t.starts   ? Whole::AtExit
                      : t.stream ? Whole::Stream
                                 : Whole::Document;
  Waiting w;
  ChildResult c;
  // A process that ended before its argv reached it ran nothing: the call goes to another.
  for (int attempt = 0; attempt < 2 && (attempt == 0 || c.never_started); ++attempt) {
    w = env.pool.take(t.bin, spawn_error);
    if (w.pid < 0)
      return text_result("tack-mcp: " + t.name + " could not start: " + spawn_error, true);
    c = run_child(w, argv, root_id, stdin_data, env.opt.timeout_ms, env.opt.max_output, cancel,
                  whole);
  }
  if (c.never_started)
    return text_result("tack-mcp: " + t.name + " ended before it could take the call.", true);
  if (c.whole_early) ending = w;
  if (c.timed_out)
    return text_result("tack-mcp: limit.timeout: " + t.name + " ran past " +
                           std::to_string(env.opt.timeout_ms) +
                           " ms and was killed; nothing it printed is returned.",
                       true);
  if (c.capped)
    return text_result("tack-mcp: limit.output: " + t.name + " printed more than " +
                           std::to_string(env.opt.max_output) +
                           " bytes and was killed; ask for less (a smaller range or --max-count).",
                       true);
  if (c.signal != 0)
    return text_result(
        "tack-mcp: " + t.name + " was ended by signal " + std::to_string(c.signal) + ".", true);

  // A retry repair also comes as the arguments of the same tool.
  auto add_arguments = [&](Json& err) {
    const Json* rep = err.get("repair");
    const std::string* kind = rep ? string_member(*rep, "kind") : nullptr;
    if (!kind || *kind != "retry") return;
    const Json* rargv = rep->get("argv");
    if (!rargv || rargv->type() != Json::Type::Array) return;
    std::vector<std::string> a;
    for (auto& x : rargv->items()) {
      if (x.type() != Json::Type::Str) return;
      a.push_back(x.str());
    }
    // The repair may name another tool beside this one (seek's long line: peek --bytes).
    const std::string base = a[0].substr(a[0].rfind('/') + 1);
    auto target = std::find_if(env.tools.begin(), env.tools.end(),
                               [&](const ToolEntry& e) { return e.name == base; });
    if (target == env.tools.end()) return;
    if (auto args = argv_to_arguments(*target, a, root, env.opt.root, stdin_data)) {
      // The call's own root goes with it: without it the retry would run at the default one.
      const Json* asked = arguments.get("root");
      if (asked && !asked->is_null() && target->takes_root) args->set("root", *asked);
      Json r = *rep;
      r.set("tool", target->name);
      r.set("arguments", std::move(*args));
      // The argv as the tool's own, without this machine's paths: its name, then the rest
      // without the root the server gave it.
      Json plain = Json::array({target->name});
      for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "--root" && i + 1 < a.size() && a[i + 1] == root) {
          ++i;
          continue;
        }
        if (a[i] == "--root=" + root) continue;
        plain.push(a[i]);
      }
      r.set("argv", std::move(plain));
      err.set("repair", std::move(r));
    }
  };

  Json structured;
  std::string text;
  bool ok = false;
  if (!t.stream) {
    auto doc = parse_json(c.out);
    if (!doc || doc->type() != Json::Type::Object)
      return text_result("tack-mcp: " + t.name + " gave no JSON answer (exit " +
                             std::to_string(c.exit_code) + "): " + c.err.substr(0, 400),
                         true);
    Json d = std::move(*doc);
    const bool as_printed = !d.get("errors");
    if (const Json* errs = d.get("errors")) {
      Json fixed = Json::array();
      for (auto e : errs->items()) {
        add_arguments(e);
        fixed.push(std::move(e));
      }
      d.set("error", fixed.items().empty() ? Json() : fixed.items()[0]);
      d.set("errors", std::move(fixed));
    }
    ok = d.get("ok") && d.get("ok")->as_bool();
    text = env.opt.content_json ? compact_text(d) : document_text(t, d);
    // An answer the server changed nothing in goes out as the tool printed it: its bytes, not
    // the tree serialized again.
    if (as_printed) {
      std::string_view out = c.out;
      while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.remove_suffix(1);
      structured = Json::raw_owned(std::string(out));
    } else {
      structured = std::move(d);
    }
  } else {
    Json records = Json::array();
    Json end;
    bool have_end = false, changed = false;
    std::string raw = "{\"records\":[";  // the records as printed, while nothing is changed
    std::string_view end_line;
    size_t start = 0;
    while (start < c.out.size()) {
      size_t nl = c.out.find('\n', start);
      if (nl == std::string::npos) nl = c.out.size();
      std::string_view line = std::string_view(c.out).substr(start, nl - start);
      auto rec = parse_json(line);
      start = nl + 1;
      if (!rec) continue;
      const std::string* type = string_member(*rec, "type");
      if (type && *type == "end") {
        end = std::move(*rec);
        end_line = line;
        have_end = true;
        continue;
      }
      Json r = std::move(*rec);
      if (!changed) {
        if (raw.back() != '[') raw += ',';
        raw += line;
      }
      if (type && *type == "error") {
        changed = true;
        if (const Json* e = r.get("error")) {
          Json ee = *e;
          add_arguments(ee);
          r.set("error", std::move(ee));
        }
      }
      records.push(std::move(r));
    }
    if (!have_end)
      return text_result("tack-mcp: " + t.name + "'s answer ended without its end record (exit " +
                             std::to_string(c.exit_code) + "): treat it as cut short.",
                         true);
    ok = end.get("ok") && end.get("ok")->as_bool();
    if (env.opt.content_json) {
      for (auto& r : records.items()) text += r.dump() + "\n";
      text += end.dump();
    } else {
      text = stream_text(t, records, end);
    }
    if (changed) {
      structured = Json::object({{"records", std::move(records)}, {"end", std::move(end)}});
    } else {
      raw += "],\"end\":";
      raw += end_line;
      raw += '}';
      structured = Json::raw_owned(std::move(raw));
    }
  }
  // Bytes that are not UTF-8 (a Latin-1 line) reach the model \xNN-escaped, never altered.
  if (!contract::valid_utf8(text)) text = contract::printable(text);
  if (!env.opt.content_json) cut_content(text, env.opt.max_content);
  Json res = text_result(text, !ok);
  res.set("structuredContent", std::move(structured));
  return res;
}

}  // namespace mcp
