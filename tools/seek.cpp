// seek.cpp — search file contents: every matching line with its number, byte offset and the
// byte spans of each match, across files and directory trees. grep -rnb and ripgrep in one
// call. Unlike them it answers in JSON, never clips a long line silently, pages with a cursor
// (--max-count/--skip) that says when more exists, and ends with what it did not search:
// files left out by ignore rules, hidden names, binary files, special files and links, counted.
#include <emmintrin.h>
#include <re2/filtered_re2.h>
#include <re2/re2.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "contract/main.h"
#include "os/line_reader.h"
#include "os/open.h"
#include "os/walk.h"
#include "text/eol.h"
#include "text/search.h"
#include "text/witness.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace {

using contract::Json;

struct Args {
  std::string pattern;
  std::vector<std::string> paths;
  bool regex = false, icase = false, word = false;
  uint64_t max_count = 0, skip = 0, context = 0, max_line_bytes = 0;
  bool witness = false, hidden = false, no_ignore = false, require_match = false;
  std::vector<std::string> globs;
};

constexpr uint64_t kLineCeiling = 16 * 1024 * 1024;
constexpr uint64_t kMaxCountCeiling = 100'000'000;

using contract::Kind;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "regex",
     .kind = Kind::Bool,
     .bind = &Args::regex,
     .help = "PATTERN is an RE2 regular expression (linear time: no pattern can hang the "
             "search; UTF-8: `.` is a character, \\w \\d \\s \\b are ASCII)"},
    {.name = "ignore-case",
     .short_name = 'i',
     .kind = Kind::Bool,
     .bind = &Args::icase,
     .help = "fold case: for a literal, ASCII letters only (A-Z = a-z, every other byte "
             "exact); with --regex, RE2's Unicode simple case folding"},
    {.name = "word",
     .short_name = 'w',
     .kind = Kind::Bool,
     .bind = &Args::word,
     .help = "a match must be bounded on each side by the line's edge or a non-word "
             "character (word characters: ASCII letters, digits, _)"},
    {.name = "max-count",
     .short_name = 'm',
     .kind = Kind::Nat,
     .bind = &Args::max_count,
     .value_name = "N",
     .fallback = "1000",
     .ceiling = kMaxCountCeiling,
     .floor = 1,
     .help = "the most matching lines returned, over all files in walk order; past it the "
             "answer is truncated with next:{\"skip\":N}, set only when another match exists",
     .limit = true},
    {.name = "skip",
     .kind = Kind::Nat,
     .bind = &Args::skip,
     .value_name = "N",
     .fallback = "0",
     .help = "leave out the first N matching lines (the cursor from a truncated answer)"},
    {.name = "context",
     .short_name = 'C',
     .kind = Kind::Nat,
     .bind = &Args::context,
     .value_name = "N",
     .fallback = "0",
     .ceiling = 1000,
     .help = "also return N lines before and after each match as context records"},
    {.name = "witness",
     .kind = Kind::Bool,
     .bind = &Args::witness,
     .help = "add each match's witness (the handle edit takes); costs two more reads of a "
             "file with matches for each 4096 of them, and the matching lines of a batch are "
             "held until their witnesses are known (at most 4 MiB)"},
    {.name = "glob",
     .short_name = 'g',
     .kind = Kind::List,
     .bind = &Args::globs,
     .value_name = "GLOB",
     .help = "search only paths matching GLOB (gitignore syntax, on the path relative to the "
             "root); !GLOB excludes; repeatable, the last matching glob decides"},
    {.name = "hidden",
     .kind = Kind::Bool,
     .bind = &Args::hidden,
     .help = "also search hidden files and directories (names starting with '.'; otherwise "
             "counted in skipped.hidden)"},
    {.name = "no-ignore",
     .kind = Kind::Bool,
     .bind = &Args::no_ignore,
     .help = "read no .gitignore or .ignore files (by default both are honoured with git's "
             "rules in every directory from the root down, .ignore over .gitignore; what they "
             "exclude is counted in skipped.ignored)"},
    {.name = "max-line-bytes",
     .kind = Kind::Nat,
     .bind = &Args::max_line_bytes,
     .value_name = "N",
     .fallback = "1048576",
     .ceiling = kLineCeiling,
     .floor = 1024,
     .help = "the longest line held; longer matching lines (with --regex: any longer line, "
             "which cannot be searched) are reported in one limit.line-too-long per file",
     .limit = true},
    {.name = "require-match",
     .kind = Kind::Bool,
     .bind = &Args::require_match,
     .help = "no match at all is an error (precondition.no-match, exit 8)"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "PATTERN",
     .role = contract::Role::Pattern,
     .bind = &Args::pattern,
     .help = "the text to find, bytes as given (or an RE2 pattern with --regex); a line "
             "matches when it contains it"},
    {.name = "PATH",
     .role = contract::Role::PathRead,
     .min = 0,
     .max = contract::kMany,
     .bind = &Args::paths,
     .help = "files and directories to search (default: the root, or . without one); "
             "directories are walked, a file named is always searched"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"args.unknown-flag", Repairable::Sometimes},
    {"args.missing-value"},
    {"args.bad-value"},
    {"args.unexpected-value"},
    {"args.duplicate-flag"},
    {"args.missing-operand"},
    {"path.empty"},
    {"path.dotdot", Repairable::Sometimes},
    {"path.absolute", Repairable::Always},
    {"path.outside-root"},
    {"path.too-long"},
    {"path.symlink"},
    {"io.not-found"},
    {"io.not-a-directory"},
    {"io.special-file"},
    {"io.permission-denied"},
    {"io.read-failed", Repairable::Never,
     "the operating system failed a read, or refused to open one more directory (EMFILE)"},
    {"limit.line-too-long", Repairable::Sometimes},
    {"limit.input-too-large", Repairable::Never,
     "an ignore file larger than 16 MiB (its rules are not applied)"},
    {"precondition.no-match", Repairable::Never,
     "--require-match and nothing matched in what was searched"},
    {"query.bad-pattern", Repairable::Never,
     "a --regex pattern RE2 does not accept, or a pattern holding a newline"},
};

constexpr std::string_view kTob = R"({"$ref":"#/$defs/text_or_bytes"})";
const std::string kDataSchema =
    std::string(
        R"({"type":"object","required":["type","path","line","offset","spans","text"],"additionalProperties":false,"properties":{)"
        R"("type":{"const":"match"},"path":)") +
    std::string(kTob) +
    R"(,"line":{"type":"integer","minimum":1},)"
    R"("offset":{"type":"integer","minimum":0},"spans":{"type":"array","minItems":1,"items":{"type":"array","minItems":2,"maxItems":2,"items":{"type":"integer","minimum":0}}},)"
    R"("text":)" +
    std::string(kTob) +
    R"(,"witness":{"type":"string","pattern":"^h[0-9a-f]{6}$"}}},)"
    R"({"type":"object","required":["type","path","line","offset","text"],"additionalProperties":false,"properties":{)"
    R"("type":{"const":"context"},"path":)" +
    std::string(kTob) +
    R"(,"line":{"type":"integer","minimum":1},)"
    R"("offset":{"type":"integer","minimum":0},"text":{"oneOf":[)" +
    std::string(kTob) +
    R"(,{"type":"null"}]},)"
    R"("length":{"type":"integer","minimum":0}}},)"
    R"({"type":"object","required":["type","path","matches","bytes","binary"],"additionalProperties":false,"properties":{)"
    R"("type":{"const":"file"},"path":)" +
    std::string(kTob) +
    R"(,"matches":{"type":"integer","minimum":1},)"
    R"("bytes":{"type":"integer","minimum":0},"binary":{"type":"boolean"}}})";

constexpr std::string_view kEndSchema =
    R"("files":{"type":"integer","minimum":0},"matches":{"type":"integer","minimum":0},)"
    R"("errors":{"type":"integer","minimum":0},)"
    R"("skipped":{"type":"object","required":["ignored","hidden","binary","special","symlink"],"additionalProperties":false,"properties":{)"
    R"("ignored":{"type":"integer","minimum":0},"hidden":{"type":"integer","minimum":0},"binary":{"type":"integer","minimum":0},)"
    R"("special":{"type":"integer","minimum":0},"symlink":{"type":"integer","minimum":0}}})";

void render_text(const Json& rec, std::string& out);

const contract::Tool kTool{
    .name = "seek",
    .summary =
        "Search file contents: matching lines with numbers, byte offsets and match "
        "spans, across files and trees, saying what was not searched.",
    .differs =
        "Unlike grep -rnb and rg it answers in JSON with spans, never clips a long "
        "line silently, pages with a cursor that says when more exists, counts what "
        "ignore rules, hidden names, binary and special files and links left out, and "
        "with --root follows no symbolic link. Literal by default; a file that is all "
        "CRLF is matched and shown without its '\\r'. Parallel across files; the output "
        "order is always the walk order.",
    .usage =
        "seek [--root DIR] [--regex] [-i] [--word] [--max-count N] [--skip N] "
        "[--context N] [--witness] [--glob G]... [--hidden] [--no-ignore] "
        "[--max-line-bytes N] [--require-match] [--format ndjson|text] PATTERN [PATH...]",
    .output = contract::Output::Stream,
    .schema = "seek.v1",
    .data_schema = kDataSchema,
    .end_schema = kEndSchema,
    .text = render_text,
    .rules = kRules,
};

static_assert(contract::valid<Args>(kFlags, kOperands));

// --- the regex matcher ------------------------------------------------------------------

RE2::Options re2_options(bool icase, bool never_nl) {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_case_sensitive(!icase);
  o.set_never_nl(never_nl);
  o.set_max_mem(64 << 20);
  return o;
}

// Where a buffer-wide search could disagree with a line-by-line one: \A and \z anchor the
// whole buffer, a (?-m) or (?m) group changes what ^ and $ mean, \C can take a newline. And
// `$` cannot see through the '\r' of a CRLF file. Over-detecting only costs speed.
struct PatternShape {
  bool unsafe = false, dollar = false, fold = false;
  explicit PatternShape(std::string_view p) {
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] == '\\' && i + 1 < p.size()) {
        char c = p[++i];
        if (c == 'A' || c == 'z' || c == 'C') unsafe = true;
      } else if (p[i] == '$') {
        dollar = true;
      } else if (p[i] == '(' && i + 1 < p.size() && p[i + 1] == '?') {
        // A flag group, (?flags) or (?flags:...); not a named group (?P<name>...).
        size_t j = i + 2;
        bool m = false, f = false;
        for (; j < p.size() && std::string_view("imsU-").find(p[j]) != std::string_view::npos;
             ++j) {
          m = m || p[j] == 'm';
          f = f || p[j] == 'i';
        }
        if (j < p.size() && (p[j] == ')' || p[j] == ':')) {
          unsafe = unsafe || m;
          fold = fold || f;
        }
      }
    }
  }
};

// A literal every match must contain, found by RE2's own prefilter analysis (FilteredRE2's
// atoms, lower-cased): a buffer is searched for it at SIMD speed and only the lines holding
// it go to RE2. Only an ASCII atom qualifies (it is searched with ASCII case folding), and
// under case folding not one with a 'k' or an 's' (RE2 folds them with U+212A and U+017F).
std::string required_literal(const std::string& pattern, const RE2::Options& o, bool fold) {
  re2::FilteredRE2 f(3);
  int id = 0;
  if (f.Add(pattern, o, &id) != RE2::NoError) return {};
  std::vector<std::string> atoms;
  f.Compile(&atoms);
  std::string best;
  for (size_t k = 0; k < atoms.size(); ++k) {
    const std::string& atom = atoms[k];
    bool usable = !atom.empty();
    for (unsigned char c : atom)
      if (c >= 0x80 || c == '\n' || (fold && (c == 'k' || c == 's'))) usable = false;
    if (!usable || atom.size() <= best.size()) continue;
    std::vector<int> others, potential;
    for (size_t j = 0; j < atoms.size(); ++j)
      if (j != k) others.push_back(static_cast<int>(j));
    f.AllPotentials(others, &potential);
    if (potential.empty()) best = atom;  // without this atom the pattern cannot match
  }
  return best;
}

class RegexMatcher final : public text::Matcher {
 public:
  RegexMatcher(const std::string& pattern, bool icase, bool word) : word_(word), shape_(pattern) {
    const std::string body =
        word ? "(?:^|[^0-9A-Za-z_])(" + pattern + ")(?:[^0-9A-Za-z_]|$)" : pattern;
    line_ = std::make_unique<RE2>(body, re2_options(icase, false));
    buffer_ = std::make_unique<RE2>("(?m)" + body, re2_options(icase, true));
    if (word) shape_.dollar = true;
    const bool fold = icase || shape_.fold;
    const std::string atom = required_literal(pattern, re2_options(icase, false), fold);
    if (atom.empty()) return;
    // The atom is lower-cased. In a case-sensitive pattern that spells it once, as plain
    // word characters, the pattern's own spelling is required as it stands, which is far
    // rarer in text ("_RESUME" against "_resume").
    std::string lower = pattern;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const size_t at = lower.find(atom);
    bool plain = !fold && at != std::string::npos &&
                 lower.find(atom, at + 1) == std::string::npos &&
                 (at == 0 || pattern[at - 1] != '\\');
    for (size_t i = 0; plain && i < atom.size(); ++i)
      plain = text::word_byte(static_cast<unsigned char>(pattern[at + i]));
    prefilter_ = plain ? text::literal_matcher(pattern.substr(at, atom.size()), false, false)
                       : text::literal_matcher(atom, true, false);
  }
  // The first of the compiled forms RE2 refused, or null.
  const RE2* failed() const {
    if (!line_->ok()) return line_.get();
    if (!buffer_->ok()) return buffer_.get();
    return nullptr;
  }

  size_t find(std::string_view buf, size_t from) const override {
    if (prefilter_) return prefilter_->find(buf, from);
    re2::StringPiece m;
    if (!buffer_->Match(re2::StringPiece(buf.data(), buf.size()), from, buf.size(), RE2::UNANCHORED,
                        &m, 1))
      return std::string_view::npos;
    return static_cast<size_t>(m.data() - buf.data());
  }

  void spans(std::string_view line, std::vector<text::Span>& out) const override {
    const re2::StringPiece text(line.data(), line.size());
    re2::StringPiece g[2];
    const int groups = word_ ? 2 : 1;
    bool empty_seen = false;
    text::Span first_empty{0, 0};
    for (size_t pos = 0; pos <= line.size();) {
      if (!line_->Match(text, pos, line.size(), RE2::UNANCHORED, g, groups)) break;
      const re2::StringPiece& m = g[groups - 1];
      const size_t s = static_cast<size_t>(m.data() - line.data()), e = s + m.size();
      if (e > s) {
        out.push_back({s, e});
        pos = e;
      } else {
        if (!empty_seen) first_empty = {s, s};
        empty_seen = true;
        pos = std::max(pos, s) + 1;
      }
    }
    if (out.empty() && empty_seen) out.push_back(first_empty);
  }

  bool line_by_line(bool crlf) const override { return shape_.unsafe || (crlf && shape_.dollar); }
  bool wants_eol_first() const override { return shape_.dollar; }

 private:
  bool word_;
  PatternShape shape_;
  std::unique_ptr<RE2> line_, buffer_;
  std::unique_ptr<text::Matcher> prefilter_;
};

std::unique_ptr<text::Matcher> make_matcher(const Args& a) {
  if (a.regex) return std::make_unique<RegexMatcher>(a.pattern, a.icase, a.word);
  return text::literal_matcher(a.pattern, a.icase, a.word);
}

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context&) {
  auto bad = [&](std::string message, Json detail) {
    detail.set("pattern", Json::bytes(a.pattern));
    errs.push_back(
        contract::make_error("query.bad-pattern", std::move(message), std::move(detail)));
  };
  if (a.pattern.find('\n') != std::string::npos) {
    bad("the pattern holds a newline, and seek matches within one line.",
        Json::object({{"reason", "newline"}}));
    return;
  }
  if (a.regex) {
    // The pattern as given first, so the message names the user's own text; then the forms
    // the search runs (wrapped for --word, multi-line for whole buffers), which can still
    // pass RE2's memory limit where the bare pattern did not.
    RE2 re(a.pattern, re2_options(a.icase, false));
    const RegexMatcher m(a.pattern, a.icase, a.word);
    const RE2* failed = !re.ok() ? &re : m.failed();
    if (failed)
      bad("the regular expression does not compile: " + failed->error() + ".",
          Json::object({{"reason", "syntax"},
                        {"error", failed->error()},
                        {"argument", failed->error_arg()}}));
  }
}

// --- records ------------------------------------------------------------------------------

void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// The text of a record for --format text: grep -n's `path:line:text`, `path-line-text` for
// context.
void render_text(const Json& rec, std::string& out) {
  const Json* type = rec.get("type");
  if (!type || type->str() == "file") return;
  auto tob = [](const Json& j) -> std::string {
    if (j.type() == Json::Type::Object) {
      std::string b;
      contract::unbase64(j.get("b64")->str(), b);
      return b;
    }
    return j.str();
  };
  const bool match = type->str() == "match";
  out += tob(*rec.get("path"));
  out += match ? ':' : '-';
  append_uint(out, rec.get("line")->as_uint());
  out += match ? ':' : '-';
  const Json* t = rec.get("text");
  if (t->is_null())
    out += "[" + std::to_string(rec.get("length")->as_uint()) +
           " bytes, longer than --max-line-bytes]";
  else
    out += tob(*t);
  out += '\n';
}

}  // namespace

namespace {

// --- per-file output, handed from the workers to the main thread in walk order ------------

enum class RecKind : uint8_t { Match, Context, Error };
struct Rec {
  RecKind kind;
  uint64_t lo, hi;    // Match: its ordinal in the file (lo == hi); Context: the matches it
                      // serves (lo exact; hi may miss a match found later); Error: the index
                      // into Slot::errors
  size_t begin, end;  // its bytes in Piece::bytes, '\n' included
  uint64_t line = 0;  // Match, Context: the line number
};
struct Piece {
  std::string bytes;
  std::vector<Rec> recs;
};

// One input in walk order: a file to search, or an error found by the walk.
struct Slot {
  std::string path;
  std::optional<os::Entry> entry;  // a walked file, opened by the worker
  os::Fd fd;                       // a named file, opened by the main thread
  struct stat st {};
  bool named = false, work = true;
  os::SkipCounts walk_skips;  // what the walk left out between the previous slot and this one
  uint64_t seq = 0;
  // Output. `pieces` (under the pool's lock) carries a large output while it is being made;
  // `last` is the rest, handed over with `done`.
  std::deque<Piece> pieces;
  size_t held = 0;  // bytes in `pieces`
  std::atomic<bool> pending{false};
  Piece last;
  std::vector<contract::Error> errors;
  std::atomic<bool> done{false};
  bool searched = false, binary = false;
  uint64_t found = 0, bytes = 0;
  os::SkipCounts own;  // this entry, when opening showed it is not to be searched
};

struct Worker {
  std::unique_ptr<text::Matcher> matcher;
  std::vector<char> buffer;
};

// A fixed pool of workers over a ring of slots. The main thread pushes slots in walk order
// and takes their output back in that order. The common path takes no lock: a worker claims
// the next slot with one atomic step and hands its output back with one atomic store; a lock
// and a wake-up are spent only when a thread is actually asleep. A worker whose output grows
// large hands it over in pieces, and stops while the output held for the main thread passes
// a budget (unless its slot is the head), so memory stays bounded by the budget, the window
// and each worker's buffers, never by a file's size.
class Ordered {
 public:
  using Work = std::function<void(Slot&, Worker&)>;
  using Take = std::function<bool(Slot&, Piece&)>;  // false: stop everything
  using Done = std::function<bool(Slot&)>;

  static constexpr size_t kWindow = 256;
  static constexpr size_t kBudget = 8 << 20;
  static constexpr size_t kPiece = 64 << 10;
  static constexpr size_t kSlotShare = 256 << 10;  // one slot's pieces not yet taken
  static constexpr uint64_t kWakeBatch = 16;
  static constexpr uint64_t kRoom = 64;  // a full window waits until this many slots are done

  Ordered(std::vector<Worker>& workers, Work work, Take take, Done done)
      : work_(std::move(work)), take_(std::move(take)), done_(std::move(done)), ring_(kWindow) {
    for (auto& w : workers) threads_.emplace_back([this, &w] { loop(w); });
  }
  ~Ordered() {
    {
      std::lock_guard lk(mu_);
      closing_ = true;
      cancel_ = true;
    }
    work_cv_.notify_all();
    room_cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  bool stopped() const { return stopped_; }
  bool cancelled() const { return cancel_.load(std::memory_order_relaxed); }

  void push(std::unique_ptr<Slot> s) {
    if (pushed_ - head_ >= kWindow) drain(Mode::UntilRoom);
    if (stopped_) return;
    if (!s->work) s->done.store(true);
    s->seq = pushed_;
    ring_[pushed_ % kWindow] = std::move(s);
    pushed_.store(pushed_ + 1);
    // Sleeping workers are woken for a batch, not for each file: a wake-up costs more than
    // searching a small file. kick() wakes them for less whenever the main thread waits.
    if (pushed_ - claimed_ >= kWakeBatch) kick();
    drain(Mode::Ready);
  }

  // Wakes the sleeping workers if there is work they have not taken.
  void kick() {
    if (idle_.load() > 0 && claimed_.load() < pushed_.load()) {
      std::lock_guard lk(mu_);
      work_cv_.notify_all();
    }
  }

  void finish() {
    {
      std::lock_guard lk(mu_);
      closing_ = true;
    }
    work_cv_.notify_all();
    drain(Mode::All);
  }

  // Worker side: hands a piece of a large output to the main thread while the file goes on.
  void publish(Slot& s, Piece&& p) {
    if (p.bytes.empty() && p.recs.empty()) return;
    std::unique_lock lk(mu_);
    buffered_ += p.bytes.size();
    s.held += p.bytes.size();
    s.pieces.push_back(std::move(p));
    s.pending.store(true);
    if (main_waiting_.load()) main_cv_.notify_one();
    // Wait while this slot holds more than its share, or while all slots hold more than the
    // budget and this one cannot be drained before those ahead of it.
    auto full = [&] {
      return !cancel_ && (s.held > kSlotShare || (buffered_ > kBudget && head_.load() != s.seq));
    };
    if (full()) {
      ++blocked_;
      main_cv_.notify_one();  // the main thread must drain the head for this one to go on
      room_cv_.wait(lk, [&] { return !full(); });
      --blocked_;
    }
  }

 private:
  enum class Mode { Ready, UntilRoom, All };

  void loop(Worker& w) {
    for (;;) {
      uint64_t i = claimed_.load();
      if (cancel_) return;
      if (i < pushed_.load()) {
        if (!claimed_.compare_exchange_weak(i, i + 1)) continue;
        Slot& s = *ring_[i % kWindow];
        if (s.work) work_(s, w);
        const uint64_t seq = s.seq;
        s.done.store(true);  // the slot is the main thread's from here on
        // The main thread sleeps until its target slot is done; any slot wakes it while a
        // worker is held back, since the head it may be waiting on could be this one.
        if (main_waiting_.load() && (wait_seq_.load() == seq || blocked_.load() > 0)) {
          std::lock_guard lk(mu_);
          main_cv_.notify_one();
        }
        continue;
      }
      std::unique_lock lk(mu_);
      if (closing_ && claimed_.load() >= pushed_.load()) return;
      ++idle_;
      work_cv_.wait(lk, [&] { return cancel_ || closing_ || claimed_.load() < pushed_.load(); });
      --idle_;
    }
  }

  void stop() {
    stopped_ = true;
    {
      std::lock_guard lk(mu_);
      cancel_ = true;
    }
    work_cv_.notify_all();
    room_cv_.notify_all();
  }

  // Takes a slot's pieces, if any; false when the consumer said stop.
  bool take_pieces(Slot& s) {
    if (!s.pending.load()) return true;
    std::deque<Piece> taken;
    {
      std::lock_guard lk(mu_);
      taken.swap(s.pieces);
      s.pending.store(false);
      s.held = 0;
      for (auto& p : taken) buffered_ -= p.bytes.size();
      if (blocked_) room_cv_.notify_all();
    }
    for (auto& p : taken)
      if (!take_(s, p)) return false;
    return true;
  }

  void drain(Mode mode) {
    while (!stopped_ && head_ < pushed_) {
      Slot& head = *ring_[head_ % kWindow];
      if (!take_pieces(head)) return stop();
      if (head.done.load()) {
        if (!take_pieces(head)) return stop();
        bool go = take_(head, head.last) && done_(head);
        head_.store(head_ + 1);
        if (blocked_.load()) {
          std::lock_guard lk(mu_);
          room_cv_.notify_all();
        }
        if (!go) return stop();
        continue;
      }
      if (mode == Mode::Ready || (mode == Mode::UntilRoom && pushed_ - head_ < kWindow)) return;
      // A full window waits for a batch of room, not one slot, so that the threads do not
      // wake each other for every file; the head's pieces still wake it.
      uint64_t target = head_;
      if (mode == Mode::UntilRoom && !ring_[(head_ + kRoom - 1) % kWindow]->done.load())
        target = head_ + kRoom - 1;
      Slot& t = *ring_[target % kWindow];
      kick();
      std::unique_lock lk(mu_);
      wait_seq_.store(target);
      main_waiting_.store(true);
      main_cv_.wait(
          lk, [&] { return t.done.load() || head.done.load() || head.pending.load() || cancel_; });
      main_waiting_.store(false);
    }
  }

  Work work_;
  Take take_;
  Done done_;
  std::vector<std::unique_ptr<Slot>> ring_;
  std::atomic<uint64_t> pushed_{0}, claimed_{0}, head_{0}, wait_seq_{0};
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable work_cv_, main_cv_, room_cv_;
  std::atomic<int> idle_{0}, blocked_{0};
  std::atomic<bool> main_waiting_{false}, cancel_{false};
  size_t buffered_ = 0;   // under mu_
  bool closing_ = false;  // under mu_
  bool stopped_ = false;  // main thread only
};

// --- rendering (worker side) ------------------------------------------------------------

// A JSON string for bytes that need no escaping and are ASCII (most source lines), 16 bytes
// at a time; anything else goes through the one serializer, which owns escaping, UTF-8 and
// the text_or_bytes choice.
void append_text(std::string& out, std::string_view t) {
  const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'),
                slash = _mm_set1_epi8('\\');
  size_t i = 0;
  bool plain = true;
  for (; plain && i + 16 <= t.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + i));
    // a signed compare: bytes from 0x80 up are negative, so "below 0x20" catches them too
    const __m128i bad = _mm_or_si128(
        _mm_or_si128(_mm_cmpgt_epi8(space, v), _mm_cmpeq_epi8(v, quote)), _mm_cmpeq_epi8(v, slash));
    plain = _mm_movemask_epi8(bad) == 0;
  }
  for (; plain && i < t.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    plain = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
  }
  if (!plain) {
    contract::JsonWriter(out).bytes(t);
    return;
  }
  out += '"';
  out.append(t);
  out += '"';
}

// A small stack buffer for the fixed parts of a record (keys, numbers), appended to the
// output in one piece: a million matches should not cost ten million tiny appends.
class Fields {
 public:
  void put(std::string_view s) {
    std::memcpy(w_, s.data(), s.size());
    w_ += s.size();
  }
  void put(char c) { *w_++ = c; }
  void num(uint64_t v) { w_ = std::to_chars(w_, w_ + 20, v).ptr; }
  size_t room() const { return static_cast<size_t>(buf_ + sizeof buf_ - w_); }
  void flush(std::string& out) {
    out.append(buf_, static_cast<size_t>(w_ - buf_));
    w_ = buf_;
  }

 private:
  char buf_[512];
  char* w_ = buf_;
};

struct Render {
  std::string path_json;  // the path, serialized once per file
  std::string path_raw;
  std::string match_head, context_head;  // {"type":…,"path":…,"line":
  bool text = false;

  void set_path(const std::string& path) {
    path_raw = path;
    path_json.clear();
    contract::JsonWriter(path_json).bytes(path);
    match_head = R"({"type":"match","path":)" + path_json + R"(,"line":)";
    context_head = R"({"type":"context","path":)" + path_json + R"(,"line":)";
  }

  void match(std::string& out, const text::LineEvent& ev, const std::string* witness) const {
    using namespace std::string_view_literals;
    if (text) {
      out += path_raw;
      out += ':';
      append_uint(out, ev.line);
      out += ':';
      out.append(ev.text);
      out += '\n';
      return;
    }
    out += match_head;
    Fields f;
    f.num(ev.line);
    f.put(R"(,"offset":)"sv);
    f.num(ev.offset);
    f.put(R"(,"spans":[)"sv);
    bool first = true;
    for (const text::Span& sp : *ev.spans) {
      if (f.room() < 64) f.flush(out);
      f.put(first ? "["sv : ",["sv);
      first = false;
      f.num(sp.start);
      f.put(',');
      f.num(sp.end);
      f.put(']');
    }
    f.put(R"(],"text":)"sv);
    f.flush(out);
    append_text(out, ev.text);
    if (witness) {
      out += R"(,"witness":")"sv;
      out += *witness;
      out += '"';
    }
    out += "}\n"sv;
  }

  void context(std::string& out, const text::LineEvent& ev) const {
    using namespace std::string_view_literals;
    if (text) {
      out += path_raw;
      out += '-';
      append_uint(out, ev.line);
      out += '-';
      if (ev.too_long)
        out += "[" + std::to_string(ev.length) + " bytes, longer than --max-line-bytes]";
      else
        out.append(ev.text);
      out += '\n';
      return;
    }
    out += context_head;
    Fields f;
    f.num(ev.line);
    f.put(R"(,"offset":)"sv);
    f.num(ev.offset);
    f.flush(out);
    if (ev.too_long) {
      out += R"(,"text":null,"length":)"sv;
      append_uint(out, ev.length);
    } else {
      out += R"(,"text":)"sv;
      append_text(out, ev.text);
    }
    out += "}\n"sv;
  }
};

// --- witnesses: two more passes over a file, as peek computes them ------------------------

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// The witness hash of a line too long to hold, streamed: trailing whitespace found from the
// end backwards, the rest hashed in pieces (the same value line_hash gives the whole line).
uint64_t hash_long_line(int fd, uint64_t offset, uint64_t length) {
  std::string buf(64 * 1024, '\0');
  uint64_t end = offset + length;
  while (end > offset) {
    uint64_t take = std::min<uint64_t>(buf.size(), end - offset);
    long long n = os::pread_full(fd, buf.data(), take, end - take);
    if (n != static_cast<long long>(take)) break;
    long long k = n;
    while (k > 0 && is_space(buf[k - 1])) --k;
    end -= static_cast<uint64_t>(n - k);
    if (k > 0) break;
  }
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  for (uint64_t at = offset; at < end;) {
    uint64_t take = std::min<uint64_t>(buf.size(), end - at);
    long long n = os::pread_full(fd, buf.data(), take, at);
    if (n <= 0) break;
    XXH3_64bits_update(&st, buf.data(), static_cast<size_t>(n));
    at += static_cast<uint64_t>(n);
  }
  return XXH3_64bits_digest(&st);
}

// Every line's witness hash in order (line 1 without its BOM), to `each`; -errno on failure.
template <class F>
int hash_lines(int fd, size_t cap, bool bom, F&& each) {
  os::LineReader reader(fd, cap);
  os::Line line;
  uint64_t i = 0;
  while (reader.next(line)) {
    uint64_t off = line.offset, len = line.length;
    std::string_view t = line.text;
    if (i == 0 && bom) {
      off += 3;
      len -= std::min<uint64_t>(3, len);
      if (!line.too_long) t.remove_prefix(std::min<size_t>(3, t.size()));
    }
    each(i++, line.too_long ? hash_long_line(fd, off, len) : text::line_hash(t));
  }
  return reader.error() ? -reader.error() : 0;
}

int witnesses(int fd, size_t cap, bool bom, const std::vector<uint64_t>& lines,
              std::vector<std::string>& out) {
  text::WitnessFinder finder(lines);
  uint64_t total = 0;
  int rc = hash_lines(fd, cap, bom, [&](uint64_t i, uint64_t h) {
    finder.add_context(i, h);
    total = i + 1;
  });
  if (rc < 0) return rc;
  finder.begin_count(total);
  rc = hash_lines(fd, cap, bom, [&](uint64_t, uint64_t h) { finder.count(h); });
  if (rc < 0) return rc;
  out.clear();
  for (uint64_t l : lines) out.push_back(text::witness_text(finder.result(l)));
  return 0;
}

}  // namespace

namespace {

// --- one file (worker side) ---------------------------------------------------------------

struct Search {
  const Args& a;
  bool text = false;
  uint64_t limit = 0;  // matching lines worth finding in one file: skip + max-count + 1
  Ordered* pool = nullptr;
};

contract::Error long_line_error(const Args& a, const std::string& path, const text::ScanResult& r) {
  Json lines = Json::array();
  for (uint64_t n : r.long_lines) lines.push(n);
  const std::string what = r.long_unsearched
                               ? " line(s) of '" + contract::printable(path) +
                                     "' are longer than --max-line-bytes " +
                                     std::to_string(a.max_line_bytes) +
                                     " and were not searched (a regex needs the whole line)"
                               : " line(s) of '" + contract::printable(path) +
                                     "' that match are longer than "
                                     "--max-line-bytes " +
                                     std::to_string(a.max_line_bytes) + " and are not shown";
  return contract::make_error("limit.line-too-long",
                              std::to_string(r.long_count) + what + "; the longest is " +
                                  std::to_string(r.longest) + " bytes.",
                              Json::object({{"path", Json::bytes(path)},
                                            {"lines", std::move(lines)},
                                            {"count", r.long_count},
                                            {"longest", r.longest},
                                            {"searched", !r.long_unsearched},
                                            {"max_line_bytes", a.max_line_bytes},
                                            {"ceiling", kLineCeiling}}));
}

void search_file(const Search& cfg, Slot& s, Worker& w) {
  const Args& a = cfg.a;
  Piece piece;
  auto publish = [&] {
    cfg.pool->publish(s, std::move(piece));
    piece = Piece();
    piece.bytes.reserve(Ordered::kPiece + 4096);
  };
  auto finish = [&] { s.last = std::move(piece); };
  auto add_error = [&](contract::Error e) {
    s.errors.push_back(std::move(e));
    piece.recs.push_back(
        {RecKind::Error, s.errors.size() - 1, 0, piece.bytes.size(), piece.bytes.size()});
  };
  os::Fd owned;
  int fd = s.fd.get();
  if (!s.named) {
    const int r = os::open_entry(*s.entry, s.st);
    if (r < 0) {
      // A link now where the walk saw a file: not followed, counted as the link it is.
      if (r == -ELOOP) {
        s.own.symlink = 1;
        return;
      }
      add_error(os::errno_error(-r, s.path, "open"));
      finish();
      return;
    }
    owned = os::Fd(r);
    fd = r;
    if (!S_ISREG(s.st.st_mode)) {  // swapped for a FIFO or device since listed: never read
      s.own.special = 1;
      return;
    }
  }
  const uint64_t size = static_cast<uint64_t>(s.st.st_size);
  s.bytes = size;
  // pread, stopping at the size seen at open so that a small file costs one read.
  const text::ReadAt read = [fd, size](char* buf, size_t len, uint64_t off) -> long long {
    size_t got = 0;
    while (got < len) {
      ssize_t n = pread(fd, buf + got, len - got, static_cast<off_t>(off + got));
      if (n < 0) {
        if (errno == EINTR) continue;
        return -static_cast<long long>(errno);
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
      if (size > 0 && off + got >= size) break;
    }
    return static_cast<long long>(got);
  };
  Render render;
  render.text = cfg.text;
  render.set_path(s.path);

  text::ScanOptions so;
  so.max_line = static_cast<size_t>(a.max_line_bytes);
  so.context = a.context;
  so.max_matches = cfg.limit;
  so.skip_binary = !s.named;

  auto add = [&](const text::LineEvent& ev, const std::string* witness) {
    const size_t begin = piece.bytes.size();
    const bool match = ev.kind == text::LineEvent::Kind::Match;
    if (match)
      render.match(piece.bytes, ev, witness);
    else
      render.context(piece.bytes, ev);
    piece.recs.push_back({match ? RecKind::Match : RecKind::Context, ev.lo, ev.hi, begin,
                          piece.bytes.size(), ev.line});
    if (piece.bytes.size() >= Ordered::kPiece) publish();
  };

  // --witness: events are held in batches until their witnesses are known.
  struct Held {
    text::LineEvent ev;
    std::string text;
    std::vector<text::Span> spans;
  };
  std::vector<Held> held;
  size_t held_bytes = 0;
  int witness_error = 0;
  auto flush_held = [&] {
    if (held.empty()) return;
    std::vector<uint64_t> chosen;
    for (auto& h : held)
      if (h.ev.kind == text::LineEvent::Kind::Match) chosen.push_back(h.ev.line - 1);
    std::vector<std::string> wit;
    char head[3] = {0, 0, 0};
    const bool bom =
        os::pread_full(fd, head, 3, 0) == 3 && text::has_bom(std::string_view(head, 3));
    const int rc =
        chosen.empty() || witness_error ? 0 : witnesses(fd, so.max_line, bom, chosen, wit);
    if (rc < 0) witness_error = -rc;
    size_t wi = 0;
    for (auto& h : held) {
      h.ev.text = h.text;
      h.ev.spans = &h.spans;
      const bool match = h.ev.kind == text::LineEvent::Kind::Match;
      add(h.ev, match && wi < wit.size() ? &wit[wi] : nullptr);
      if (match) ++wi;
    }
    held.clear();
    held_bytes = 0;
  };
  const text::LineSink sink = [&](const text::LineEvent& ev) {
    if (cfg.pool->cancelled()) return false;
    if (!a.witness) {
      add(ev, nullptr);
      return true;
    }
    held.push_back({ev, std::string(ev.text), ev.spans ? *ev.spans : std::vector<text::Span>{}});
    held_bytes += ev.text.size() + 64;
    if (held.size() >= 4096 || held_bytes >= (4u << 20)) flush_held();
    return true;
  };
  const text::ScanResult res = text::scan(*w.matcher, so, read, sink, w.buffer);
  if (res.skipped) {
    s.own.binary = 1;
    return;
  }
  flush_held();
  s.searched = true;
  s.binary = res.binary;
  s.found = res.found;
  if (res.error) add_error(os::errno_error(res.error, s.path, "read"));
  if (witness_error) add_error(os::errno_error(witness_error, s.path, "read"));
  if (res.long_count) add_error(long_line_error(a, s.path, res));
  finish();
}

// --- paging (main thread) -----------------------------------------------------------------

struct Page {
  const Args& a;
  contract::Context& ctx;
  uint64_t base = 0;  // matching lines found in the files before the head slot
  uint64_t emitted = 0, file_emitted = 0, files = 0;
  bool truncated = false;
  os::SkipCounts skips;
  const Slot* current = nullptr;
  // Context lines met while --skip passes over matches: the last --context of them wait for
  // the first match shown, and those within --context of it are its before-context.
  std::deque<std::pair<uint64_t, std::string>> held;

  void enter(const Slot& s) {
    if (current == &s) return;
    current = &s;
    file_emitted = 0;
    skips += s.walk_skips;
    held.clear();
  }
  void write(const Piece& p, const Rec& r) {
    ctx.raw().append(p.bytes, r.begin, r.end - r.begin - 1);
    ctx.commit();
  }
  void error(contract::Error e) {
    if (e.rule == "limit.line-too-long") {
      const uint64_t longest = e.detail.get("longest")->as_uint();
      if (longest <= kLineCeiling) {
        e.repair = contract::Repair::retry(show_long_lines(e.detail.get("path"), longest));
        e.hint = "retry on this file with --max-line-bytes " + std::to_string(longest) + ".";
      } else {
        e.repair = contract::Repair::none(
            "the line is longer than the ceiling of --max-line-bytes; read it in pieces with "
            "peek --bytes");
        e.hint = "read the line in pieces with peek --bytes.";
      }
    }
    ctx.error(std::move(e));
  }
  // The repair of a long-line error: the same search on that one file, with the cap at its
  // longest line (a narrower call, so that it clears exactly this error; --skip counted over
  // all files, so it goes, as do the walk's filters, which a named file ignores).
  std::vector<std::string> show_long_lines(const Json* path, uint64_t longest) const {
    std::vector<std::string> v = {ctx.argv().front()};
    if (!ctx.root().empty()) v.insert(v.end(), {"--root", ctx.root()});
    if (a.regex) v.push_back("--regex");
    if (a.icase) v.push_back("--ignore-case");
    if (a.word) v.push_back("--word");
    if (ctx.given("max-count")) v.push_back("--max-count=" + std::to_string(a.max_count));
    if (a.context) v.push_back("--context=" + std::to_string(a.context));
    if (a.witness) v.push_back("--witness");
    v.push_back("--max-line-bytes=" + std::to_string(longest));
    if (ctx.format() == contract::Format::Text) v.push_back("--format=text");
    std::string p = path->str();
    if (path->type() == Json::Type::Object) contract::unbase64(path->get("b64")->str(), p);
    v.insert(v.end(), {"--", a.pattern, p});
    return v;
  }
  void file_record(const Slot& s) {
    if (file_emitted == 0) return;
    ctx.record(Json::object({{"type", "file"},
                             {"path", Json::bytes(s.path)},
                             {"matches", file_emitted},
                             {"bytes", s.bytes},
                             {"binary", s.binary}}));
    file_emitted = 0;
  }

  bool take(Slot& s, Piece& p) {
    enter(s);
    if (ctx.output_failed()) return false;
    const uint64_t lo = a.skip, hi = a.skip + a.max_count;  // the window of ordinals shown
    bool whole = !p.bytes.empty();
    uint64_t n = 0;
    for (const Rec& r : p.recs) {
      if (r.kind == RecKind::Error || base + r.lo < lo || base + r.lo >= hi) whole = false;
      n += r.kind == RecKind::Match;
    }
    if (whole) {  // the common case: all of it inside the window
      ctx.raw().append(p.bytes, 0, p.bytes.size() - 1);
      ctx.commit();
      emitted += n;
      file_emitted += n;
      return !ctx.output_failed();
    }
    for (const Rec& r : p.recs) {
      switch (r.kind) {
        case RecKind::Error:
          error(std::move(s.errors[r.lo]));
          break;
        case RecKind::Match:
          if (base + r.lo < lo) break;
          if (base + r.lo >= hi) {  // one more exists: the answer is complete up to here
            truncated = true;
            ++files;  // this file was searched, up to the line that proved more exists
            file_record(s);
            return false;
          }
          for (auto& [line, bytes] : held) {
            if (line + a.context < r.line) continue;
            ctx.raw() += bytes;
            ctx.commit();
          }
          held.clear();
          write(p, r);
          ++emitted;
          ++file_emitted;
          break;
        case RecKind::Context:
          // `lo` is exact: the nearest match before the line within --context. Before the
          // first match shown, whether a line is its before-context waits for that match.
          if (base + r.lo < lo) {
            held.emplace_back(r.line, p.bytes.substr(r.begin, r.end - r.begin - 1));
            if (held.size() > a.context) held.pop_front();
          } else if (base + r.lo < hi) {
            write(p, r);
          }
          break;
      }
    }
    return !ctx.output_failed();
  }

  bool done(Slot& s) {
    enter(s);
    skips += s.own;
    if (s.searched) ++files;
    base += s.found;
    file_record(s);
    current = nullptr;
    return !ctx.output_failed();
  }
};

std::unique_ptr<Slot> error_slot(contract::Error e) {
  auto s = std::make_unique<Slot>();
  s->work = false;
  s->errors.push_back(std::move(e));
  s->last.recs.push_back({RecKind::Error, 0, 0, 0, 0});
  return s;
}

bool has_dotdot(std::string_view p) {
  return p == ".." || p.starts_with("../") || p.ends_with("/..") ||
         p.find("/../") != std::string_view::npos;
}

Json run(const Args& a, contract::Context& ctx) {
  const unsigned cores = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<Worker> workers(cores);
  for (auto& w : workers) w.matcher = make_matcher(a);

  Page page{a, ctx};
  Search cfg{a, ctx.format() == contract::Format::Text};
  cfg.limit = a.skip + a.max_count + 1;  // both far below 2^64
  Ordered pool(
      workers, [&](Slot& s, Worker& w) { search_file(cfg, s, w); },
      [&](Slot& s, Piece& p) { return page.take(s, p); }, [&](Slot& s) { return page.done(s); });
  cfg.pool = &pool;

  os::WalkOptions wo;
  wo.hidden = a.hidden;
  wo.no_ignore = a.no_ignore;
  wo.globs = a.globs;
  // Without --root, ignore files are read from the working directory down.
  os::Fd cwd;
  if (ctx.root_fd() < 0) {
    auto r = os::open_root(".");
    if (auto* fd = std::get_if<os::Fd>(&r)) cwd = std::move(*fd);
  }

  os::SkipCounts walked, pushed;  // left out so far; the part already handed to a slot
  auto push = [&](std::unique_ptr<Slot> s, const os::SkipCounts& now) {
    s->walk_skips = now - pushed;
    pushed = now;
    pool.push(std::move(s));
  };
  std::vector<std::string> paths = a.paths;
  if (paths.empty()) paths.push_back(".");
  for (const std::string& path : paths) {
    if (pool.stopped()) break;
    auto opened = os::open_read(ctx.root_fd(), path, os::Want::Any, path);
    if (auto* e = std::get_if<contract::Error>(&opened)) {
      push(error_slot(std::move(*e)), walked);
      continue;
    }
    os::Opened& o = std::get<os::Opened>(opened);
    if (!S_ISDIR(o.st.st_mode)) {  // a file named is always searched, binary or not
      auto s = std::make_unique<Slot>();
      s->path = path;
      s->named = true;
      s->st = o.st;
      s->fd = std::move(o.fd);
      push(std::move(s), walked);
      continue;
    }
    int ignore_root = ctx.root_fd() >= 0 ? ctx.root_fd() : cwd.get();
    std::string rel = path == "." ? "" : path;
    if (ctx.root_fd() < 0 && (path.starts_with("/") || has_dotdot(path))) {
      ignore_root = -1;
      rel.clear();
    }
    os::Walker walker(wo, std::move(o.fd), path, ignore_root, rel);
    os::WalkItem item;
    while (!pool.stopped() && walker.next(item)) {
      os::SkipCounts now = walked;
      now += walker.counts();
      if (item.type == os::WalkItem::Type::Error) {
        push(error_slot(std::move(item.error)), now);
        continue;
      }
      switch (item.entry.kind) {
        case os::EntryKind::File: {
          auto s = std::make_unique<Slot>();
          s->path = item.entry.path;
          s->entry = std::move(item.entry);
          push(std::move(s), now);
          break;
        }
        case os::EntryKind::Link:
          ++walked.symlink;
          break;
        case os::EntryKind::Other:
          ++walked.special;
          break;
        case os::EntryKind::Directory:
          break;
      }
    }
    walked += walker.counts();
  }
  pool.finish();
  if (!pool.stopped()) page.skips += walked - pushed;

  if (a.require_match && page.base == 0 && !page.truncated && !ctx.output_failed()) {
    const uint64_t left_out = page.skips.ignored + page.skips.hidden + page.skips.binary;
    contract::Error e = contract::make_error(
        "precondition.no-match",
        "nothing matched in the " + std::to_string(page.files) + " file(s) searched.",
        Json::object({{"pattern", Json::bytes(a.pattern)},
                      {"files", page.files},
                      {"skipped", page.skips.to_json()}}));
    if (left_out > 0)
      e.hint = std::to_string(left_out) +
               " file(s) were left out (ignored, hidden or binary); --no-ignore, --hidden or "
               "naming a file searches them.";
    ctx.error(std::move(e));
  }
  const bool ok = ctx.errors().empty();
  if (ctx.format() == contract::Format::Text && page.truncated) {
    ctx.raw() += "[truncated: continue with --skip " + std::to_string(a.skip + page.emitted) + "]";
    ctx.commit();
  }
  return Json::object(
      {{"complete", ok && !page.truncated},
       {"files", page.files},
       {"matches", page.emitted},
       {"errors", ctx.errors().size()},
       {"truncated", page.truncated},
       {"next", page.truncated ? Json::object({{"skip", a.skip + page.emitted}}) : Json()},
       {"skipped", page.skips.to_json()}});
}

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
