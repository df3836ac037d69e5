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
#include <memory>
#include <new>

#include "os/link_target.h"
#include "os/open.h"
#include "os/read_whole.h"
#include "runner/main.h"
#include "text/json_check.h"
#include "text/json_walk.h"
#include "text/pointer.h"
#include "tools/jsonq.schema.h"
#include "tools/render/render.h"

namespace {

using contract::Json;
using text::JsonKind;
namespace od = simdjson::ondemand;

struct Args {
  std::string pointer;
  std::optional<std::string> file;
  bool keys = false, length = false, type = false, exists = false;
  uint64_t max_bytes = 0;
  uint64_t max_value_bytes = 0;  // the answer's budget (--max-bytes caps the input)
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
    contract::max_bytes<Args>("the answer's size: a value (or --keys) past N bytes is left "
                              "out with truncated, cut and value_bytes; point deeper, or use "
                              "--keys or --length",
                              "max-value-bytes", &Args::max_value_bytes),
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
             "[--max-bytes N] [--max-value-bytes N] [--format json|text] [FILE | -]",
    .output = contract::Output::Document,
    .schema = "jsonq.v1",
    .data_schema = tool_schema::kData,
    .effects = contract::kReadFiles | contract::kReadStdin,
    .text = render::jsonq,
    .rules = kRules,
    .key_flags = "pointer keys",
    .examples = kExamples,
    .mcp_flags = "pointer keys length",
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

Json internal(contract::Context& ctx) {
  ctx.error(text::json_reread_failed());
  return nullptr;
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
  text::JsonWalk w = text::walk_json_pointer(
      d, doc, a.pointer, {.keys = a.keys, .length = a.length, .type = a.type, .exists = a.exists},
      [&](const std::string& p) { return ctx.argv_with_flag("pointer", p); });
  if (w.failed) {
    ctx.error(std::move(*w.failed));
    return nullptr;
  }
  Json out = std::move(w.out);
  if (link) out.set("link", Json::object({{"target", Json::bytes(*link)}}));
  // The budget: keys are listed while they hold fewer bytes than it (the first always); a
  // value is whole or left out, since part of a value is not JSON.
  auto cut = [&](uint64_t bytes) {
    out.set("truncated", true);
    out.set("cut", "max-value-bytes");
    out.set("value_bytes", bytes);
  };
  if (const Json* keys = out.get("keys")) {
    uint64_t bytes = 0, all = 0;
    size_t kept = 0;
    bool full = false;
    for (const Json& k : keys->items()) {
      const uint64_t n = k.dump().size() + 1;
      full = full || (kept > 0 && bytes >= a.max_value_bytes);
      if (!full) {
        bytes += n;
        ++kept;
      }
      all += n;
    }
    if (kept < keys->items().size()) {
      Json some = Json::array();
      for (size_t i = 0; i < kept; ++i) some.push(keys->items()[i]);
      out.set("keys", std::move(some));
      cut(all);
    }
  }
  // A scalar comes with its value already (a string can be the whole document).
  if (const Json* v = out.get("value")) {
    const uint64_t n = v->dump().size();
    if (n > a.max_value_bytes) {
      Json kept = Json::object();
      for (const auto& [k, x] : out.members())
        if (k != "value") kept.set(k, x);
      out = std::move(kept);
      cut(n);
    }
  }
  const std::string_view raw = w.raw_out;
  parser.reset();  // its index (4 bytes per input byte) goes before the answer is copied
  if (raw.empty()) return out;
  // Fresh pages, not a zero-filled string: this copy can be the whole input.
  os::PaddedBuffer compact(simdjson::SIMDJSON_PADDING);
  size_t len = 0;
  try {
    if (!compact.reserve(raw.size())) throw std::bad_alloc();
    if (simdjson::minify(raw.data(), raw.size(), compact.p, len)) return internal(ctx);
    if (len > a.max_value_bytes)
      cut(len);
    else
      out.set("value", Json::raw(std::string_view(compact.p, len)));
  } catch (const std::bad_alloc&) {
    ctx.error(too_large(a, ctx, shown, raw.size(), true));
    return nullptr;
  }
  return out;
}


}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
