// catalog.cpp — MCP tool entries from each tool's own description (see catalog.h).
#include "mcp/catalog.h"

#include <algorithm>
#include <cctype>

#include "contract/context.h"
#include "contract/parse.h"
#include "mcp/child.h"
#include "mcp/json_in.h"

namespace mcp {

namespace {

using contract::Json;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string underscored(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

const Json* member(const Json& j, std::string_view key) {
  return j.type() == Json::Type::Object ? j.get(key) : nullptr;
}

bool is_true(const Json* j) { return j && j->type() == Json::Type::Bool && j->as_bool(); }

// What a property is, in as few words as its help allows: the help's first clause, up to its
// first ": ", without parentheses (the command line's help keeps the fine print). A tool's
// summary is cut the same way.
std::string brief(std::string_view help) {
  std::string_view c = contract::first_clause(help);
  if (size_t k = c.find(": "); k != std::string_view::npos) c = c.substr(0, k);
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i] == '(') {
      ++depth;
      if (!out.empty() && out.back() == ' ') out.pop_back();
      continue;
    }
    if (c[i] == ')' && depth > 0) {
      --depth;
      continue;
    }
    if (depth == 0) out += c[i];
  }
  return out;
}

// A number as the schema writes it (introspect gives defaults as command-line spellings).
Json nat_default(const std::string& text) {
  unsigned long long v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return Json(text);
    v = v * 10 + static_cast<unsigned long long>(c - '0');
  }
  return Json(v);
}

// The output schema a client's validator takes: no draft URI or id (a client may compile it
// again on every listing), a retry repair may carry its `arguments`, and a stream's lines are
// gathered into {records, end}.
Json output_schema(const Json& schema, bool stream) {
  Json s = Json::object();
  for (auto& [k, v] : schema.members())
    if (k != "$schema" && k != "$id") s.set(k, v);
  if (const Json* defs = member(s, "$defs")) {
    Json d = *defs;
    if (const Json* repair = member(d, "repair")) {
      Json r = *repair;
      Json options = Json::array();
      for (auto& opt : member(r, "oneOf") ? member(r, "oneOf")->items() : std::vector<Json>{}) {
        Json o = opt;
        const Json* props = member(o, "properties");
        const Json* kind = props ? member(*props, "kind") : nullptr;
        const std::string* c = kind ? string_member(*kind, "const") : nullptr;
        if (c && *c == "retry") {
          Json p = *props;
          p.set("arguments", Json::object({{"type", "object"}}));
          p.set("tool", Json::object({{"type", "string"}}));
          o.set("properties", std::move(p));
        }
        options.push(std::move(o));
      }
      r.set("oneOf", std::move(options));
      d.set("repair", std::move(r));
    }
    s.set("$defs", std::move(d));
  }
  if (!stream) return s;
  const Json* lines = member(s, "oneOf");
  if (!lines || lines->items().empty()) return s;
  Json records = Json::array();
  for (size_t i = 0; i + 1 < lines->items().size(); ++i) records.push(lines->items()[i]);
  Json out = Json::object({{"type", "object"},
                           {"description", "the stream's records in order, and its end record"},
                           {"required", Json::array({"records", "end"})},
                           {"additionalProperties", false},
                           {"properties", Json::object({{"records", Json::object({{"type", "array"},
                                                                                  {"items", Json::object({{"oneOf", std::move(records)}})}})},
                                                        {"end", lines->items().back()}})}});
  if (const Json* defs = member(s, "$defs")) out.set("$defs", *defs);
  return out;
}

}  // namespace

std::string in_arguments(const ToolEntry& tool, std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "--") == 0 && (i == 0 || !isalnum(static_cast<unsigned char>(text[i - 1])))) {
      size_t j = i + 2;
      while (j < text.size() && (isalnum(static_cast<unsigned char>(text[j])) || text[j] == '-')) ++j;
      std::string flag(text.substr(i + 2, j - i - 2));
      while (!flag.empty() && flag.back() == '-') flag.pop_back(), --j;
      auto p = std::find_if(tool.props.begin(), tool.props.end(),
                            [&](const Prop& x) { return !x.flag.empty() && x.flag == flag; });
      if (p != tool.props.end()) {
        out += p->name;
        i = j;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

std::optional<std::string> describe_tool(const std::string& bin, std::string_view introspect,
                                         std::string_view skill_text, ToolEntry& t) {
  (void)skill_text;  // the skill is the command line's; a model reads the summary and the schema
  auto info = parse_json(std::string(introspect));
  if (!info || info->type() != Json::Type::Object) return bin + " introspect is not JSON";
  const Json& in = *info;
  t.bin = bin;
  t.name = string_member(in, "tool") ? *string_member(in, "tool") : "";
  t.schema_id = string_member(in, "schema") ? *string_member(in, "schema") : "";
  t.stream = string_member(in, "output") && *string_member(in, "output") == "stream";
  const Json* effects = member(in, "effects");
  t.writes = effects && is_true(member(*effects, "writes_files"));
  t.starts = effects && is_true(member(*effects, "starts_programs"));
  const bool starts = t.starts;
  std::vector<std::string> offered;
  for (auto& n : member(in, "mcp_flags") ? member(in, "mcp_flags")->items() : std::vector<Json>{})
    if (n.type() == Json::Type::Str) offered.push_back(n.str());

  // Every flag but the runner's own is a property; those the table does not offer are hidden.
  std::vector<std::pair<std::string, Json>> schemas;  // the offered properties, in table order
  t.takes_root = false;
  for (auto& f : member(in, "flags") ? member(in, "flags")->items() : std::vector<Json>{}) {
    std::string name = string_member(f, "name") ? *string_member(f, "name") : "";
    std::string kind = string_member(f, "kind") ? *string_member(f, "kind") : "";
    std::string help = string_member(f, "help") ? *string_member(f, "help") : "";
    if (name == "root") {
      t.takes_root = true;
      continue;
    }
    if (name == "format" || name == "help" || name == "version") continue;
    Prop p;
    p.name = underscored(name);
    p.flag = name;
    p.flag_kind = kind;
    p.hidden = std::find(offered.begin(), offered.end(), name) == offered.end();
    if (const Json* w = f.get("widens"); w && w->type() == Json::Type::Bool)
      p.widens = w->as_bool();
    if (const std::string* s = string_member(f, "short"); s && s->size() == 1) p.short_name = (*s)[0];
    Json schema = Json::object();
    if (name == "stdin" && kind == "bool") {
      p.kind = Prop::Kind::Stdin;
      schema.set("type", "string");
    } else if (kind == "bool") {
      schema.set("type", "boolean");
    } else if (kind == "nat") {
      schema.set("type", "integer");
    } else if (kind == "list") {
      schema = Json::object({{"type", "array"}, {"items", Json::object({{"type", "string"}})}});
    } else {
      schema.set("type", "string");
      if (kind == "choice") schema.set("enum", *member(f, "choices"));
    }
    schema.set("description", brief(help));
    if (!p.hidden) schemas.emplace_back(p.name, std::move(schema));
    t.props.push_back(std::move(p));
  }
  auto offered_prop = [&](const std::string& name) {
    return std::find_if(t.props.begin(), t.props.end(), [&](const Prop& x) { return !x.hidden && x.name == name; }) !=
           t.props.end();
  };
  Json required = Json::array();
  size_t slot = 0;
  for (auto& o : member(in, "operands") ? member(in, "operands")->items() : std::vector<Json>{}) {
    Prop p;
    p.kind = Prop::Kind::Operand;
    p.operand = slot++;
    std::string name = string_member(o, "name") ? *string_member(o, "name") : "operand";
    p.min = member(o, "min") ? member(o, "min")->as_uint() : 0;
    const Json* max = member(o, "max");
    p.max = max && !max->is_null() ? max->as_uint() : SIZE_MAX;
    OperandSpec spec{name, string_member(o, "unless") ? string_member(o, "unless")->substr(2) : "", p.min, p.max, ""};
    p.name = underscored(lower(name));
    if (p.max > 1 && p.name.back() != 's') p.name += "s";
    // An offered flag of the same name wins when the operand is optional; else the operand is
    // renamed. A hidden flag of the same name gives the operand its name.
    if (offered_prop(p.name)) {
      if (p.min == 0) {
        t.operands.push_back(std::move(spec));
        continue;
      }
      p.name += "_operand";
    } else {
      for (auto& q : t.props)
        if (q.name == p.name) q.name.clear();  // reachable by no name
    }
    spec.prop = p.name;
    t.operands.push_back(std::move(spec));
    std::string help = brief(string_member(o, "help") ? *string_member(o, "help") : "");
    Json schema = p.max > 1 ? Json::object({{"type", "array"}, {"items", Json::object({{"type", "string"}})}})
                            : Json::object({{"type", "string"}});
    schema.set("description", help);
    // Required unless an offered flag stands in for it (seek's pattern given by -e).
    if (p.min > 0 && (spec.unless.empty() || !offered_prop(underscored(spec.unless)))) required.push(p.name);
    schemas.insert(schemas.begin() + static_cast<long>(p.operand < schemas.size() ? p.operand : schemas.size()),
                   {p.name, std::move(schema)});
    t.props.push_back(std::move(p));
  }
  if (t.takes_root) {
    Prop p;
    p.kind = Prop::Kind::Root;
    p.name = "root";
    p.hidden = true;  // the server's root, narrowed by the client's roots: a model need not say
    t.props.push_back(std::move(p));
  }
  Json props = Json::object();
  for (auto& [name, schema] : schemas) {
    Json sc = schema;
    if (const std::string* d = string_member(sc, "description")) sc.set("description", in_arguments(t, *d));
    props.set(name, std::move(sc));
  }

  std::string summary = string_member(in, "summary") ? *string_member(in, "summary") : "";
  std::string reversibility = string_member(in, "reversibility") ? *string_member(in, "reversibility") : "";
  bool idempotent = false;
  for (auto& g : member(in, "guarantees") ? member(in, "guarantees")->items() : std::vector<Json>{})
    idempotent = idempotent || (g.type() == Json::Type::Str && g.str() == "idempotent");
  Json input = Json::object({{"type", "object"}, {"properties", std::move(props)}});
  if (!required.items().empty()) input.set("required", std::move(required));
  const Json* schema = member(in, "output_schema");
  t.descriptor = Json::object({
      {"name", t.name},
      {"title", t.name + ": " + summary.substr(0, summary.find_first_of(",:;"))},
      {"description", [&] {
         std::string d = in_arguments(t, brief(summary));
         if (!d.empty() && d.back() != '.') d += '.';
         return d;
       }()},
      {"inputSchema", std::move(input)},
      {"outputSchema", schema ? output_schema(*schema, t.stream) : Json::object({{"type", "object"}})},
      {"annotations", Json::object({{"readOnlyHint", !t.writes && !starts},
                                    {"destructiveHint", t.writes && reversibility != "reversible-cheap"},
                                    {"idempotentHint", idempotent},
                                    {"openWorldHint", starts}})},
  });
  return std::nullopt;
}

namespace {

ArgumentError unknown_argument(const ToolEntry& tool, const std::string& key, const Json& arguments) {
  std::string best;
  size_t best_d = SIZE_MAX;
  bool tie = false, widens = false;
  Json names = Json::array();
  for (auto& p : tool.props) {
    if (p.hidden || p.name.empty()) continue;
    names.push(p.name);
    size_t d = contract::edit_distance(key, p.name, 64);
    if (d < best_d)
      best_d = d, best = p.name, tie = false, widens = p.widens;
    else if (d == best_d) tie = true;
  }
  bool near = !best.empty() && !tie && best_d <= std::max<size_t>(2, key.size() / 3);
  Json detail = Json::object({{"argument", Json::bytes(key)}, {"arguments", std::move(names)}});
  if (near) detail.set("nearest", best);
  Json retry;
  if (near && !widens && !arguments.get(best)) {  // a repair never adds a flag that widens
    retry = Json::object();
    for (auto& [k, v] : arguments.members()) retry.set(k == key ? best : k, v);
  }
  return {"args.unknown-flag", tool.name + " takes no argument '" + contract::printable(key) + "'.",
          near ? "did you mean '" + best + "'?" : "its arguments are listed in its input schema.", std::move(detail),
          std::move(retry)};
}

ArgumentError bad_value(const ToolEntry& tool, const std::string& key, const std::string& want) {
  return {"args.bad-value", "the argument '" + key + "' of " + tool.name + " must be " + want + ".", "",
          Json::object({{"argument", key}, {"expected", want}}), Json()};
}

}  // namespace

std::vector<std::string> build_argv(const ToolEntry& tool, const Json& arguments,
                                    const std::string& root, std::string& stdin_data,
                                    std::optional<ArgumentError>& error) {
  std::vector<std::string> argv = {tool.bin};
  if (tool.takes_root) argv.insert(argv.end(), {"--root", root});
  std::vector<std::pair<size_t, std::vector<std::string>>> operands;
  auto scalar = [&](const Json& v, std::string& out) {
    switch (v.type()) {
      case Json::Type::Str: out = v.str(); return true;
      case Json::Type::Int: out = std::to_string(v.as_int()); return true;
      case Json::Type::Uint: out = std::to_string(v.as_uint()); return true;
      case Json::Type::Raw: out = v.str(); return true;
      default: return false;
    }
  };
  for (auto& member : arguments.members()) {
    // Named, not bound: clang before 16 (the fuzz targets' compiler) lets no lambda capture a
    // structured binding.
    const std::string& key = member.first;
    const Json& value = member.second;
    auto p = std::find_if(tool.props.begin(), tool.props.end(), [&](const Prop& x) { return !x.name.empty() && x.name == key; });
    // "path" for an operand that takes several ("paths"): one of them, as a model often writes.
    if (p == tool.props.end())
      p = std::find_if(tool.props.begin(), tool.props.end(), [&](const Prop& x) {
        return x.kind == Prop::Kind::Operand && x.max > 1 && x.name == key + "s";
      });
    if (p != tool.props.end() && p->kind == Prop::Kind::Root) continue;  // decided by the caller
    if (p == tool.props.end()) {
      error = unknown_argument(tool, key, arguments);
      return {};
    }
    if (value.is_null()) continue;
    if (p->kind == Prop::Kind::Stdin) {
      if (value.type() == Json::Type::Str) {
        stdin_data = value.str();
      } else if (value.type() == Json::Type::Array || value.type() == Json::Type::Object) {
        stdin_data = value.dump();  // a JSON list of edits given as JSON, not as a string
      } else {
        error = bad_value(tool, key, "a string");
        return {};
      }
      argv.push_back("--stdin");
      continue;
    }
    if (p->kind == Prop::Kind::Operand) {
      std::vector<std::string> vals;
      std::string v;
      if (value.type() == Json::Type::Array && p->max > 1) {
        for (auto& item : value.items()) {
          if (item.type() != Json::Type::Str) {
            error = bad_value(tool, key, "a list of strings");
            return {};
          }
          vals.push_back(item.str());
        }
      } else if (value.type() == Json::Type::Str) {
        vals.push_back(value.str());
      } else {
        error = bad_value(tool, key, p->max > 1 ? "a string or a list of strings" : "a string");
        return {};
      }
      operands.emplace_back(p->operand, std::move(vals));
      continue;
    }
    std::string flag = "--" + p->flag;
    if (p->flag_kind == "bool") {
      if (value.type() != Json::Type::Bool) {
        error = bad_value(tool, key, "true or false");
        return {};
      }
      if (value.as_bool()) argv.push_back(flag);
      continue;
    }
    if (p->flag_kind == "list") {
      std::vector<Json> items = value.type() == Json::Type::Array ? value.items() : std::vector<Json>{value};
      for (auto& item : items) {
        std::string v;
        if (!scalar(item, v)) {
          error = bad_value(tool, key, "a list of strings");
          return {};
        }
        argv.push_back(flag + "=" + v);
      }
      continue;
    }
    std::string v;
    if (p->flag_kind == "nat" ? value.type() != Json::Type::Uint && value.type() != Json::Type::Int &&
                                    value.type() != Json::Type::Str
                              : value.type() != Json::Type::Str && value.type() != Json::Type::Int &&
                                    value.type() != Json::Type::Uint) {
      error = bad_value(tool, key, p->flag_kind == "nat" ? "a whole number" : "a string");
      return {};
    }
    scalar(value, v);
    argv.push_back(flag + "=" + v);  // the tool checks the value itself (a negative number, ...)
  }
  std::sort(operands.begin(), operands.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  argv.push_back("--");
  for (auto& [slot, vals] : operands) argv.insert(argv.end(), vals.begin(), vals.end());
  // exec would end an argument at its first NUL byte: the tool would read another value.
  for (const std::string& a : argv)
    if (a.find('\0') != std::string::npos) {
      error = ArgumentError{"args.bad-value", "an argument of " + tool.name + " holds a NUL byte, which a command line cannot carry.",
                            "", Json::object({{"nul", true}}), Json()};
      return {};
    }
  return argv;
}

std::optional<Json> argv_to_arguments(const ToolEntry& tool, const std::vector<std::string>& argv,
                                      const std::string& call_root, const std::string& server_root,
                                      const std::string& stdin_data) {
  // Read the argv with the tool's own parser (the contract's), from the tool's own table as
  // introspect gave it, then name each value by its property.
  using contract::FlagInfo;
  using contract::Kind;
  using contract::Role;
  auto kind_of = [](const std::string& k) {
    return k == "bool" ? Kind::Bool : k == "nat" ? Kind::Nat : k == "choice" ? Kind::Choice
         : k == "range" ? Kind::Range : k == "list" ? Kind::List : k == "path" ? Kind::Path : Kind::Text;
  };
  std::vector<FlagInfo> flags;
  std::vector<const Prop*> by_flag;
  for (auto& p : tool.props) {
    if (p.kind != Prop::Kind::Flag && p.kind != Prop::Kind::Stdin) continue;
    Kind k = p.kind == Prop::Kind::Stdin ? Kind::Bool : kind_of(p.flag_kind);
    // Values are taken as text here: the tool itself checked them when it made the repair.
    if (k == Kind::Nat || k == Kind::Choice || k == Kind::Range) k = Kind::Text;
    flags.push_back({p.flag, p.short_name, k, Role::None, k == Kind::Bool ? "" : "V", "", 0, 0, "",
                     "", "-", false, p.widens});
    by_flag.push_back(&p);
  }
  flags.push_back({"root", 0, Kind::Path, Role::Root, "DIR", "", 0, 0, "", "", "-", false, false});
  flags.push_back(
      {"format", 0, Kind::Text, Role::Format, "F", "", 0, 0, "", "", "-", false, false});
  std::vector<contract::OperandInfo> operands;
  for (auto& o : tool.operands)
    operands.push_back({o.name, Role::PathRead, o.min, o.max, "-", false, o.unless});
  contract::Parsed parsed = contract::parse_argv(argv, flags, operands);
  if (!parsed.errors.empty()) return std::nullopt;
  Json args = Json::object();
  for (auto& [idx, v] : parsed.values) {
    const std::string raw = argv[v.token].substr(v.token_prefix.size());
    if (idx >= by_flag.size()) {
      if (flags[idx].name != "root" || raw == call_root) continue;
      // A narrower root than the call's: as the root argument, relative to the server's.
      if (raw.rfind(server_root + "/", 0) != 0) return std::nullopt;
      args.set("root", raw.substr(server_root.size() + 1));
      continue;
    }
    const Prop& p = *by_flag[idx];
    if (p.name.empty()) return std::nullopt;  // a flag no argument names
    if (p.kind == Prop::Kind::Stdin) {
      args.set("stdin", stdin_data);
    } else if (p.flag_kind == "bool") {
      args.set(p.name, true);
    } else if (p.flag_kind == "nat") {
      args.set(p.name, nat_default(raw));
    } else if (p.flag_kind == "list") {
      Json list = args.get(p.name) ? *args.get(p.name) : Json::array();
      list.push(raw);
      args.set(p.name, std::move(list));
    } else {
      args.set(p.name, raw);
    }
  }
  for (auto& o : parsed.operands) {
    const OperandSpec& spec = tool.operands[o.spec];
    if (spec.prop.empty()) return std::nullopt;  // an operand no property carries
    if (spec.max > 1) {
      Json list = args.get(spec.prop) ? *args.get(spec.prop) : Json::array();
      list.push(o.value);
      args.set(spec.prop, std::move(list));
    } else {
      args.set(spec.prop, o.value);
    }
  }
  return args;
}

}  // namespace mcp
