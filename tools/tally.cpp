// tally.cpp — count distinct lines, or the Nth field of each line, of files or standard input
// and answer with the most frequent: `cut | sort | uniq -c | sort -rn | head` in one pass.
// Unlike that pipeline it holds the distinct keys, never the input (memory is set by
// --max-keys, not by the input's size), counts in a hash table instead of sorting every line,
// orders ties bytewise, applies the CRLF policy per file, reports what it did not count (a
// missing field, an over-long line) rather than dropping or clipping it, and stops with a
// tagged error at the key cap rather than growing without bound. --match counts only the lines
// that hold a pattern (grep | cut | sort | uniq -c), and says how many did not.
#include <poll.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "os/line_splitter.h"
#include "os/link_target.h"
#include "os/open.h"
#include "runner/main.h"
#include "text/eol.h"
#include "text/key_counter.h"
#include "text/regex.h"
#include "text/search.h"
#include "tools/tally.schema.h"
#include "tools/render/render.h"

namespace {

using contract::Json;
using text::KeyCounter;

struct Args {
  std::vector<std::string> files;
  std::optional<uint64_t> field;
  std::optional<std::string> delim;
  uint64_t top = 0, skip = 0;
  uint64_t max_bytes = 0;
  uint64_t max_keys = 0;
  uint64_t max_line_bytes = 0;
  std::optional<std::string> match;
  bool regex = false, icase = false;
};

constexpr uint64_t kKeysCeiling = 10'000'000;
constexpr uint64_t kLineCeiling = 16 * 1024 * 1024;
constexpr size_t kNamedLines = 100;  // over-long lines named in the error's detail

using contract::Kind;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "field", .short_name = 'f', .kind = Kind::Nat, .bind = &Args::field,
     .value_name = "N", .ceiling = 65536, .floor = 1,
     .help = "count the Nth field of each line, not the whole line; fields are 1-based, "
             "split on --delim as cut -d does; a line with fewer than N fields is not counted "
             "but added to `skipped`"},
    {.name = "delim", .short_name = 'd', .kind = Kind::Text, .bind = &Args::delim,
     .value_name = "D",
     .help = "the field delimiter for --field: exactly one byte, not \\n or \\r (default: a "
             "tab, as cut); every delimiter separates two fields, so a,,b has three"},
    {.name = "top", .short_name = 'n', .kind = Kind::Nat, .bind = &Args::top, .value_name = "N",
     .fallback = "20", .ceiling = 100000,
     .help = "how many of the most frequent keys to return; truncated is true when there are "
             "more distinct keys (0 returns the counts alone)",
     .limit = true},
    {.name = "skip", .kind = Kind::Nat, .bind = &Args::skip, .value_name = "N", .fallback = "0",
     .help = "leave out the N most frequent keys; the cursor (next) from a truncated answer"},
    contract::max_bytes<Args>(),
    {.name = "max-keys", .kind = Kind::Nat, .bind = &Args::max_keys, .value_name = "N",
     .fallback = "1000000", .ceiling = kKeysCeiling, .floor = 1,
     .help = "the most distinct keys held; the next new key stops the count with "
             "limit.too-many-keys and the counts so far. Memory is at most about 100 bytes per "
             "key plus the key's own bytes, and never depends on the size of the input",
     .limit = true},
    {.name = "max-line-bytes", .kind = Kind::Nat, .bind = &Args::max_line_bytes,
     .value_name = "N", .fallback = "1048576", .ceiling = kLineCeiling, .floor = 1,
     .help = "the longest line read as a key; a longer one is added to `skipped` and named in "
             "a limit.line-too-long error whose repair raises the cap to the longest one seen",
     .limit = true},
    {.name = "match", .short_name = 'e', .kind = Kind::Text, .role = contract::Role::Pattern,
     .bind = &Args::match, .value_name = "PATTERN",
     .help = "count only lines holding PATTERN (bytes; tested on the whole line, even with "
             "--field); the rest are `unmatched`"},
    {.name = "regex", .kind = Kind::Bool, .bind = &Args::regex,
     .help = "--match is an RE2 regular expression"},
    {.name = "ignore-case", .short_name = 'i', .kind = Kind::Bool, .bind = &Args::icase,
     .help = "--match folds case (ASCII letters for a literal, Unicode with --regex)"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "FILE", .role = contract::Role::PathRead, .min = 0, .max = contract::kMany,
     .bind = &Args::files,
     .help = "the files to count, in order, as one input; standard input when none is given "
             "or for \"-\"",
     .dash_is_stdin = true},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"args.required-flag", Repairable::Never,
     "--delim was given without --field, or --regex or -i without --match"},
    {"io.is-a-directory"},
    {"io.read-failed"},
    {"limit.line-too-long", Repairable::Sometimes},
    {"limit.too-many-keys"},
    {"query.bad-pattern", Repairable::Never,
     "a --regex pattern RE2 does not accept, or a --match pattern holding a newline"},
};


constexpr contract::Example kExamples[] = {
    {"tally --field 2 --delim ' ' --top 3 app.log",
     "the three most frequent values of the second field, with their counts"},
    {"tally --match ERROR app.log",
     "counts only the lines holding ERROR; no lines returned"},
};

const contract::Tool kTool{
    .name = "tally",
    .summary = "Count distinct lines, or one field of each line, and return the most frequent "
               "with their counts: total keys counted, distinct keys, lines skipped.",
    .differs = "Unlike sort | uniq -c | sort -rn it holds only the distinct keys (never the "
               "input), orders ties bytewise, counts a CRLF file's lines without their \\r, "
               "strips a UTF-8 BOM from a file's first line, reports skipped lines (a missing "
               "field, a line past --max-line-bytes) instead of dropping or clipping them, and "
               "stops at --max-keys with the counts so far. total is the number of keys "
               "counted; total + skipped (+ unmatched, with --match) is the number of lines "
               "read.",
    .usage = "tally [--root DIR] [--field N [--delim D]] [--top N] [--skip N] [--max-bytes N] "
             "[--max-keys N] "
             "[--max-line-bytes N] [--match PATTERN [--regex] [-i]] [--format json|text] "
             "[FILE...]",
    .output = contract::Output::Document,
    .schema = "tally.v1",
    .data_schema = tool_schema::kData,
    .effects = contract::kReadFiles | contract::kReadStdin,
    .text = render::tally,
    .rules = kRules,
    .key_flags = "field delim top match",
    .examples = kExamples,
    .mcp_flags = "field delim top match",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

void check_match(const Args& a, std::vector<contract::Error>& errs) {
  if (!a.match) {
    if (!a.regex && !a.icase) return;
    contract::Error e = contract::make_error(
        "args.required-flag",
        std::string(a.regex ? "--regex" : "--ignore-case") +
            " shapes --match, which was not given.",
        Json::object({{"flag", "match"}, {"needed_by", a.regex ? "regex" : "ignore-case"}}));
    e.hint = "add --match PATTERN to count only the lines holding it.";
    errs.push_back(std::move(e));
    return;
  }
  auto bad = [&](std::string message, Json detail) {
    detail.set("pattern", Json::bytes(*a.match));
    errs.push_back(
        contract::make_error("query.bad-pattern", std::move(message), std::move(detail)));
  };
  if (a.match->find('\n') != std::string::npos) {
    bad("the pattern holds a newline, and a line never does.",
        Json::object({{"reason", "newline"}}));
    return;
  }
  text::RegexError e;
  if (a.regex && !text::regex_matcher(*a.match, a.icase, false, e))
    bad("the regular expression does not compile: " + e.message + ".",
        Json::object({{"reason", "syntax"}, {"error", e.message}, {"argument", e.argument}}));
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context&) {
  check_match(a, errs);
  if (!a.delim) return;
  if (!a.field) {
    contract::Error e = contract::make_error(
        "args.required-flag", "--delim splits fields, so it needs --field N to say which one.",
        Json::object({{"flag", "field"}, {"needed_by", "delim"}}));
    e.hint = "add --field N (1-based), or drop --delim to count whole lines.";
    errs.push_back(std::move(e));
  }
  const std::string& d = *a.delim;
  if (d.size() != 1 || d == "\n" || d == "\r")
    errs.push_back(contract::make_error(
        "args.bad-value",
        d.size() != 1 ? "--delim must be one byte; it has " + std::to_string(d.size()) + "."
                      : std::string("--delim cannot be a line ending (\\n or \\r)."),
        Json::object({{"flag", "delim"}, {"value", Json::bytes(d)},
                      {"expected", "one byte other than \\n and \\r"}})));
}

// --- the count ---------------------------------------------------------------------------

// The whole count: keys, totals, the CRLF policy per file, the caps.
class Tally {
 public:
  explicit Tally(const Args& a) : a_(a), delim_(a.delim ? (*a.delim)[0] : '\t') {
    if (!a.match) return;
    text::RegexError unused;  // check() has refused a pattern RE2 does not accept
    matcher_ = a.regex ? text::regex_matcher(*a.match, a.icase, false, unused)
                       : text::literal_matcher(*a.match, a.icase, false);
  }

  // Counts one input; false once the key cap stopped the count.
  bool count(int fd, const std::string& shown) {
    shown_ = &shown;
    line_no_ = 0;
    crlf_so_far_ = true;
    saw_crlf_ = false;
    os::LineSplitter split(a_.max_line_bytes);
    int err = split.run(fd, [&](auto... l) { return line(l...); }, [&] { return flush(); });
    flush();
    // What was counted without '\r' stands: the file was CRLF (or the count stopped).
    for (uint32_t i : touched_) counter_.at(i).pending = 0;
    touched_.clear();
    if (err != 0) errors_.push_back(os::errno_error(err, shown, "read"));
    if (stopped_) errors_.push_back(too_many_keys(shown));
    return !stopped_;
  }

  // An input that could not be opened, in its place among the others.
  void failed(contract::Error e) { errors_.push_back(std::move(e)); }

  // The keys filled the memory there is before they reached --max-keys: the same stop.
  void out_of_memory(const std::string& shown) {
    stopped_ = true;
    errors_.push_back(too_many_keys(shown));
    errors_.back().message = "the memory ran out before --max-keys; the count stopped.";
    errors_.back().detail.set("cause", "memory");
  }

  // The answer; the errors go to ctx in input order, the over-long lines' one error where the
  // first of them was met.
  Json data(contract::Context& ctx) {
    for (size_t i = 0; i <= errors_.size(); ++i) {
      if (!long_.empty() && i == long_at_) ctx.error(line_too_long(ctx));
      if (i < errors_.size()) ctx.error(std::move(errors_[i]));
    }
    std::vector<uint32_t> live;
    live.reserve(live_);
    const KeyCounter& es = counter_;
    for (size_t i = 0; i < es.size(); ++i)
      if (es.at(i).count > 0) live.push_back(static_cast<uint32_t>(i));
    auto before = [&](uint32_t x, uint32_t y) {
      const KeyCounter::Entry &l = es.at(x), &r = es.at(y);
      if (l.count != r.count) return l.count > r.count;
      int c = std::memcmp(l.key, r.key, std::min(l.len, r.len));
      return c != 0 ? c < 0 : l.len < r.len;
    };
    // The page: ranks [skip, skip + top), ending early once it holds --max-bytes of JSON.
    const size_t from = static_cast<size_t>(std::min<uint64_t>(a_.skip, live.size()));
    const size_t k = static_cast<size_t>(std::min<uint64_t>(from + a_.top, live.size()));
    std::partial_sort(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(k), live.end(),
                      before);
    Json top = Json::array();
    uint64_t bytes = 0;
    size_t end = from;
    for (; end < k && (end == from || bytes < a_.max_bytes); ++end) {
      const KeyCounter::Entry& e = es.at(live[end]);
      Json entry = Json::object(
          {{"key", Json::bytes(std::string_view(e.key, e.len))}, {"count", e.count}});
      bytes += entry.dump().size() + 1;
      top.push(std::move(entry));
    }
    const bool truncated = live.size() > end;
    // --top 0 asks for the counts alone: there is no page to continue.
    const bool paged = truncated && a_.top > 0;
    Json d = Json::object(
        {{"total", total_}, {"distinct", live_}, {"skipped", skipped_}, {"top", std::move(top)},
         {"truncated", truncated},
         {"next", paged ? Json::object({{"skip", static_cast<uint64_t>(end)}}) : Json()},
         {"cut", !truncated ? Json() : end < k ? Json("max-bytes") : Json("top")}});
    if (matcher_) d.set("unmatched", unmatched_);
    return d;
  }

 private:
  bool line(std::string_view text, uint64_t len, bool too_long, bool newline, bool cr) {
    ++line_no_;
    // The CRLF policy, decided as the file goes: while every '\n' so far followed a '\r',
    // lines are counted without the '\r' (and remembered); the first bare '\n' makes the file
    // raw, and what was counted without '\r' moves back to the key with it.
    if (newline && cr) saw_crlf_ = true;
    else if (newline && crlf_so_far_ && flush()) unstrip();
    if (stopped_) return false;
    // Anything but a plain count is done in order with the counts: the batch goes first.
    if (too_long) {
      if (!flush()) return false;
      ++skipped_;
      ++long_count_;
      longest_ = std::max(longest_, len);
      if (long_.empty()) long_at_ = errors_.size();
      if (long_.size() < kNamedLines) long_.push_back({*shown_, line_no_, len});
      return true;
    }
    bool strip = cr && crlf_so_far_ && (newline || saw_crlf_);
    if (strip) text.remove_suffix(1);
    if (line_no_ == 1 && text::has_bom(text)) text.remove_prefix(text::kBom.size());
    // The whole line is tested, without a final '\r' whatever the file's policy, so a match
    // never depends on how the rest of the file ends its lines. An unmatched line is counted
    // in its place in the batch, so a stop at the key cap leaves the counts exact.
    if (matcher_) {
      std::string_view shown = text;
      if (shown.ends_with('\r')) shown.remove_suffix(1);
      if (!matcher_->matches(shown)) {
        batch_[batched_++] = {{}, 0, line_no_, false, true};
        return batched_ < kBatch || flush();
      }
    }
    std::string_view key = text;
    if (a_.field && !field(text, key)) {
      if (!flush()) return false;
      ++skipped_;
      return true;
    }
    // Only a key that ends where the line ends lost the '\r'.
    bool stripped = strip && newline && key.data() + key.size() == text.data() + text.size();
    Pending& p = batch_[batched_++];
    p = {key, KeyCounter::hash(key), line_no_, stripped, false};
    counter_.prefetch(p.hash, 0);
    return batched_ < kBatch || flush();
  }

  // Counts the batched keys in order; false once the key cap stopped the count (line_no_ is
  // then the line of the key that did not fit, and the keys after it are not counted).
  bool flush() {
    for (int stage = 1; stage <= 2; ++stage)
      for (size_t i = 0; i < batched_; ++i)
        if (!batch_[i].unmatched) counter_.prefetch(batch_[i].hash, stage);
    for (size_t i = 0; i < batched_ && !stopped_; ++i) {
      if (batch_[i].unmatched)
        ++unmatched_;
      else if (!add(batch_[i].key, batch_[i].hash, batch_[i].stripped))
        line_no_ = batch_[i].line;
    }
    batched_ = 0;
    return !stopped_;
  }

  // The Nth field of `line`, cut -d style; false when the line has fewer fields.
  bool field(std::string_view line, std::string_view& key) const {
    const char* p = line.data();
    const char* end = p + line.size();
    for (uint64_t k = 1; k < *a_.field; ++k) {
      const void* d = std::memchr(p, delim_, static_cast<size_t>(end - p));
      if (!d) return false;
      p = static_cast<const char*>(d) + 1;
    }
    const void* d = std::memchr(p, delim_, static_cast<size_t>(end - p));
    key = std::string_view(p, d ? static_cast<const char*>(d) - p : end - p);
    return true;
  }

  bool add(std::string_view key, uint64_t h, bool stripped) {
    size_t i = counter_.find(key, h, live_ < a_.max_keys);
    if (i == KeyCounter::npos || (counter_.at(i).count == 0 && live_ >= a_.max_keys)) {
      stopped_ = true;
      return false;
    }
    KeyCounter::Entry& e = counter_.at(i);
    if (e.count++ == 0) ++live_;
    ++total_;
    if (stripped && e.pending++ == 0) touched_.push_back(static_cast<uint32_t>(i));
    return true;
  }

  // The file is not CRLF after all: every key counted without its '\r' this file gets it back.
  // This may pass --max-keys by the keys it moves; the count then stops at once.
  void unstrip() {
    crlf_so_far_ = false;
    std::string raw;
    for (uint32_t i : touched_) {
      KeyCounter::Entry& e = counter_.at(i);
      uint64_t n = e.pending;
      e.pending = 0;
      e.count -= n;
      total_ -= n;
      if (e.count == 0) --live_;
      raw.assign(e.key, e.len);
      raw += '\r';
      KeyCounter::Entry& back = counter_.at(counter_.find(raw, KeyCounter::hash(raw), true));
      if (back.count == 0) ++live_;
      back.count += n;
      total_ += n;
    }
    touched_.clear();
    if (live_ > a_.max_keys) stopped_ = true;
  }

  contract::Error too_many_keys(const std::string& shown) const {
    contract::Error e = contract::make_error(
        "limit.too-many-keys",
        "more than " + std::to_string(a_.max_keys) + " distinct keys; the count stopped at line " +
            std::to_string(line_no_) + " of '" + contract::printable(shown) + "'.",
        Json::object({{"path", Json::bytes(shown)}, {"line", line_no_}, {"max_keys", a_.max_keys},
                      {"ceiling", kKeysCeiling}, {"total", total_}}));
    e.hint = "raise --max-keys (ceiling " + std::to_string(kKeysCeiling) +
             "), or count a field with fewer distinct values.";
    e.repair = contract::Repair::none(
        "how many distinct keys lie past the cap is unknown without holding them");
    return e;
  }

  contract::Error line_too_long(const contract::Context& ctx) const {
    Json lines = Json::array();
    for (const LongLine& l : long_)
      lines.push(Json::object(
          {{"path", Json::bytes(l.path)}, {"line", l.line}, {"length", l.length}}));
    contract::Error e = contract::make_error(
        "limit.line-too-long",
        std::to_string(long_count_) + " line(s) longer than --max-line-bytes " +
            std::to_string(a_.max_line_bytes) + " were not counted; the longest is " +
            std::to_string(longest_) + " bytes.",
        Json::object({{"count", long_count_}, {"longest", longest_},
                      {"max_line_bytes", a_.max_line_bytes}, {"ceiling", kLineCeiling},
                      {"lines", std::move(lines)}}));
    if (longest_ <= kLineCeiling) {
      e.repair = contract::Repair::retry(
          ctx.argv_with_flag("max-line-bytes", std::to_string(longest_)));
      e.hint = "retry with --max-line-bytes " + std::to_string(longest_) + ".";
    } else {
      e.repair = contract::Repair::none("the longest line is past the ceiling of " +
                                        std::to_string(kLineCeiling) + " bytes");
    }
    return e;
  }

  const Args& a_;
  char delim_;
  KeyCounter counter_;
  uint64_t live_ = 0, total_ = 0, skipped_ = 0, unmatched_ = 0;
  std::unique_ptr<text::Matcher> matcher_;  // --match
  bool stopped_ = false;
  // The file being read.
  const std::string* shown_ = nullptr;
  uint64_t line_no_ = 0;
  bool crlf_so_far_ = true, saw_crlf_ = false;
  std::vector<uint32_t> touched_;  // entries with a pending count this file
  // Keys waiting to be counted: views into the splitter's buffer, valid until its boundary().
  struct Pending {
    std::string_view key;
    uint64_t hash, line;
    bool stripped;
    bool unmatched;  // --match: a line that did not match, counted as such in its turn
  };
  static constexpr size_t kBatch = 16;
  Pending batch_[kBatch];
  size_t batched_ = 0;
  // Lines past --max-line-bytes: the first kNamedLines of them, and how many and how long.
  struct LongLine {
    std::string path;
    uint64_t line, length;
  };
  std::vector<LongLine> long_;
  uint64_t long_count_ = 0, longest_ = 0;
  size_t long_at_ = 0;  // errors_.size() when the first over-long line was met
  std::vector<contract::Error> errors_;
};

Json run(const Args& a, contract::Context& ctx) {
  static const std::string kStdin = "-";
  std::vector<std::string> inputs = a.files;
  if (inputs.empty()) inputs.push_back(kStdin);
  Tally tally(a);
  Json links = Json::array();
  for (const std::string& path : inputs) {
    try {
      if (path == kStdin) {
        if (!tally.count(0, kStdin)) break;
        continue;
      }
      auto opened = os::open_read(ctx.root_fd(), path, os::Want::File, path);
      if (auto* e = std::get_if<contract::Error>(&opened)) {
        tally.failed(std::move(*e));
        continue;
      }
      int fd = std::get<os::Opened>(opened).fd.get();
      // Without --root the path was opened as given, links and all: say where a link led.
      if (ctx.root_fd() < 0)
        if (auto target = os::link_target(fd, path))
          links.push(Json::object({{"path", Json::bytes(path)}, {"target", Json::bytes(*target)}}));
      if (!tally.count(fd, path)) break;
    } catch (const std::bad_alloc&) {
      tally.out_of_memory(path);
      break;
    }
  }
  Json data = tally.data(ctx);
  if (!links.items().empty() && data.type() == Json::Type::Object) data.set("links", std::move(links));
  return data;
}

// uniq -c's layout ("%7d key"), most frequent first; what the list left out is said.

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
