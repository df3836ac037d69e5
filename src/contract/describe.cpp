// describe.cpp — everything a tool says about itself, generated from its table: --help,
// introspect (JSON), skill (an agentskills.io SKILL.md) and the JSON Schema of its output.
#include <unistd.h>

#include <algorithm>
#include <set>

#include "contract/context.h"

namespace contract {

namespace {

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::Bool: return "bool";
    case Kind::Nat: return "nat";
    case Kind::Text: return "text";
    case Kind::Path: return "path";
    case Kind::Choice: return "choice";
    case Kind::Range: return "range";
    case Kind::List: return "list";
  }
  return "text";
}

std::string_view role_name(Role r) {
  switch (r) {
    case Role::None: return "none";
    case Role::Root: return "root";
    case Role::PathRead: return "path-read";
    case Role::PathWrite: return "path-write";
    case Role::Pattern: return "pattern";
    case Role::Content: return "content";
    case Role::Format: return "format";
  }
  return "none";
}

std::string_view repairable_name(Repairable r) {
  switch (r) {
    case Repairable::Never: return "never";
    case Repairable::Sometimes: return "sometimes";
    case Repairable::Always: return "always";
  }
  return "never";
}

std::string_view reversibility_name(Reversibility r) {
  switch (r) {
    case Reversibility::ReversibleCheap: return "reversible-cheap";
    case Reversibility::IrreversibleBounded: return "irreversible-bounded";
    case Reversibility::IrreversibleConsequential: return "irreversible-consequential";
  }
  return "reversible-cheap";
}

constexpr std::string_view kConfinement =
    "with --root, paths are checked lexically against it and opened beneath it following no "
    "symbolic link (path.symlink), so nothing outside the root is reachable through one; "
    "without it, a reader opens the path as given and a writer still follows no link in the "
    "file's own name";

// The rules the contract's own machinery can reach for this table, in a fixed order: the
// parser's, the lexical path checks' (with --root, the confinement ones too). A tool declares
// only the rules its own code reaches; a row it also declares replaces the contract's.
std::vector<Rule> contract_rules(const Tool& tool, const Adapter& a) {
  std::vector<Rule> out = {{"args.unknown-flag", Repairable::Sometimes},
                           {"args.missing-value"},
                           {"args.bad-value"},
                           {"args.unexpected-value"},
                           {"args.duplicate-flag"}};
  bool excludes = false, paths = false;
  for (auto& f : a.flags) {
    excludes = excludes || !f.excludes.empty();
    paths = paths || f.role == Role::PathRead || f.role == Role::PathWrite;
  }
  bool required = false, bounded = true;
  for (auto& o : a.operands) {
    required = required || o.min > 0;
    bounded = bounded && o.max != kMany;
    paths = paths || o.role == Role::PathRead || o.role == Role::PathWrite;
  }
  if (excludes) out.push_back({"args.conflict"});
  if (required) out.push_back({"args.missing-operand"});
  if (bounded) out.push_back({"args.too-many-operands"});
  if (paths || tool.takes_root) out.push_back({"path.empty"});
  if (tool.takes_root) {
    out.push_back({"path.dotdot", Repairable::Sometimes});
    out.push_back({"path.absolute", Repairable::Always});
    out.push_back({"path.outside-root"});
  }
  // What os::open_read answers for any path a tool names (a tool row with the same tag, with
  // its own wording, replaces one of these).
  if (paths) {
    for (std::string_view tag : {"path.too-long", "path.symlink", "io.not-found", "io.not-a-directory",
                                 "io.special-file", "io.permission-denied"})
      out.push_back({tag});
  }
  return out;
}

}  // namespace

std::vector<Rule> rules_of(const Tool& tool, const Adapter& a) {
  std::vector<Rule> out = contract_rules(tool, a);
  for (auto& r : tool.rules) {
    auto same = std::find_if(out.begin(), out.end(), [&](const Rule& c) { return c.tag == r.tag; });
    if (same != out.end())
      *same = r;
    else
      out.push_back(r);
  }
  return out;
}

namespace {

std::string_view rule_when(const Rule& r) {
  if (!r.when.empty()) return r.when;
  auto row = find_rule(r.tag);
  return row ? row->when : "";
}

// The exit codes a tool can end with: success, output failure, and those of its rules.
std::vector<Exit> exits(const Tool& tool, const Adapter& a) {
  std::set<int> codes = {0, 1};
  for (auto& r : rules_of(tool, a))
    if (auto row = find_rule(r.tag)) codes.insert(static_cast<int>(row->exit));
  for (auto& f : a.flags)
    if (f.name == "dry-run") codes.insert(static_cast<int>(Exit::DryRun));
  std::vector<Exit> out;
  for (int c : codes) out.push_back(static_cast<Exit>(c));
  return out;
}

Json split(std::string_view rest, char sep) {
  Json list = Json::array();
  while (!rest.empty()) {
    size_t k = rest.find(sep);
    list.push(rest.substr(0, k));
    if (k == std::string_view::npos) break;
    rest.remove_prefix(k + 1);
  }
  return list;
}

std::string flag_spelling(const FlagInfo& f) {
  std::string s = "--" + std::string(f.name);
  if (f.kind != Kind::Bool) s += " " + std::string(f.value_name);
  if (f.short_name) s = std::string("-") + f.short_name + ", " + s;
  return s;
}

// The rules the contract skill explains once for every tool; a tool's skill lists the others.
bool common_area(std::string_view tag) {
  return tag.starts_with("args.") || tag.starts_with("path.") || tag.starts_with("io.");
}

}  // namespace

std::string_view first_clause(std::string_view help) {
  size_t k = help.find("; ");
  if (k == std::string_view::npos) return help;
  std::string_view cut = help.substr(0, k);
  // A clause that opens a parenthesis it does not close ends before the parenthesis.
  if (std::count(cut.begin(), cut.end(), '(') > std::count(cut.begin(), cut.end(), ')'))
    cut = cut.substr(0, cut.rfind(" ("));
  return cut;
}

namespace {

// The usage line without the flags the contract skill explains once (--root, --format).
std::string short_usage(std::string_view usage) {
  std::string u(usage);
  for (std::string_view drop : {"[--root DIR] ", " [--format json|text]", " [--format ndjson|text]"}) {
    for (size_t k; (k = u.find(drop)) != std::string::npos;) u.erase(k, drop.size());
  }
  return u;
}

// A YAML double-quoted scalar: a description may hold ": " or start with a quote.
std::string yaml_quoted(std::string_view text) {
  std::string q = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

std::string example_lines(const Tool& tool, std::string_view indent) {
  std::string s;
  for (auto& e : tool.examples)
    s += std::string(indent) + std::string(e.args) + "\n" + std::string(indent) + "    " +
         std::string(e.shows) + "\n";
  return s;
}

}  // namespace

void text_errors_to_stderr(std::string_view tool, std::span<const Error> errors) {
  std::string s;
  for (auto& e : errors) {
    // One line per error, whatever a file name in the message holds.
    std::string m = printable(e.message);
    std::string line;
    for (unsigned char c : m) {
      if (c < 0x20 || c == 0x7f) {
        static constexpr char hex[] = "0123456789abcdef";
        line += "\\x";
        line += hex[c >> 4];
        line += hex[c & 15];
      } else {
        line += static_cast<char>(c);
      }
    }
    s += std::string(tool) + ": " + std::string(e.rule) + ": " + line + "\n";
  }
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(2, s.data() + done, s.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

std::vector<FlagInfo> common_flags(const Tool& tool) {
  std::vector<FlagInfo> f;
  if (tool.takes_root)
    f.push_back({"root", 0, Kind::Path, Role::Root, "DIR", "", 0, 0, "", "",
                 "resolve every path relative to DIR and refuse paths outside it; no "
                 "symbolic link below DIR is followed",
                 false, false});
  bool doc = tool.output == Output::Document;
  f.push_back({"format", 0, Kind::Choice, Role::Format, "FORMAT", doc ? "json" : "ndjson", 0, 0,
               doc ? "json|text" : "ndjson|text", "",
               doc ? "json (one document) for a program, text for a person"
                   : "ndjson (one record a line, ending with an end record) for a program, "
                     "text for a person",
               false, false});
  f.push_back(
      {"help", 'h', Kind::Bool, Role::None, "", "", 0, 0, "", "", "print this help", false, false});
  f.push_back({"version", 0, Kind::Bool, Role::None, "", "", 0, 0, "", "", "print the version",
               false, false});
  return f;
}

std::string help_text(const Tool& tool, const Adapter& a) {
  std::string s = std::string(tool.name) + " " + TACK_VERSION + " - " + std::string(tool.summary) + "\n\n";
  s += "usage: " + std::string(tool.usage) + "\n";
  s += "       " + std::string(tool.name) + " introspect | skill\n\n";
  if (!tool.differs.empty()) s += std::string(tool.differs) + "\n\n";
  if (!a.operands.empty()) {
    s += "operands:\n";
    for (auto& o : a.operands) s += "  " + std::string(o.name) + "\n      " + std::string(o.help) + "\n";
    s += "\n";
  }
  s += "flags:\n";
  std::vector<FlagInfo> all = a.flags;
  for (auto& f : common_flags(tool)) all.push_back(f);
  for (auto& f : all) {
    s += "  " + flag_spelling(f) + "\n      " + std::string(f.help);
    if (!f.fallback.empty()) s += " (default " + std::string(f.fallback);
    if (f.ceiling) s += (f.fallback.empty() ? " (" : ", ") + std::string("ceiling ") + std::to_string(f.ceiling);
    if (!f.fallback.empty() || f.ceiling) s += ")";
    s += "\n";
  }
  if (!tool.examples.empty()) s += "\nexamples:\n" + example_lines(tool, "  ");
  s += "\nexit codes:\n";
  for (Exit e : exits(tool, a))
    s += "  " + std::to_string(static_cast<int>(e)) + " " + std::string(exit_name(e)) + ": " +
         std::string(exit_meaning(e)) + "\n";
  s += "\nOutput is " +
       std::string(tool.output == Output::Document ? "one JSON document" : "NDJSON ending with an end record") +
       " (schema " + std::string(tool.schema) + "); errors carry a rule tag and a repair. `" +
       std::string(tool.name) + " introspect` describes all of it as JSON.\n";
  return s;
}

Json introspect(const Tool& tool, const Adapter& a) {
  Json flags = Json::array();
  std::vector<FlagInfo> all = a.flags;
  for (auto& f : common_flags(tool)) all.push_back(f);
  Json limits = Json::array();
  for (auto& f : all) {
    Json j = Json::object({{"name", f.name},
                           {"short", f.short_name ? Json(std::string(1, f.short_name)) : Json()},
                           {"kind", kind_name(f.kind)},
                           {"role", role_name(f.role)},
                           {"value_name", f.value_name.empty() ? Json() : Json(f.value_name)},
                           {"default", f.fallback.empty() ? Json() : Json(f.fallback)},
                           {"ceiling", f.ceiling ? Json(f.ceiling) : Json()},
                           {"floor", f.kind == Kind::Nat ? Json(f.floor) : Json()},
                           {"help", f.help}});
    j.set("choices", split(f.choices, '|'));
    j.set("excludes", split(f.excludes, ' '));
    j.set("widens", f.widens);  // a repair never adds it
    flags.push(std::move(j));
    if (f.limit)
      limits.push(Json::object({{"flag", f.name}, {"default", f.fallback}, {"ceiling", f.ceiling}}));
  }
  Json operands = Json::array();
  for (auto& o : a.operands)
    operands.push(Json::object({{"name", o.name},
                                {"role", role_name(o.role)},
                                {"min", o.min},
                                {"max", o.max == kMany ? Json() : Json(o.max)},
                                {"stdin_dash", o.dash_is_stdin},
                                {"unless", o.unless.empty() ? Json() : Json("--" + std::string(o.unless))},
                                {"help", o.help}}));
  Json codes = Json::array();
  for (Exit e : exits(tool, a))
    codes.push(Json::object({{"code", static_cast<int>(e)}, {"name", exit_name(e)}, {"meaning", exit_meaning(e)}}));
  Json rules = Json::array();
  for (auto& r : rules_of(tool, a)) {
    auto row = find_rule(r.tag);
    rules.push(Json::object({{"rule", r.tag},
                             {"exit", row ? static_cast<int>(row->exit) : 1},
                             {"code", row ? exit_name(row->exit) : "GENERAL_ERROR"},
                             {"repair", repairable_name(r.repairable)},
                             {"when", rule_when(r)}}));
  }
  Json guarantees = Json::array();
  for (std::string_view rest = tool.guarantees; !rest.empty();) {
    size_t k = rest.find(", ");
    guarantees.push(rest.substr(0, k));
    if (k == std::string_view::npos) break;
    rest.remove_prefix(k + 2);
  }
  Json schema = Json::raw(output_schema(tool, a));
  Json examples = Json::array();
  for (auto& e : tool.examples) examples.push(Json::object({{"args", e.args}, {"shows", e.shows}}));
  return Json::object({
      {"tool", tool.name},
      {"version", TACK_VERSION},
      {"summary", tool.summary},
      {"differs", tool.differs},
      {"usage", tool.usage},
      {"output", tool.output == Output::Document ? "document" : "stream"},
      {"schema", tool.schema},
      {"flags", std::move(flags)},
      {"operands", std::move(operands)},
      {"exit_codes", std::move(codes)},
      {"rules", std::move(rules)},
      {"limits", std::move(limits)},
      {"confinement", tool.takes_root ? Json(kConfinement) : Json()},
      {"effects", Json::object({{"reads_files", (tool.effects & kReadFiles) != 0},
                                {"writes_files", (tool.effects & kWriteFiles) != 0},
                                {"reads_stdin", (tool.effects & kReadStdin) != 0},
                                {"starts_programs", (tool.effects & kStartPrograms) != 0},
                                {"network", false},
                                {"reads_environment", false},
                                {"reads_clock", false}})},
      {"reversibility", reversibility_name(tool.reversibility)},
      {"guarantees", std::move(guarantees)},
      {"concurrency", tool.concurrency},
      {"output_schema", std::move(schema)},
      {"examples", std::move(examples)},
      {"mcp_flags", [&] {
         Json names = Json::array();
         for (std::string_view rest = tool.mcp_flags; !rest.empty();) {
           size_t sp = rest.find(' ');
           names.push(std::string(rest.substr(0, sp)));
           if (sp == std::string_view::npos) break;
           rest.remove_prefix(sp + 1);
         }
         return names;
       }()},
  });
}

std::string skill_text(const Tool& tool, const Adapter& a) {
  std::string n(tool.name);
  std::string s = "---\nname: " + n + "\ndescription: " + yaml_quoted(tool.summary) + "\n---\n\n";
  s += "`" + short_usage(tool.usage) + "`\n\n";
  std::vector<FlagInfo> all = a.flags;
  for (auto& f : common_flags(tool)) all.push_back(f);
  for (std::string_view rest = tool.key_flags; !rest.empty();) {
    size_t sp = rest.find(' ');
    std::string_view name = rest.substr(0, sp);
    for (auto& f : all)
      if (f.name == name) {
        s += "- `" + flag_spelling(f) + "`: " + std::string(first_clause(f.help));
        if (!f.fallback.empty() && f.role != Role::Format) s += " (default " + std::string(f.fallback) + ")";
        s += "\n";
      }
    if (sp == std::string_view::npos) break;
    rest.remove_prefix(sp + 1);
  }
  if (!tool.examples.empty()) s += "\nExamples:\n" + example_lines(tool, "    ");
  std::string own;
  for (auto& r : rules_of(tool, a)) {
    if (common_area(r.tag)) continue;
    auto row = find_rule(r.tag);
    own += std::string(own.empty() ? "" : " · ") + "`" + std::string(r.tag) + "` " +
           std::to_string(row ? static_cast<int>(row->exit) : 1);
  }
  if (!own.empty()) s += "\nIts own rules (exit): " + own + "\n";
  s += "\nMore: `" + n + " --help` (every flag), `" + n + " introspect` (JSON), `" + n +
       " skill contract` (what every tool keeps).\n";
  return s;
}

std::string contract_skill() {
  std::string s =
      "---\nname: tack\ndescription: \"The contract every tack tool keeps: how answers, exit "
      "codes, errors, repairs, --root and pages work. Read it once; each tool's own skill says the "
      "rest.\"\n---\n\n"
      "**Answers.** JSON by default. A document tool prints one object "
      "`{\"ok\",\"command\",\"schema\",\"data\",\"meta\"}`, with `error` and `errors` when `ok` is "
      "false. A stream tool prints one object a line and always ends with "
      "`{\"type\":\"end\",\"ok\",\"complete\",\"truncated\",\"next\",...}`; without that line it was cut "
      "short. Bytes that are not UTF-8 come as `{\"b64\":\"...\"}`, never altered. `--format text` "
      "gives one line per item and a last line saying what was skipped or cut.\n\n"
      "**Exit codes.** ";
  bool first = true;
  for (int c : {0, 1, 2, 3, 4, 5, 8, 9}) {
    Exit e = static_cast<Exit>(c);
    s += std::string(first ? "" : " · ") + std::to_string(c) + " " + std::string(exit_name(e));
    if (c == 2) s += " (nothing was read)";
    if (c == 8) s += " (the answer is no, or a limit was reached)";
    first = false;
  }
  s += ". Zero matches is success.\n\n"
       "**Errors** are `{code, rule, message, hint, repair, detail}`: match on `rule`; the facts are "
       "in `detail`. A repair `{\"kind\":\"retry\",\"argv\":[...]}` runs as it stands and never "
       "widens what the tool may touch; `choose` offers argvs; `none` says why judgement is needed. "
       "The common rules, with their exit codes:\n\n";
  for (std::string_view area : {"args.", "path.", "io."}) {
    s += "- `" + std::string(area) + "*`:";
    for (auto& row : catalogue()) {
      if (!row.rule.starts_with(area)) continue;
      s += " " + std::string(row.rule.substr(area.size())) + " (" +
           std::to_string(static_cast<int>(row.exit)) + ")";
    }
    s += "\n";
  }
  s += "\n"
       "**Paths.** With `--root DIR` every path is relative to DIR; `..`, absolute paths outside it "
       "and symbolic links below it are refused (`path.*`). Without it paths are used as given, and "
       "an answer says when one led through a link. A pattern or text that starts with `-` goes "
       "after `--`.\n\n"
       "**Pages.** A cap (`--max-count`, `--max-entries`, `--max-bytes`) ends the answer with "
       "`truncated:true` and a `next` cursor such as `{\"skip\":100}` or `{\"line\":201}`: pass it "
       "back (`--skip 100`, `--lines 201:`) for the rest; `cut` names the cap (64 KiB of answer by "
       "default: `--max-bytes`). A line or input past a limit is a `limit.*` "
       "error whose retry raises the cap, never a silent cut.\n\n"
       "**Changing files** (write, replace, edit, move) is never blind: `--create` (must not exist) "
       "or `--if-sha256 HEX` of the current bytes (`digest` gives it; a refusal's "
       "`detail.actual_sha256` too). `--dry-run` shows the plan (exit 9). Each change is atomic and "
       "idempotent (a repeat answers `changed:false`), keeps line endings and a BOM, and is answered "
       "with a diff. Nothing is deleted: `move --remove` renames to a tombstone.\n\n"
       "**Witnesses.** `peek --witness` and `seek --witness` give each line a handle like `h1a2b3c`; "
       "`edit` changes lines by witness and refuses a stale one.\n\n"
       "Each tool: `TOOL skill` (its use in brief), `TOOL --help` (every flag), `TOOL introspect` "
       "(JSON: flags, rules, limits, output schema).\n";
  return s;
}

std::string output_schema(const Tool& tool, const Adapter& a) {
  std::string rules, codes;
  std::set<std::string_view> code_set;
  for (auto& r : rules_of(tool, a)) {
    rules += (rules.empty() ? "\"" : ",\"") + std::string(r.tag) + "\"";
    if (auto row = find_rule(r.tag)) code_set.insert(exit_name(row->exit));
  }
  for (auto c : code_set) codes += (codes.empty() ? "\"" : ",\"") + std::string(c) + "\"";
  std::string name(tool.name), id(tool.schema);
  std::string defs =
      R"("$defs":{"text_or_bytes":{"oneOf":[{"type":"string"},{"type":"object","required":["b64"],"properties":{"b64":{"type":"string","contentEncoding":"base64"}},"additionalProperties":false}]},)"
      R"("argv":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/text_or_bytes"}},)"
      R"("repair":{"oneOf":[{"type":"null"},)"
      R"({"type":"object","required":["kind","reason"],"properties":{"kind":{"const":"none"},"reason":{"type":"string"}},"additionalProperties":false},)"
      R"({"type":"object","required":["kind","argv"],"properties":{"kind":{"const":"retry"},"argv":{"$ref":"#/$defs/argv"}},"additionalProperties":false},)"
      R"({"type":"object","required":["kind","options"],"properties":{"kind":{"const":"choose"},"options":{"type":"array","minItems":2,"items":{"type":"object","required":["argv"],"properties":{"argv":{"$ref":"#/$defs/argv"}},"additionalProperties":false}}},"additionalProperties":false}]},)"
      R"("error":{"type":"object","required":["code","rule","message","hint","repair","detail"],"additionalProperties":false,"properties":{)"
      R"("code":{"enum":[)" + codes + R"(]},"rule":{"enum":[)" + rules + R"(]},)"
      R"("message":{"type":"string"},"hint":{"type":["string","null"]},"repair":{"$ref":"#/$defs/repair"},"detail":{"type":"object"}}}})";
  std::string head = R"({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://tack.dev/schemas/)" +
                     id + R"(.json","title":")" + id + "\",";
  if (tool.output == Output::Document) {
    return head +
           R"("type":"object","required":["ok","command","schema","meta"],"additionalProperties":false,"properties":{)"
           R"("ok":{"type":"boolean"},"command":{"const":")" + name + R"("},"schema":{"const":")" + id + R"("},)"
           R"("dry_run":{"const":true},"planned_actions":{"type":"array"},"data":)" + std::string(tool.data_schema) + ","
           R"("error":{"$ref":"#/$defs/error"},"errors":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/error"}},)"
           R"("meta":{"type":"object","required":["version"],"properties":{"version":{"type":"string"}},"additionalProperties":false}},)"
           R"("if":{"properties":{"ok":{"const":false}}},"then":{"required":["error","errors"]},"else":{"properties":{"error":false,"errors":false}},)" +
           defs + "}";
  }
  std::string cuts = "null";
  const Json cut_flags = split(tool.cuts, ' ');
  for (const Json& c : cut_flags.items()) cuts += "," + c.dump();
  std::string end =
      R"({"type":"object","required":["type","ok","command","schema","complete","truncated","next","cut"],"additionalProperties":false,"properties":{)"
      R"("type":{"const":"end"},"ok":{"type":"boolean"},"command":{"const":")" + name + R"("},"schema":{"const":")" + id +
      R"("},"complete":{"type":"boolean"},"truncated":{"type":"boolean"},"next":{"type":["object","null"]},)"
      R"("cut":{"enum":[)" + cuts + "]}" +
      (tool.end_schema.empty() ? "" : "," + std::string(tool.end_schema)) + "}}";
  std::string err =
      R"({"type":"object","required":["type","error"],"additionalProperties":false,"properties":{"type":{"const":"error"},"error":{"$ref":"#/$defs/error"}}})";
  return head + R"("description":"one line of the stream","oneOf":[)" + std::string(tool.data_schema) + "," + err +
         "," + end + "]," + defs + "}";
}

}  // namespace contract
