// json_walk.cpp — see json_walk.h. An object on the path is read to its end, so a key it
// repeats is found even after its first copy was followed.
#include "text/json_walk.h"

#include <algorithm>
#include <deque>
#include <set>

#include "text/pointer.h"

namespace text {

namespace {

using contract::Json;
namespace od = simdjson::ondemand;

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
  const JsonAsk& a;
  std::string_view doc;
  std::string_view pointer;  // a.pointer, or a respelling being tried
  const std::vector<text::PointerToken>& tokens;
  bool probe = false;        // only whether the pointer names one value: no answer, no words
  std::string_view raw_out;  // the raw text of an array or object to return, compacted later
  std::optional<contract::Error> failed;
  bool broken = false;  // simdjson failed on the second pass: stop everything
  std::vector<Alternate> alternates;

  Query(const JsonAsk& a, std::string_view doc, std::string_view pointer,
        const std::vector<text::PointerToken>& tokens, bool probe = false)
      : a(a), doc(doc), pointer(pointer), tokens(tokens), probe(probe) {}

  Json stop() {
    broken = true;
    failed = json_reread_failed();
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
    Json detail = Json::object(
        {{"resolved", Json::bytes(resolved)}, {"missing", Json::bytes(name)}, {"kind", kind_word}});
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
void respell(Query& q, od::document& d, const ArgvWithPointer& argv_with_pointer) {
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
    e.repair = contract::Repair::retry(argv_with_pointer(alt.pointer));
    return;
  }
  e.repair.kind = contract::Repair::Kind::Choose;
  for (const Alternate* g : good) e.repair.argvs.push_back(argv_with_pointer(g->pointer));
}

}  // namespace

// simdjson refusing, on the second pass, a document it accepted on the first.
contract::Error json_reread_failed() {
  return contract::make_error("parse.json", "the document could not be read a second time.",
                              Json::object({{"reason", "internal"}}));
}

JsonWalk walk_json_pointer(od::document& d, std::string_view doc, std::string_view pointer,
                           const JsonAsk& ask, const ArgvWithPointer& argv_with_pointer) {
  ParsedPointer p = parse_pointer(pointer);
  Query q(ask, doc, pointer, p.tokens);
  JsonWalk w;
  w.out = q.run(d);
  if (q.failed && !q.broken && q.failed->rule == "query.no-such-path" && !q.alternates.empty())
    respell(q, d, argv_with_pointer);
  w.failed = std::move(q.failed);
  w.raw_out = q.raw_out;
  return w;
}

}  // namespace text
