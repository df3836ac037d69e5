// render.cpp — the tools' text renderings (see render.h).
#include "tools/render/render.h"

#include "text/diff.h"

namespace render {

namespace {

const Json* get(const Json& j, std::string_view key) {
  return j.type() == Json::Type::Object ? j.get(key) : nullptr;
}

uint64_t num(const Json& j, std::string_view key) {
  const Json* v = get(j, key);
  return v && (v->type() == Json::Type::Uint || v->type() == Json::Type::Int) ? v->as_uint() : 0;
}

bool flag(const Json& j, std::string_view key) {
  const Json* v = get(j, key);
  return v && v->type() == Json::Type::Bool && v->as_bool();
}

std::string str(const Json& j, std::string_view key) {
  const Json* v = get(j, key);
  return v ? bytes_of(*v) : std::string();
}

// A path or key shown on a line of its own: printable, so a newline in a name cannot forge
// another line.
std::string shown(const Json& j, std::string_view key) { return contract::printable(str(j, key)); }

// Text of a line of a file, as its bytes (a model reads them; nothing is altered but the ending).
void line(std::string& out, std::string_view text) {
  out += text;
  out += '\n';
}

// One writer's line of changes and its diff, unified.
void diff_of(const Json& data, std::string& out) {
  const Json* diff = get(data, "diff");
  if (diff && !diff->is_null()) text::render_diff(*diff, out);
  if (flag(data, "diff_truncated")) {
    const Json* cut = get(data, "cut");
    out += "[diff truncated" + (cut && !cut->is_null() ? " by " + bytes_of(*cut) : std::string()) +
           "; the change is whole: peek shows the rest]\n";
  }
}

std::string sha(const Json& data) {
  std::string s = str(data, "after_sha256");
  return s.empty() ? std::string() : ", sha256 " + s;
}

}  // namespace

std::string bytes_of(const Json& j) {
  if (j.type() == Json::Type::Object) {
    std::string b;
    if (const Json* v = j.get("b64")) contract::unbase64(v->str(), b);
    return b;
  }
  if (j.type() == Json::Type::Str || j.type() == Json::Type::Bytes || j.type() == Json::Type::Raw) return j.str();
  if (j.type() == Json::Type::Uint || j.type() == Json::Type::Int) return std::to_string(j.as_uint());
  return std::string();
}

void peek_line(std::string& out, uint64_t n, std::string_view witness, const std::string_view* text,
               uint64_t length) {
  out += std::to_string(n);
  if (!witness.empty()) {
    out += ' ';
    out += witness;
  }
  out += '\t';
  if (text)
    out += *text;
  else
    out += "[" + std::to_string(length) + " bytes, longer than the line cap]";
  out += '\n';
}

namespace {

// One file of peek: a header only for what is notable, then its lines (or its bytes).
void peek_one(const Json& d, std::string& out, const Drain& drain, bool several) {
  std::string notes;
  auto note = [&](const std::string& s) { notes += (notes.empty() ? "" : ", ") + s; };
  std::string eol = str(d, "eol");
  if (eol != "lf" && eol != "none" && !eol.empty()) note(eol);
  if (flag(d, "bom")) note("bom");
  if (flag(d, "binary")) note("binary");
  if (const Json* link = get(d, "link")) note("through a link to " + shown(*link, "target"));
  const Json* next = get(d, "next");
  if (next && !next->is_null()) {
    std::string at = get(*next, "line") ? "lines " + std::to_string(num(*next, "line")) + ":"
                                        : "bytes " + std::to_string(num(*next, "byte")) + ":";
    const Json* cut = get(d, "cut");
    note("size " + std::to_string(num(d, "size")) + " bytes; " +
         (cut && !cut->is_null() ? "cut by " + bytes_of(*cut) + "; " : "") + "more: " + at);
  }
  if (several) out += "==> " + shown(d, "path") + " <==\n";
  if (!notes.empty()) out += "[" + notes + "]\n";
  if (const Json* text = get(d, "text")) {
    std::string t = bytes_of(*text);
    out += t;
    if (several && !t.empty() && t.back() != '\n') out += '\n';
    return;
  }
  const Json* lines = get(d, "lines");
  if (!lines) return;
  if (lines->type() != Json::Type::Array) return lines->render(out, drain);  // peek's own stream
  for (const Json& l : lines->items()) {
    const Json* t = get(l, "text");
    std::string text = t && !t->is_null() ? bytes_of(*t) : std::string();
    std::string_view view(text);
    peek_line(out, num(l, "n"), str(l, "witness"), t && !t->is_null() ? &view : nullptr, num(l, "length"));
  }
}

}  // namespace

void peek(const Json& data, std::string& out, const Drain& drain) {
  const Json* files = get(data, "files");
  if (!files) return peek_one(data, out, drain, false);
  // As head(1) does, without its blank lines; a file that failed is on stderr only.
  for (const Json& f : files->items())
    if (!get(f, "error")) peek_one(f, out, drain, true);
}

void seek_file(std::string_view path, const Json& matches, std::string& out) {
  out += path;
  if (!matches.is_null()) out += ":" + bytes_of(matches);
}

void seek(const Json& rec, std::string& out, const Drain&) {
  std::string type = str(rec, "type");
  if (type == "end") return end_footer(rec, out);
  if (type != "match" && type != "context") return;
  const bool match = type == "match";
  out += str(rec, "path");
  out += match ? ':' : '-';
  out += std::to_string(num(rec, "line"));
  out += match ? ':' : '-';
  const Json* t = get(rec, "text");
  if (!t || t->is_null())
    out += "[" + std::to_string(num(rec, "length")) + " bytes, longer than the line cap]";
  else
    out += bytes_of(*t);
  out += '\n';
}

void list(const Json& rec, std::string& out, const Drain&) {
  std::string type = str(rec, "type");
  if (type == "end") return end_footer(rec, out);
  if (type != "entry" && type != "match") return;
  out += str(rec, "path");
  if (str(rec, "kind") == "directory") out += '/';
  if (const Json* t = get(rec, "target")) out += " -> " + bytes_of(*t);
  out += '\n';
}

void digest(const Json& rec, std::string& out, const Drain&) {
  std::string type = str(rec, "type");
  if (type == "end") return end_footer(rec, out);
  if (type != "digest" && type != "check") return;
  // As sha256sum writes it, a name with a backslash or a line break escaped behind a '\'.
  const std::string name = str(rec, "path");
  const bool check = type == "check";
  bool escape = name.find_first_of(check ? "\n\r" : "\\\n\r") != std::string::npos;
  if (escape) out += '\\';
  if (!check) out += str(rec, "hex") + "  ";
  for (char c : name) {
    if (escape && c == '\\')
      out += "\\\\";
    else if (escape && c == '\n')
      out += "\\n";
    else if (escape && c == '\r')
      out += "\\r";
    else
      out += c;
  }
  if (check) {
    std::string verdict = str(rec, "verdict");
    out += verdict == "ok" ? ": OK" : verdict == "mismatch" ? ": FAILED" : ": FAILED open or read";
  }
  out += '\n';
}

void jsonq(const Json& data, std::string& out, const Drain&) {
  const Json* cut = get(data, "cut");
  const std::string cut_line = cut && !cut->is_null() ? "[truncated by " + bytes_of(*cut) + ": " +
                                                            std::to_string(num(data, "value_bytes")) + " bytes]\n"
                                                      : "";
  if (const Json* keys = get(data, "keys")) {
    for (const Json& k : keys->items()) {
      contract::JsonWriter(out).bytes(bytes_of(k));  // quoted as jq prints keys: one per line
      out += '\n';
    }
    out += cut_line;
    return;
  }
  if (!cut_line.empty() && !get(data, "length") && !get(data, "exists")) {
    out += cut_line;
    return;
  }
  const Json *v = get(data, "value"), *n = get(data, "length"), *e = get(data, "exists");
  // The value as the document wrote it (the tool's own answer holds its bytes); read back from
  // an answer (tack-mcp's content), as JSON again.
  out += v   ? (v->type() == Json::Type::Raw ? v->str() : v->dump())
         : n ? std::to_string(n->as_uint())
         : e ? (e->as_bool() ? "true" : "false")
             : str(data, "kind");
  out += '\n';
}

void tally(const Json& data, std::string& out, const Drain&) {
  if (const Json* top = get(data, "top"))
    for (const Json& t : top->items()) {
      std::string n = std::to_string(num(t, "count"));
      out.append(n.size() < 7 ? 7 - n.size() : 0, ' ').append(n).append(1, ' ');
      out.append(str(t, "key")).append(1, '\n');  // the bytes, as uniq -c writes them
    }
  if (const Json* u = get(data, "unmatched"))
    out += "[" + std::to_string(num(data, "total")) + " counted, " + std::to_string(num(data, "skipped")) +
           " skipped, " + std::to_string(u->as_uint()) + " did not match]\n";
  if (flag(data, "truncated")) {
    const Json* top = get(data, "top");
    const Json* next = get(data, "next");
    const Json* cut = get(data, "cut");
    uint64_t upto = next && !next->is_null() ? num(*next, "skip") : top ? top->items().size() : 0;
    out += "[truncated" + (cut && !cut->is_null() ? " by " + bytes_of(*cut) : std::string()) + ": " +
           std::to_string(num(data, "distinct") - upto) + " more distinct keys" +
           (next && !next->is_null() ? "; next: " + next->dump() : std::string()) + "]\n";
  }
}

void skills(const Json& data, std::string& out, const Drain&) {
  const Json* next = get(data, "next");
  const bool more = next && !next->is_null();
  if (const Json* body = get(data, "body")) {
    out += bytes_of(*body);
    if (more)
      out += "[truncated by max-bytes; the rest: peek lines " + std::to_string(num(*next, "line")) + ": of " +
             shown(data, "path") + "]\n";
    return;
  }
  if (const Json* s = get(data, "skills"))
    for (auto& k : s->items()) out += shown(k, "name") + "\t" + shown(k, "path") + "\t" + shown(k, "description") + "\n";
  if (const Json* inv = get(data, "invalid"))
    for (auto& i : inv->items()) out += "invalid\t" + shown(i, "path") + "\t" + shown(i, "cause") + "\n";
  if (more) out += "[truncated by max-bytes; next: " + next->dump() + "]\n";
}

void run(const Json& data, std::string& out, const Drain&) {
  if (const Json* names = get(data, "programs")) {
    for (const Json& n : names->items()) line(out, contract::printable(bytes_of(n)));
    return;
  }
  // The streams as the program wrote them (in --format text they went through as they came and
  // are empty here); stderr under a line of its own; the status only when it is not a plain 0.
  // A program run killed (deadline, output cap) is an error of the answer, said there.
  const Json* code = get(data, "exit_code");
  std::string status;
  if (!flag(data, "killed") && (!code || code->is_null() || code->as_uint() != 0))
    status = code && !code->is_null() ? "exit " + std::to_string(code->as_uint()) : "signal " + str(data, "signal");
  if (uint64_t k = num(data, "processes_killed"); k && !status.empty()) status += ", " + std::to_string(k) + " processes ended";
  for (std::string_view s : {"stdout", "stderr"}) {
    const Json* st = get(data, s);
    if (!st) continue;
    std::string text = str(*st, "text");
    if (text.empty()) continue;
    if (s == "stderr") out += "[stderr]\n";
    out += text;
    if (text.back() != '\n') out += "\n[no newline at end]\n";
    if (flag(*st, "truncated"))
      out += "[" + std::string(s) + " cut at " + std::to_string(text.size()) + " of " + std::to_string(num(*st, "bytes")) +
             " bytes]\n";
  }
  if (!status.empty()) out += "[" + shown(data, "program") + ": " + status + "]\n";
}

void write(const Json& data, std::string& out, const Drain&) {
  out += shown(data, "path") + ": ";
  bool changed = flag(data, "changed");
  out += !changed ? "unchanged" : flag(data, "created") ? "created" : "replaced";
  out += ", " + std::to_string(num(data, "bytes")) + " bytes, " + str(data, "eol") +
         (flag(data, "bom") ? ", bom" : "") + sha(data) + "\n";
  if (const Json* dirs = get(data, "parents_created"))
    for (const Json& d : dirs->items()) out += "made directory " + contract::printable(bytes_of(d)) + "\n";
  diff_of(data, out);
}

void replace(const Json& data, std::string& out, const Drain&) {
  auto one = [&](const Json& f) {
    out += shown(f, "path") + ": ";
    if (flag(f, "already_applied"))
      out += "already applied, unchanged";
    else
      out += std::to_string(num(f, "replacements")) + " replacement(s)";
    if (get(f, "written") && flag(f, "changed") && !flag(f, "written")) out += " (not written)";
    out += sha(f) + "\n";
    diff_of(f, out);
  };
  if (const Json* files = get(data, "files")) {
    for (const Json& f : files->items()) one(f);
  } else {
    one(data);
  }
}

void edit(const Json& data, std::string& out, const Drain&) {
  out += shown(data, "path");
  out += flag(data, "changed") ? ": " : ": unchanged, ";
  const uint64_t n = num(data, "edits");
  out += std::to_string(n) + (n == 1 ? " edit" : " edits") + sha(data) + "\n";
  diff_of(data, out);
}

void move(const Json& data, std::string& out, const Drain&) {
  auto one = [&](const Json& m) {
    std::string from = shown(m, "from"), to = shown(m, "to");
    if (const Json* dirs = get(m, "parents_created"))
      for (const Json& d : dirs->items()) out += "made directory " + contract::printable(bytes_of(d)) + "\n";
    if (!flag(m, "changed"))
      out += from + " -> " + to + ": already moved\n";
    else if (get(m, "written") && !flag(m, "written"))
      out += "would remove " + from + " (tombstone " + to + ")\n";
    else if (flag(m, "removed"))
      out += "removed " + from + " (tombstone " + to + ")\n";
    else
      out += from + " -> " + to + "\n";
  };
  if (const Json* files = get(data, "files")) {
    for (const Json& m : files->items()) one(m);
  } else {
    one(data);
  }
}

namespace {

// The kind of change a tool makes unless its answer says otherwise: a file's content replaced
// (write, replace, edit), a name renamed (move). A line shows a change's kind only where it
// differs, so "replace a.txt" is not "replace replace a.txt"; every kind of an undo is shown.
bool plain_kind(std::string_view tool, std::string_view kind) {
  if (kind == "replace") return tool == "write" || tool == "replace" || tool == "edit";
  return kind == "rename" && tool == "move";
}

}  // namespace

void undo(const Json& data, std::string& out, const Drain&) {
  if (const Json* entries = get(data, "entries")) {
    for (const Json& e : entries->items()) {
      out += std::to_string(num(e, "id")) + " ";
      if (str(e, "state") == "damaged") {
        out += "damaged: " + str(e, "message") + "\n";
        continue;
      }
      const std::string tool = str(e, "tool");
      out += tool;
      if (str(e, "state") == "pending") out += " (pending)";
      if (const Json* files = get(e, "files"))
        for (const Json& f : files->items()) {
          const std::string kind = str(f, "kind");
          out += "  ";
          if (!plain_kind(tool, kind)) out += kind + " ";
          out += shown(f, "path");
          if (get(f, "to")) out += " -> " + shown(f, "to");
          out += " +" + std::to_string(num(f, "added")) + " -" + std::to_string(num(f, "removed"));
        }
      out += "\n";
    }
    return;
  }
  out += "entry " + std::to_string(num(data, "id")) + " (" + str(data, "tool") + ") taken back:\n";
  if (const Json* files = get(data, "files"))
    for (const Json& f : files->items()) {
      if (str(f, "kind") == "replace") {
        out += "  " + shown(f, "path") + " restored" + sha(f) + "\n";
        const Json* diff = get(f, "diff");
        if (diff && !diff->is_null()) text::render_diff(*diff, out);
      } else {
        out += "  " + shown(f, "from") + " -> " + shown(f, "to") + "\n";
      }
    }
  if (const Json* j = get(data, "journal"); j && !j->is_null()) out += "recorded as entry " + std::to_string(num(*j, "id")) + "\n";
}

void end_footer(const Json& end, std::string& out) {
  std::string notes;
  auto note = [&](const std::string& s) { notes += (notes.empty() ? "" : "; ") + s; };
  if (flag(end, "truncated")) {
    std::string cut = "truncated";
    if (const Json* by = get(end, "cut"); by && !by->is_null()) cut += " by " + bytes_of(*by);
    note(cut);
    const Json* next = get(end, "next");
    if (next && !next->is_null()) note("next: " + next->dump());
  }
  if (const Json* skipped = get(end, "skipped")) {
    std::string s;
    for (auto& [k, v] : skipped->members())
      if ((v.type() == Json::Type::Uint || v.type() == Json::Type::Int) && v.as_uint())
        s += (s.empty() ? "skipped: " : ", ") + std::to_string(v.as_uint()) + " " + (k == "glob" ? "left out by glob" : k);
    if (!s.empty()) note(s);
  }
  if (!notes.empty()) out += "[" + notes + "]\n";
}

contract::TextRenderer for_tool(std::string_view tool) {
  struct Row {
    std::string_view name;
    contract::TextRenderer fn;
  };
  static constexpr Row kRows[] = {
      {"peek", peek},   {"seek", seek},       {"list", list},       {"digest", digest},
      {"jsonq", jsonq}, {"tally", tally},     {"skills", skills},   {"run", run},
      {"write", write}, {"replace", replace}, {"edit", edit},       {"move", move},
      {"undo", undo},
  };
  for (const Row& r : kRows)
    if (r.name == tool) return r.fn;
  return nullptr;
}

}  // namespace render
