// peek.cpp — read a range of a file: lines with numbers and byte offsets, or bytes, with the
// file's size, line endings, BOM, a binary flag and a cursor to the rest. head, tail, sed -n,
// cat -n and wc -l in one call. Unlike them it never clips a long line silently (the line is
// named, with its length and the cap that would show it), answers in JSON, reports what it
// did not return, says when a path ran through a symbolic link, and with --root reaches
// nothing outside the root. Several files in one call get one answer each, in order.

#include <algorithm>
#include <cstring>

#include "os/file_witness.h"
#include "os/line_reader.h"
#include "os/link_target.h"
#include "os/open.h"
#include "runner/main.h"
#include "text/eol.h"
#include "text/witness.h"
#include "tools/peek.schema.h"
#include "tools/render/render.h"

namespace {

using contract::Json;
using contract::Span;

struct Args {
  std::vector<std::string> paths;
  Span lines;
  Span bytes;
  uint64_t max_bytes = 0;
  uint64_t max_line_bytes = 0;
  bool count_lines = false;
  bool witness = false;
};

constexpr uint64_t kCeiling = 16 * 1024 * 1024;
constexpr size_t kBinaryProbe = 8192;  // a NUL in the first 8 KiB makes a file binary
constexpr size_t kMaxFiles = 64;       // paths in one call
// --max-bytes holds for each file; all files of one call together stop at the ceiling (a file
// that would pass it gets its own next cursor), so the answer stays bounded at any count.
constexpr uint64_t kTotalBytes = kCeiling;

using contract::Kind;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "lines", .short_name = 'n', .kind = Kind::Range, .bind = &Args::lines,
     .value_name = "A:B", .fallback = "1:100", .excludes = "bytes",
     .help = "the lines A:B to return, 1-based and inclusive; A: runs to the end or the budget; "
             "a negative number counts from the end (-10: is the last ten lines)"},
    {.name = "bytes", .short_name = 'c', .kind = Kind::Range, .bind = &Args::bytes,
     .value_name = "A:B", .excludes = "lines witness",
     .help = "the bytes A:B to return, 0-based and end-exclusive; a negative number counts "
             "from the end"},
    // The answer budget every tool shares (contract::max_bytes), here per file.
    contract::max_bytes<Args>("the most text returned per file, each line counting its bytes "
                              "and one for its end; past it the answer is truncated with a "
                              "next cursor"),
    {.name = "max-line-bytes", .kind = Kind::Nat, .bind = &Args::max_line_bytes,
     .value_name = "N", .fallback = "1048576", .ceiling = kCeiling, .floor = 1,
     .help = "the longest line returned whole; a longer one is shown as its length with "
             "limit.line-too-long",
     .limit = true},
    {.name = "count-lines", .kind = Kind::Bool, .bind = &Args::count_lines,
     .help = "report total_lines, the number of lines in the file"},
    {.name = "witness", .kind = Kind::Bool, .bind = &Args::witness,
     .help = "add each line's witness, the handle edit takes to change that line"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATH", .role = contract::Role::PathRead, .min = 1, .max = kMaxFiles,
     .bind = &Args::paths, .help = "the file to read; several get one answer each, in order"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"io.is-a-directory"},
    {"io.read-failed"},
    {"limit.line-too-long", Repairable::Sometimes},
};


constexpr contract::Example kExamples[] = {
    {"peek --lines 4:6 --witness src/main.c",
     "lines 4 to 6 with byte offsets and the witnesses edit takes; next says where the rest starts"},
    {"peek --lines 1:2 README.md notes.txt",
     "two files in one call, each with its own range, eol and next"},
};

const contract::Tool kTool{
    .name = "peek",
    .summary = "Read a range of a file: lines with numbers and byte offsets, or bytes, with its "
               "size, line endings, a binary flag and a cursor to the rest.",
    .differs = "Unlike head, tail, sed -n and cat -n it never clips a long line silently, "
               "reports eol and BOM, gives a cursor to what it did not return, and with --root "
               "follows no symbolic link.",
    .usage = "peek [--root DIR] [--lines A:B | --bytes A:B] [--max-bytes N] [--max-line-bytes N] "
             "[--count-lines] [--witness] [--format json|text] PATH...",
    .output = contract::Output::Document,
    .schema = "peek.v1",
    .data_schema = tool_schema::kData,
    .text = render::peek,
    .rules = kRules,
    .key_flags = "lines bytes max-bytes witness",
    .examples = kExamples,
    .mcp_flags = "lines bytes witness",
};

static_assert(contract::valid<Args>(kFlags, kOperands));
static_assert(contract::kAnswerBytesCeiling == kCeiling);

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context& ctx) {
  auto bad = [&](std::string_view flag, std::string why) {
    contract::Error e = contract::make_error("args.bad-value", "--" + std::string(flag) + " " + why);
    e.detail.set("flag", flag);
    errs.push_back(std::move(e));
  };
  if (ctx.given("lines")) {
    const Span& s = a.lines;
    if ((s.from && *s.from == 0) || (s.to && *s.to == 0))
      bad("lines", "counts from 1 (a negative number counts from the end); 0 names no line.");
    else if (s.from && s.to && *s.from > 0 && *s.to > 0 && *s.to < *s.from)
      bad("lines", "ends before it starts.");
  }
  if (ctx.given("bytes")) {
    const Span& s = a.bytes;
    if (s.from && s.to && *s.from >= 0 && *s.to >= 0 && *s.to < *s.from)
      bad("bytes", "ends before it starts.");
  }
}

// The chosen lines, a few bytes each: they are consecutive, so a line's number and offset
// follow from the one before it, and their texts sit end to end in one arena. A run of
// 16 million empty lines (the --max-bytes ceiling) costs about 100 MB here, not gigabytes.
struct Kept {
  uint64_t first_n = 0, first_offset = 0;
  std::string arena;
  std::vector<uint32_t> length;  // a line held whole: its length; too long: its index in `longs`
  std::vector<uint8_t> flags;    // kTooLong, kNewline
  std::vector<uint64_t> longs;   // the lengths of the lines too long to hold
  std::vector<uint32_t> witnesses;
  text::Eol eol = text::Eol::None;
  static constexpr uint8_t kTooLong = 1, kNewline = 2;

  size_t size() const { return flags.size(); }
  uint64_t full_length(size_t i) const { return flags[i] & kTooLong ? longs[length[i]] : length[i]; }
  void add(const os::Line& line, uint64_t n) {
    if (flags.empty()) first_n = n, first_offset = line.offset;
    if (line.too_long) {
      length.push_back(static_cast<uint32_t>(longs.size()));
      longs.push_back(line.length);
    } else {
      length.push_back(static_cast<uint32_t>(line.length));
      arena += line.text;
    }
    flags.push_back((line.too_long ? kTooLong : 0) | (line.newline ? kNewline : 0));
  }
  // Renders the lines, JSON or text, draining the output every so often.
  void render(std::string& out, const contract::Drain& drain, bool as_text) const;
};

void Kept::render(std::string& out, const contract::Drain& drain, bool as_text) const {
  contract::JsonWriter w(out);
  if (!as_text) w.begin_array();
  uint64_t n = first_n, offset = first_offset;
  size_t at = 0;
  for (size_t i = 0; i < size(); ++i, ++n) {
    const bool too_long = flags[i] & kTooLong, newline = flags[i] & kNewline;
    const uint64_t len = full_length(i);
    std::string_view raw = too_long ? std::string_view() : std::string_view(arena).substr(at, len);
    // A '\r' with no '\n' after it (a last line) is not part of an ending: it stays.
    std::string_view shown = newline ? text::shown_line(raw, eol) : raw;
    if (as_text) {
      const std::string witness = witnesses.empty() ? std::string() : text::witness_text(witnesses[i]);
      render::peek_line(out, n, witness, too_long ? nullptr : &shown, len);
    } else {
      w.begin_object();
      w.key("n");
      w.unsigned_integer(n);
      w.key("offset");
      w.unsigned_integer(offset);
      w.key("text");
      if (too_long) {
        w.null();
        w.key("length");
        w.unsigned_integer(len);
      } else {
        w.bytes(shown);
      }
      if (!witnesses.empty()) {
        w.key("witness");
        w.string(text::witness_text(witnesses[i]));
      }
      w.end_object();
    }
    if (!too_long) at += len;
    offset += len + (newline ? 1 : 0);
    if (drain && (i & 1023) == 1023) drain();
  }
  if (!as_text) w.end_array();
}

// One pass over the whole file: what the policy needs (eol, lines) and the chosen lines.
struct Scan {
  text::EolCounter eol;
  uint64_t lines = 0;
  int error = 0;
};

// Reads every line once, calling keep(line, n) for each; the BOM is taken off line 1.
template <class F>
Scan scan(int fd, uint64_t max_line, bool bom, F&& each) {
  Scan s;
  os::LineReader reader(fd, max_line);
  os::Line line;
  while (reader.next(line)) {
    ++s.lines;
    if (line.too_long) {
      char last = 0;
      if (line.newline && line.length > 0) os::pread_full(fd, &last, 1, line.offset + line.length - 1);
      s.eol.add(std::string_view(&last, last ? 1 : 0), line.newline);
    } else {
      s.eol.add(line.text, line.newline);
    }
    if (s.lines == 1 && bom) {
      line.offset += 3;
      line.length -= std::min<uint64_t>(3, line.length);
      if (!line.too_long) line.text.remove_prefix(std::min<size_t>(3, line.text.size()));
    }
    if (!each(line, s.lines)) break;
  }
  s.error = reader.error();
  return s;
}

// One file of the call: which it is (for repairs) and what is left of the call's total budget.
struct Call {
  size_t index = 0;
  bool several = false;
  uint64_t total_left = kTotalBytes;
};

// One file's answer (null when it could not be read; its errors are in ctx either way).
Json read_one(const Args& a, const std::string& path, Call& call, contract::Context& ctx) {
  auto opened = os::open_read(ctx.root_fd(), path, os::Want::File, path);
  if (auto* e = std::get_if<contract::Error>(&opened)) {
    ctx.error(std::move(*e));
    return nullptr;
  }
  auto& file = std::get<os::Opened>(opened);
  int fd = file.fd.get();
  uint64_t size = static_cast<uint64_t>(file.st.st_size);

  char head[kBinaryProbe];
  long long got = os::pread_full(fd, head, sizeof head, 0);
  if (got < 0) {
    ctx.error(os::errno_error(static_cast<int>(-got), path, "read"));
    return nullptr;
  }
  std::string_view probe(head, static_cast<size_t>(got));
  bool binary = probe.find('\0') != std::string_view::npos;
  bool bom = text::has_bom(probe);
  auto read_failed = [&](int err) {
    ctx.error(os::errno_error(err, path, "read"));
    return Json(nullptr);
  };

  Json data = Json::object({{"path", Json::bytes(path)}});
  // Without --root the path was opened as given, links and all: say where a link led.
  if (ctx.root_fd() < 0)
    if (auto target = os::link_target(fd, path))
      data.set("link", Json::object({{"target", Json::bytes(*target)}}));
  data.set("size", size);
  data.set("binary", binary);
  data.set("eol", "none");
  data.set("bom", bom);
  bool bytes_mode = ctx.given("bytes");
  // This file's budget: --max-bytes, or what the call has left when that is less. Only within
  // its own --max-bytes is the first line returned whole past the budget.
  const uint64_t cap = std::min(a.max_bytes, call.total_left);
  const bool first_whole = call.total_left >= a.max_bytes;

  if (bytes_mode) {
    // Non-negative ends are read as far as the file really goes: some files (in /proc) say
    // their size is 0. A negative end needs the size and takes fstat's word for it.
    auto at = [&](int64_t v) -> uint64_t {
      if (v >= 0) return static_cast<uint64_t>(v);
      return static_cast<uint64_t>(std::max<int64_t>(0, static_cast<int64_t>(size) + v));
    };
    uint64_t from = a.bytes.from ? at(*a.bytes.from) : 0;
    if (size > 0) from = std::min(from, size);  // past the end of a file whose size is known
    bool bounded = a.bytes.to && !a.bytes.open_end;
    uint64_t want_to = bounded ? std::max(from, at(*a.bytes.to)) : UINT64_MAX;
    uint64_t want = std::min<uint64_t>(want_to - from, cap);
    // One byte past the budget tells whether more really exists.
    std::string buf(want + 1, '\0');
    long long n = os::pread_full(fd, buf.data(), buf.size(), from);
    if (n < 0) return read_failed(static_cast<int>(-n));
    uint64_t got_n = static_cast<uint64_t>(n);
    bool more = got_n > want;
    bool truncated = more && from + want < want_to;
    buf.resize(std::min(got_n, want));
    uint64_t to = from + buf.size();
    call.total_left -= std::min<uint64_t>(call.total_left, buf.size());
    Scan s = scan(fd, a.max_line_bytes, false, [](const os::Line&, uint64_t) { return true; });
    if (s.error) return read_failed(s.error);
    data.set("eol", text::eol_name(s.eol.result()));
    data.set("mode", "bytes");
    data.set("from", from);
    data.set("to", to);
    data.set("text", Json::bytes(buf));
    data.set("eof", !more);
    data.set("truncated", truncated);
    data.set("next", truncated ? Json::object({{"byte", to}}) : Json());
    data.set("cut", truncated ? Json("max-bytes") : Json());
    data.set("total_lines", a.count_lines ? Json(s.lines) : Json());
    return data;
  }

  // A negative end counts from the last line, so it needs the count first.
  uint64_t total = 0;
  bool need_total = (a.lines.from && *a.lines.from < 0) || (a.lines.to && *a.lines.to < 0);
  if (need_total) {
    Scan s = scan(fd, a.max_line_bytes, false, [](const os::Line&, uint64_t) { return true; });
    if (s.error) return read_failed(s.error);
    total = s.lines;
  }
  // A negative number counts from the end; one before line 1 is 0 (as the end of a range,
  // it names no line at all).
  auto line_at = [&](int64_t v) -> uint64_t {
    if (v > 0) return static_cast<uint64_t>(v);
    return static_cast<uint64_t>(std::max<int64_t>(0, static_cast<int64_t>(total) + v + 1));
  };
  uint64_t from = a.lines.from ? std::max<uint64_t>(1, line_at(*a.lines.from)) : 1;
  uint64_t to = a.lines.open_end || !a.lines.to ? UINT64_MAX : line_at(*a.lines.to);
  if (!a.lines.open_end && !a.lines.to && a.lines.from) to = line_at(*a.lines.from);  // "A" alone
  if (a.lines.to && !a.lines.from) from = 1;                         // ":B"

  auto kept = std::make_shared<Kept>();
  // Every line costs at least one byte of the budget: this many entries at most, and none of
  // the copies a growing vector makes (reserved, not touched).
  const uint64_t most_lines = std::min<uint64_t>(cap, size + 1);
  kept->length.reserve(most_lines);
  kept->flags.reserve(most_lines);
  uint64_t budget = 0, next_line = 0, last_n = 0;
  bool eof_reached = true;
  std::vector<uint64_t> too_long;
  uint64_t longest = 0;
  Scan s = scan(fd, a.max_line_bytes, bom, [&](const os::Line& line, uint64_t n) {
    if (n < from || n > to || next_line) {
      if (n > to && !next_line) eof_reached = false;
      return true;
    }
    // A line costs its bytes and one for its end, so that no run of empty lines can make an
    // answer (and the memory behind it) without bound.
    uint64_t cost = (line.too_long ? 0 : line.length) + 1;
    if ((kept->size() || !first_whole) && budget + cost > cap) {
      next_line = n;
      eof_reached = false;
      return true;
    }
    budget += cost;
    kept->add(line, n);
    if (line.too_long) {
      too_long.push_back(n);
      // The cap is on the line as stored: line 1's BOM counts, so the retry's cap does too.
      longest = std::max(longest, line.length + (n == 1 && bom ? 3 : 0));
    }
    last_n = n;
    return true;
  });
  if (s.error) return read_failed(s.error);
  call.total_left -= std::min(call.total_left, budget);
  text::Eol eol = s.eol.result();
  kept->eol = eol;

  // Witnesses (os/file_witness.h): more passes over the file, in memory bounded by the lines
  // chosen.
  if (a.witness && kept->size()) {
    std::vector<uint64_t> chosen(kept->size());
    for (size_t i = 0; i < chosen.size(); ++i) chosen[i] = kept->first_n + i - 1;
    int rc = os::file_witnesses(fd, a.max_line_bytes, bom, chosen, kept->witnesses, s.lines);
    if (rc < 0) return read_failed(-rc);
  }

  // The lines are rendered as the answer is written, straight into the output (JSON), so an
  // answer of millions of short lines is never held whole; everything in them is known now.
  const bool as_text = ctx.format() == contract::Format::Text;
  Json lines = Json::stream([kept, as_text](std::string& out, const contract::Drain& drain) {
    kept->render(out, drain, as_text);
  });
  data.set("eol", text::eol_name(eol));
  data.set("mode", "lines");
  data.set("from", from);
  data.set("to", last_n == 0 ? Json() : Json(last_n));
  data.set("lines", std::move(lines));
  data.set("eof", eof_reached);
  data.set("truncated", next_line != 0);
  data.set("next", next_line ? Json::object({{"line", next_line}}) : Json());
  data.set("cut", next_line ? Json("max-bytes") : Json());
  data.set("total_lines", a.count_lines ? Json(s.lines) : Json());

  if (!too_long.empty()) {
    Json ns = Json::array();
    for (auto n : too_long) ns.push(n);
    contract::Error e = contract::make_error(
        "limit.line-too-long",
        std::to_string(too_long.size()) + " line(s) longer than --max-line-bytes " +
            std::to_string(a.max_line_bytes) + "; the longest is " + std::to_string(longest) + " bytes.",
        Json::object({{"path", Json::bytes(path)},
                      {"lines", std::move(ns)},
                      {"longest", longest},
                      {"max_line_bytes", a.max_line_bytes},
                      {"ceiling", kCeiling}}));
    if (longest <= kCeiling) {
      // Of several files the retry names this one alone: another's longer line would fail it.
      std::string cap_needed = std::to_string(longest);
      e.repair = contract::Repair::retry(
          call.several ? ctx.argv_with_flag_for_operand(call.index, "max-line-bytes", cap_needed)
                       : ctx.argv_with_flag("max-line-bytes", cap_needed));
      e.hint = std::string(call.several ? "retry this file alone" : "retry") +
               " with --max-line-bytes " + cap_needed + ".";
    } else {
      e.repair = contract::Repair::none("the line is longer than the ceiling; read it in pieces with --bytes");
      e.hint = "read the line in pieces with --bytes.";
    }
    ctx.error(std::move(e));
  }
  return data;
}

Json run(const Args& a, contract::Context& ctx) {
  Call call;
  if (a.paths.size() == 1) return read_one(a, a.paths[0], call, ctx);
  // Several files: one entry each, in argument order; a file that could not be read is its
  // path and its (first) error, and every error is in the envelope's errors too.
  call.several = true;
  Json files = Json::array();
  for (size_t i = 0; i < a.paths.size(); ++i) {
    call.index = i;
    size_t before = ctx.errors().size();
    Json one = read_one(a, a.paths[i], call, ctx);
    if (one.is_null() && ctx.errors().size() > before)
      one = Json::object(
          {{"path", Json::bytes(a.paths[i])}, {"error", ctx.errors()[before].to_json()}});
    files.push(std::move(one));
  }
  return Json::object({{"files", std::move(files)}});
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
