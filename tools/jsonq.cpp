// jsonq.cpp — one RFC 6901 pointer into one JSON document: the value as the document wrote it,
// its keys, its length, its kind, or whether it exists; jq for the question an agent asks most.
// Unlike jq it takes a pointer, not a program; numbers and strings come back byte for byte (no
// rounding of 1e400 or of 64-bit ids, no re-escaping), with the offset and line where the value
// starts; a path through a key its object repeats is refused, where jq takes the last copy; a
// broken document is refused whole, with the line and column where it stops being JSON; a miss
// names the longest prefix that resolved, and the escaped pointer when a key holds '/' or '~'.
// simdjson On-Demand reads it all; --max-bytes bounds memory.
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <memory>
#include <new>
#include <set>

#include "os/link_target.h"
#include "os/open.h"
#include "os/read_whole.h"
#include "runner/main.h"
#include "text/json_check.h"
#include "text/pointer.h"
#include "tools/jsonq.schema.h"

namespace {

using contract::Json;
using text::JsonKind;
namespace od = simdjson::ondemand;

struct Args {
  std::string pointer;
  std::optional<std::string> file;
  bool keys = false, length = false, type = false, exists = false;
  uint64_t max_bytes = 0;
};

constexpr uint64_t kCeiling = uint64_t{1} << 30;  // 1 GiB: simdjson's index is 32-bit anyway
constexpr size_t kMaxDepth = 1024;                // simdjson's default depth, and jq's is 256

using contract::Kind;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "pointer", .short_name = 'p', .kind = Kind::Text, .bind = &Args::pointer,
     .value_name = "P",
     .help = "an RFC 6901 JSON pointer: empty (the default) for the whole document, /a/0/b for "
             "member a, element 0, member b; write ~ as ~0 and / as ~1 inside a name"},
    {.name = "keys", .kind = Kind::Bool, .bind = &Args::keys, .excludes = "length type exists",
     .help = "the keys of the object at P, in document order, each once (repeated: those "
             "written twice or more)"},
    {.name = "length", .kind = Kind::Bool, .bind = &Args::length, .excludes = "type exists",
     .help = "the number of elements of the array, or of distinct keys of the object, at P"},
    {.name = "type", .kind = Kind::Bool, .bind = &Args::type, .excludes = "exists",
     .help = "only the kind of the value at P: null, boolean, integer, float, string, array, "
             "object"},
    {.name = "exists", .kind = Kind::Bool, .bind = &Args::exists,
     .help = "whether P names a value: exists true or false, exit 0 either way"},
    {.name = "max-bytes", .kind = Kind::Nat, .bind = &Args::max_bytes, .value_name = "N",
     .fallback = "67108864", .ceiling = kCeiling, .floor = 1,
     .help = "the largest document read; past it limit.input-too-large and nothing is parsed. "
             "Memory: at most about 6 bytes per input byte (the document, and simdjson's index "
             "of up to 4 bytes per byte); typical documents take under 2",
     .limit = true},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "FILE", .role = contract::Role::PathRead, .min = 0, .max = 1, .bind = &Args::file,
     .help = "the JSON document; standard input when absent or -", .dash_is_stdin = true},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"args.missing-operand", Repairable::Never, "no FILE was given and stdin is a terminal"},
    {"io.is-a-directory"},
    {"io.read-failed"},
    {"limit.input-too-large", Repairable::Sometimes},
    {"parse.json", Repairable::Never, "the input is not JSON (RFC 8259) or nests past 1024"},
    {"query.bad-pointer", Repairable::Sometimes,
     "a malformed pointer, or '-' (the element after the last) on an array"},
    {"query.no-such-path", Repairable::Sometimes,
     "the pointer names nothing (retry: the pointer with '/' or '~' in a key escaped)"},
    {"query.duplicate-key", Repairable::Never,
     "the pointer runs through or ends at a key its object writes more than once"},
    {"query.wrong-kind", Repairable::Never, "--keys on a non-object, --length on a scalar"},
    {"query.unsupported-syntax", Repairable::Sometimes, "a jq filter where a pointer is wanted"},
};

void render_text(const Json& data, std::string& out, const contract::Drain&);

constexpr contract::Example kExamples[] = {
    {"jsonq --pointer /server/port data.json",
     "the value exactly as the document wrote it, its kind, byte offset and line"},
    {"jsonq --keys --pointer /regions data.json",
     "the keys of that object in document order (a key with / is ~1 in a pointer)"},
};

const contract::Tool kTool{
    .name = "jsonq",
    .summary = "Read one value of a JSON document by RFC 6901 pointer: the value as the document "
               "wrote it, its keys, its length, its kind, or whether it exists, and where it "
               "starts.",
    .differs = "Unlike jq it takes a pointer, not a filter; returns numbers and strings byte for "
               "byte (no rounding, no re-escaping); refuses a path through a key its object "
               "repeats (query.duplicate-key), where jq takes the last copy; refuses a broken "
               "document whole, naming the line and column; names the longest prefix of a "
               "pointer that resolved. A leading UTF-8 BOM is skipped; a lone surrogate escape "
               "is refused.",
    .usage = "jsonq [--root DIR] [--pointer P] [--keys | --length | --type | --exists] "
             "[--max-bytes N] [--format json|text] [FILE | -]",
    .output = contract::Output::Document,
    .schema = "jsonq.v1",
    .data_schema = tool_schema::kData,
    .effects = contract::kReadFiles | contract::kReadStdin,
    .text = render_text,
    .rules = kRules,
    .key_flags = "pointer keys",
    .examples = kExamples,
};

static_assert(contract::valid<Args>(kFlags, kOperands));

// Standard input: no FILE, or a lone "-" operand. The lexical check turns "./-" into "-" too,
// so the argv decides: a "-" that is not the value of a flag, or one after "--".
bool from_stdin(const Args& a, const contract::Context& ctx) {
  if (!a.file) return true;
  if (*a.file != "-") return false;
  const std::vector<std::string>& v = ctx.argv();
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] == "--") return std::find(v.begin() + i, v.end(), "-") != v.end();
    if (v[i] != "-") continue;
    auto takes_value = [&](const contract::FlagInfo& f) {
      return f.kind != contract::Kind::Bool && (v[i - 1] == "--" + std::string(f.name) ||
                                                v[i - 1] == std::string{'-', f.short_name});
    };
    if (std::none_of(ctx.flags_.begin(), ctx.flags_.end(), takes_value)) return true;
  }
  return false;
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  text::ParsedPointer p = text::parse_pointer(a.pointer);
  if (p.problem != text::PointerProblem::None) {
    bool jq = p.problem == text::PointerProblem::JqSyntax;
    contract::Error e = contract::make_error(
        jq ? "query.unsupported-syntax" : "query.bad-pointer",
        "--pointer '" + contract::printable(a.pointer) + "' is not a JSON pointer: " + p.why + ".",
        Json::object({{"pointer", Json::bytes(a.pointer)}, {"offset", p.at}}));
    if (p.suggestion) {
      e.detail.set("suggested", Json::bytes(*p.suggestion));
      e.hint = p.suggestion->empty()
                   ? "the whole document is the empty pointer: --pointer ''"
                   : "write it as --pointer '" + contract::printable(*p.suggestion) + "'";
      e.repair = contract::Repair::retry(ctx.argv_with_flag("pointer", *p.suggestion));
    } else {
      e.hint = jq ? "a pointer names one value (/a/0/b): no iteration, pipe, function or negative "
                    "index; --keys and --length show what is there"
                  : "a pointer is empty or starts with '/': /a/0/b";
    }
    errs.push_back(std::move(e));
  }
  // Reading a terminal would wait for a person who is not there.
  if (from_stdin(a, ctx) && isatty(STDIN_FILENO)) {
    contract::Error e = contract::make_error(
        "args.missing-operand", "no FILE was given and standard input is a terminal.",
        Json::object({{"operand", "FILE"}}));
    e.hint = "name the document, or pipe it in: jsonq --pointer /a FILE";
    errs.push_back(std::move(e));
  }
}

// Past --max-bytes (size known, or past the ceiling), or past what memory allows (oom).
contract::Error too_large(const Args& a, const contract::Context& ctx, std::string_view shown,
                          std::optional<uint64_t> size, bool oom = false) {
  std::string said = size ? std::to_string(*size) + " bytes" : "more than 1 GiB";
  said += oom ? ", more than memory allows"
              : ", more than --max-bytes " + std::to_string(a.max_bytes);
  contract::Error e = contract::make_error(
      "limit.input-too-large",
      "'" + contract::printable(shown) + "' is " + said + "; nothing was parsed.",
      Json::object({{"path", Json::bytes(shown)}, {"size", size ? Json(*size) : Json()},
                    {"max_bytes", a.max_bytes}, {"ceiling", kCeiling}}));
  if (oom) {
    e.detail.set("reason", "out-of-memory");
  } else if (size) {
    e.hint = "retry with --max-bytes " + std::to_string(*size) + " (about " +
             std::to_string(*size * 6 / (1024 * 1024) + 1) + " MiB of memory).";
    e.repair = contract::Repair::retry(ctx.argv_with_flag("max-bytes", std::to_string(*size)));
  } else {
    e.repair = contract::Repair::none("the input is larger than the ceiling of --max-bytes");
  }
  return e;
}

// All of fd, at most --max-bytes of it, or the error that says why not.
std::optional<contract::Error> read_all(int fd, const struct stat* st, const Args& a,
                                        const contract::Context& ctx, std::string_view shown,
                                        os::PaddedBuffer& buf) {
  const os::WholeRead r = os::read_whole(fd, st, a.max_bytes, kCeiling, buf);
  switch (r.kind) {
    case os::WholeRead::Kind::Done:
      return std::nullopt;
    case os::WholeRead::Kind::Failed:
      return os::errno_error(r.error, shown, "read");
    case os::WholeRead::Kind::TooLarge:
      return too_large(a, ctx, shown, r.size);
    case os::WholeRead::Kind::NoMemory:
      break;
  }
  return too_large(a, ctx, shown, r.size, true);
}

contract::Error parse_error(std::string_view shown, std::string_view doc,
                            const text::JsonSyntaxError& e) {
  text::LineColumn lc = text::line_column(doc, e.offset);
  std::string found = text::shown_byte(doc, e.offset);
  std::string what = text::describe_json_error(doc, e, kMaxDepth);
  Json detail = Json::object(
      {{"path", Json::bytes(shown)}, {"offset", e.offset}, {"line", lc.line},
       {"column", lc.column}, {"reason", text::fault_name(e.fault)},
       {"expected", e.expected.empty() ? Json() : Json(e.expected)},
       {"found", e.offset < doc.size() ? Json(found) : Json()}});
  if (e.fault == text::JsonFault::TooDeep) detail.set("max_depth", kMaxDepth);
  return contract::make_error(
      "parse.json",
      "'" + contract::printable(shown) + "' is not JSON: " + what + ", at line " +
          std::to_string(lc.line) + ", column " + std::to_string(lc.column) + " (byte " +
          std::to_string(e.offset) + ").",
      std::move(detail));
}

JsonKind kind_of(od::json_type t, std::string_view token) {
  if (t == od::json_type::array) return JsonKind::Array;
  if (t == od::json_type::object) return JsonKind::Object;
  return text::scalar_kind(text::trim_json_space(token));
}

// "the array at '/a'", "the top-level object", "'/a/b'", "the document": for messages.
std::string at(std::string_view what, std::string_view resolved) {
  if (resolved.empty()) return what.empty() ? "the document" : "the top-level " + std::string(what);
  std::string quoted = "'" + contract::printable(resolved) + "'";
  return what.empty() ? quoted : "the " + std::string(what) + " at " + quoted;
}

std::string a_kind(JsonKind kind) {
  bool vowel = kind == JsonKind::Array || kind == JsonKind::Object || kind == JsonKind::Integer;
  return (vowel ? "an " : "a ") + std::string(text::kind_name(kind));
}

// simdjson refusing, on the second pass, a document it accepted on the first.
contract::Error reread_failed() {
  return contract::make_error("parse.json", "the document could not be read a second time.",
                              Json::object({{"reason", "internal"}}));
}

Json internal(contract::Context& ctx) {
  ctx.error(reread_failed());
  return nullptr;
}

enum class Why { NoKey, PastEnd, NotIndex, NoMembers, Dash };

constexpr size_t kMaxCopies = 16;     // copies of a repeated key named, with their lines
constexpr size_t kMaxAlternates = 4;  // keys a respelled pointer would name, tried on a miss

// A key that the pointer spells from token `level` on with '/' or '~' left unescaped.
struct Alternate {
  std::string key;
  std::string prefix;   // the pointer to that key, escaped
  std::string pointer;  // the whole pointer respelled: prefix, then the tokens after the key
};

// One walk of a pointer through the document. Errors wait in `failed` until the walk is done:
// a key the path repeats, found only after its first copy was followed, outranks whatever
// that copy led to.
struct Query {
  const Args& a;
  std::string_view doc;
  std::string_view pointer;  // a.pointer, or a respelling being tried
  const std::vector<text::PointerToken>& tokens;
  bool probe = false;        // only whether the pointer names one value: no answer, no words
  std::string_view raw_out;  // the raw text of an array or object to return, compacted later
  std::optional<contract::Error> failed;
  bool broken = false;  // simdjson failed on the second pass: stop everything
  std::vector<Alternate> alternates;

  Query(const Args& a, std::string_view doc, std::string_view pointer,
        const std::vector<text::PointerToken>& tokens, bool probe = false)
      : a(a), doc(doc), pointer(pointer), tokens(tokens), probe(probe) {}

  Json stop() {
    broken = true;
    failed = reread_failed();
    return nullptr;
  }

  Json fail(std::string_view rule, std::string said, Json detail, std::string hint) {
    if (probe) {
      failed = contract::make_error(rule, "");
      return nullptr;
    }
    contract::Error e =
        contract::make_error(rule, "--pointer '" + contract::printable(pointer) + "' " + said + ".",
                             Json::object({{"pointer", Json::bytes(pointer)}}));
    for (auto& [k, v] : detail.members()) e.detail.set(k, v);
    e.hint = std::move(hint);
    failed = std::move(e);
    return nullptr;
  }

  // Token i names nothing in the value of kind `kind` (an array of n elements): no-such-path
  // with the longest prefix that resolved, or exists:false. "-" on an array is a bad pointer.
  Json miss(size_t i, JsonKind kind, Why why, uint64_t n = 0) {
    if (a.exists && !probe && why != Why::Dash)
      return Json::object(
          {{"pointer", Json::bytes(pointer)}, {"kind", nullptr}, {"exists", false}});
    const std::string& name = tokens[i].name;
    std::string resolved(pointer.substr(0, tokens[i].slash));
    std::string kind_word(text::kind_name(kind)), shown = contract::printable(name);
    auto spell = [](const std::string& p) { return "--pointer '" + contract::printable(p) + "'"; };
    std::string last = n ? "its last element is " + spell(resolved + "/" + std::to_string(n - 1))
                         : "the array is empty";
    std::string said = "names nothing: ", hint = "see what is there with " + spell(resolved);
    switch (why) {
      case Why::NoKey:
        said += at("object", resolved) + " has no key '" + shown + "'";
        hint = "list its keys with --keys " + spell(resolved);
        break;
      case Why::PastEnd:
        said += at("array", resolved) + " has " + std::to_string(n) + " elements, so index " +
                shown + " is past its end";
        hint = last;
        break;
      case Why::NotIndex:
        said += at("array", resolved) + " is indexed by 0, 1, 2…, and '" + shown + "' is not one";
        if (auto c = text::canonical_index(name))
          hint = "an index has no leading zeros: " + spell(resolved + "/" + *c);
        else if (name.starts_with('-'))
          hint = "a pointer does not count from the end; " + last;
        break;
      case Why::NoMembers:
        said += at("", resolved) + " is " + a_kind(kind) + ", which has no members";
        break;
      case Why::Dash:
        return fail("query.bad-pointer",
                    "uses '-', the place after the last element of " + at("array", resolved) +
                        ", where there is no value to read",
                    Json::object({{"resolved", Json::bytes(resolved)}, {"length", n}}), last);
    }
    Json detail = Json::object({{"resolved", Json::bytes(resolved)},
                                {"missing", Json::bytes(name)}, {"kind", kind_word}});
    if (kind == JsonKind::Array) detail.set("length", n);
    return fail("query.no-such-path", said, std::move(detail), hint);
  }

  // Token i is a key its object writes `count` times, the first at the offsets `copies`.
  Json repeated(size_t i, const std::vector<size_t>& copies, uint64_t count) {
    const std::string& name = tokens[i].name;
    std::string resolved(pointer.substr(0, tokens[i].slash));
    std::vector<text::LineColumn> lcs =
        probe ? std::vector<text::LineColumn>{} : text::line_columns(doc, copies);
    Json where = Json::array();
    std::string lines;
    for (size_t c = 0; c < lcs.size(); ++c) {
      where.push(Json::object({{"offset", copies[c]}, {"line", lcs[c].line}}));
      lines += (c ? ", " : "") + std::to_string(lcs[c].line);
    }
    if (count > copies.size()) lines += ", …";
    fail("query.duplicate-key",
         "runs through the key '" + contract::printable(name) + "', which " +
             at("object", resolved) + " writes " + std::to_string(count) + " times (lines " +
             lines + "), so the document does not say which value it means",
         Json::object({{"resolved", Json::bytes(resolved)},
                       {"key", Json::bytes(name)},
                       {"count", count},
                       {"copies", std::move(where)}}),
         "parsers differ on a repeated key (jq, Python and JavaScript keep the last copy, others "
         "the first, strict ones refuse): keep one copy, then ask again");
    if (!probe)
      failed->repair = contract::Repair::none("which copy the document means is a judgement");
    return nullptr;
  }

  Json run(od::document& d) {
    bool scalar_root = false;
    if (d.is_scalar().get(scalar_root)) return stop();
    if (scalar_root) {
      std::string_view tok = d.raw_json_token().value_unsafe();
      JsonKind kind = kind_of(d.type().value_unsafe(), tok);
      return tokens.empty() ? answer(kind, tok, nullptr) : miss(0, kind, Why::NoMembers);
    }
    od::value v;
    if (d.get_value().get(v)) return stop();
    return walk(v, 0);
  }

  // Tokens i.. inside v. An object on the path is read to its end: a key it repeats is
  // refused, not taken first or last (on-demand skips the values beside the path unread).
  Json walk(od::value v, size_t i) {
    od::json_type t;
    if (v.type().get(t)) return stop();
    std::string_view tok = v.raw_json_token();
    if (i == tokens.size()) return answer(kind_of(t, tok), tok, &v);
    const std::string& name = tokens[i].name;
    if (t == od::json_type::object) {
      od::object obj;
      if (v.get_object().get(obj)) return stop();
      Json out;
      std::vector<size_t> copies;  // the offset of each copy's opening quote, up to kMaxCopies
      uint64_t count = 0;
      std::deque<std::string> store;
      for (auto f : obj) {
        od::field field;
        if (std::move(f).get(field)) return stop();
        size_t at = static_cast<size_t>(field.key().raw() - doc.data());
        if (!store.empty()) store.clear();
        std::string_view key = text::json_key(doc, at, store);
        if (key != name) {
          // A key the pointer spells unescaped is longer than the token and holds '/' or '~'.
          if (!probe && alternates.size() < kMaxAlternates && key.size() > name.size() &&
              key.find_first_of("/~") != std::string_view::npos)
            if (auto p = text::respell_key(pointer, tokens, i, key))
              alternates.push_back(
                  {std::string(key),
                   std::string(pointer.substr(0, tokens[i].slash)) + "/" + text::escape_token(key),
                   std::move(*p)});
          continue;
        }
        if (count++ < kMaxCopies) copies.push_back(at - 1);
        if (count == 1) {
          out = walk(field.value(), i + 1);
          if (broken) return nullptr;
        }
      }
      if (count == 0) return miss(i, JsonKind::Object, Why::NoKey);
      if (count > 1) return repeated(i, copies, count);
      return out;
    }
    if (t == od::json_type::array) {
      od::array arr;
      if (v.get_array().get(arr)) return stop();
      std::optional<uint64_t> index = text::array_index(name);
      uint64_t n = 0;
      for (auto el : arr) {
        if (index && n == *index) {
          od::value x;
          if (std::move(el).get(x)) return stop();
          return walk(x, i + 1);
        }
        ++n;
      }
      return miss(i, JsonKind::Array,
                  name == "-" ? Why::Dash
                  : index     ? Why::PastEnd
                              : Why::NotIndex,
                  n);
    }
    return miss(i, kind_of(t, tok), Why::NoMembers);
  }

  // The answer about the value at the pointer: `v` is null for a scalar document.
  Json answer(JsonKind kind, std::string_view tok, od::value* v) {
    if (probe) return true;
    Json out = Json::object({{"pointer", Json::bytes(pointer)}, {"kind", text::kind_name(kind)}});
    const size_t offset = static_cast<size_t>(tok.data() - doc.data());
    text::LineColumn lc = text::line_column(doc, offset);
    out.set("offset", offset);
    out.set("line", lc.line);
    out.set("column", lc.column);
    const bool container = kind == JsonKind::Array || kind == JsonKind::Object;
    if (a.exists) {
      out.set("exists", true);
    } else if ((a.keys && kind != JsonKind::Object) || (a.length && !container)) {
      return fail("query.wrong-kind",
                  "names " + a_kind(kind) + ", and " +
                      (a.keys ? "--keys needs an object" : "--length needs an array or an object"),
                  Json::object({{"kind", text::kind_name(kind)},
                                {"expected", a.keys ? Json::array({"object"})
                                                    : Json::array({"array", "object"})}}),
                  kind == JsonKind::Array ? "--length counts an array's elements"
                                          : "read the value itself without --keys or --length");
    } else if (a.type) {
    } else if (!container) {
      out.set("value", Json::raw(text::trim_json_space(tok)));
    } else if (kind == JsonKind::Array && a.length) {
      od::array arr;
      size_t n = 0;
      if (v->get_array().get(arr) || arr.count_elements().get(n)) return stop();
      out.set("length", n);
    } else if (a.keys || a.length) {
      od::object obj;
      if (v->get_object().get(obj)) return stop();
      std::deque<std::string> store;
      std::set<std::string_view> seen, twice;  // trees, not hashes: no input makes them quadratic
      Json keys = Json::array(), repeats = Json::array();
      for (auto f : obj) {
        od::field field;
        if (std::move(f).get(field)) return stop();
        std::string_view k = text::json_key(doc, field.key().raw() - doc.data(), store);
        if (seen.insert(k).second) {
          if (a.keys) keys.push(Json::bytes(k));
        } else if (twice.insert(k).second) {
          repeats.push(Json::bytes(k));
        }
      }
      out.set(a.keys ? "keys" : "length", a.keys ? std::move(keys) : Json(seen.size()));
      if (!twice.empty()) out.set("repeated", std::move(repeats));
    } else {
      od::array arr;
      od::object obj;
      if (kind == JsonKind::Array ? v->get_array().get(arr) || arr.raw_json().get(raw_out)
                                  : v->get_object().get(obj) || obj.raw_json().get(raw_out))
        return stop();
    }
    return out;
  }
};

// A miss where a key on the path is what the pointer spells with a '/' or '~' unescaped: the
// hint names the escaped pointer, and a retry offers it when it names one value.
void respell(Query& q, od::document& d, const contract::Context& ctx) {
  std::vector<const Alternate*> good;
  for (const Alternate& alt : q.alternates) {
    text::ParsedPointer p = text::parse_pointer(alt.pointer);
    d.rewind();
    Query probe(q.a, q.doc, alt.pointer, p.tokens, true);
    probe.run(d);
    if (probe.broken) return;
    if (!probe.failed && std::none_of(good.begin(), good.end(), [&](const Alternate* g) {
          return g->pointer == alt.pointer;
        }))
      good.push_back(&alt);
  }
  contract::Error& e = *q.failed;
  const Alternate& alt = good.empty() ? q.alternates.front() : *good.front();
  std::string spell =
      "--pointer '" + contract::printable(good.empty() ? alt.prefix : alt.pointer) + "'";
  e.hint = "the key '" + contract::printable(alt.key) +
           "' is there, and inside a key a pointer writes / as ~1 and ~ as ~0: " + spell;
  if (good.empty()) {
    *e.hint += ", though what follows it names nothing";
    return;
  }
  e.detail.set("suggested", Json::bytes(alt.pointer));
  if (good.size() == 1) {
    e.repair = contract::Repair::retry(ctx.argv_with_flag("pointer", alt.pointer));
    return;
  }
  e.repair.kind = contract::Repair::Kind::Choose;
  for (const Alternate* g : good)
    e.repair.argvs.push_back(ctx.argv_with_flag("pointer", g->pointer));
}

Json run(const Args& a, contract::Context& ctx) {
  const bool stdin_doc = from_stdin(a, ctx);
  const std::string shown = stdin_doc ? "-" : *a.file;
  os::PaddedBuffer buf(simdjson::SIMDJSON_PADDING);
  std::optional<contract::Error> failed;
  std::optional<std::string> link;  // without --root: where a link on the path led
  struct stat st {};
  if (stdin_doc) {
    failed = read_all(STDIN_FILENO, fstat(STDIN_FILENO, &st) ? nullptr : &st, a, ctx, shown, buf);
  } else {
    auto opened = os::open_read(ctx.root_fd(), *a.file, os::Want::File, *a.file);
    if (auto* file = std::get_if<os::Opened>(&opened)) {
      if (ctx.root_fd() < 0) link = os::link_target(file->fd.get(), *a.file);
      failed = read_all(file->fd.get(), &file->st, a, ctx, shown, buf);
    } else
      failed = std::move(std::get<contract::Error>(opened));
  }
  if (failed) {
    ctx.error(std::move(*failed));
    return nullptr;
  }

  const std::string_view doc(buf.p, buf.size);
  const size_t bom = text::bom_length(doc);
  auto parser = std::make_unique<od::parser>();
  od::document d;
  auto started = parser->iterate(doc.data() + bom, doc.size() - bom, buf.cap + buf.pad - bom);
  if (started.error() == simdjson::MEMALLOC) {
    ctx.error(too_large(a, ctx, shown, doc.size(), true));
    return nullptr;
  }
  bool valid = !started.error() && !std::move(started).get(d) &&
               text::check_json_document(d, doc, kMaxDepth);
  if (!valid) {
    auto e = text::find_json_error(doc, kMaxDepth);
    // simdjson and the locator agree on every input the tests have found; should they ever
    // not, the document is still refused, and said to be refused by simdjson.
    ctx.error(e ? parse_error(shown, doc, *e)
                : contract::make_error("parse.json", "'" + contract::printable(shown) +
                                                         "' was refused by simdjson.",
                                       Json::object({{"path", Json::bytes(shown)},
                                                     {"reason", "simdjson"}})));
    return nullptr;
  }
  d.rewind();
  text::ParsedPointer p = text::parse_pointer(a.pointer);
  Query q(a, doc, a.pointer, p.tokens);
  Json out = q.run(d);
  if (q.failed) {
    if (!q.broken && q.failed->rule == "query.no-such-path" && !q.alternates.empty())
      respell(q, d, ctx);
    ctx.error(std::move(*q.failed));
    return nullptr;
  }
  if (link) out.set("link", Json::object({{"target", Json::bytes(*link)}}));
  const std::string_view raw = q.raw_out;
  parser.reset();  // its index (4 bytes per input byte) goes before the answer is copied
  if (raw.empty()) return out;
  // Fresh pages, not a zero-filled string: this copy can be the whole input.
  os::PaddedBuffer compact(simdjson::SIMDJSON_PADDING);
  size_t len = 0;
  try {
    if (!compact.reserve(raw.size())) throw std::bad_alloc();
    if (simdjson::minify(raw.data(), raw.size(), compact.p, len)) return internal(ctx);
    out.set("value", Json::raw(std::string_view(compact.p, len)));
  } catch (const std::bad_alloc&) {
    ctx.error(too_large(a, ctx, shown, raw.size(), true));
    return nullptr;
  }
  return out;
}

void render_text(const Json& data, std::string& out, const contract::Drain&) {
  if (const Json* keys = data.get("keys")) {
    for (const Json& k : keys->items()) {
      contract::JsonWriter(out).bytes(k.str());  // quoted as jq prints keys: one per line
      out += '\n';
    }
    return;
  }
  const Json *v = data.get("value"), *n = data.get("length"), *e = data.get("exists");
  out += v ? v->str() : n ? std::to_string(n->as_uint()) : e ? (e->as_bool() ? "true" : "false")
                                                         : data.get("kind")->str();
  out += '\n';
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
