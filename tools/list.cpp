// list.cpp — entries beneath directories, streamed: one record per entry with its kind and
// depth, depth-first with names in bytewise order, and a cursor to the rest. ls -R, find
// -maxdepth and fzf's file ranking in one tool. Unlike ls it is recursive to a stated depth and
// answers in NDJSON; unlike find it never follows a link (a link is listed with its target and
// never entered), applies .gitignore/.ignore and hidden rules and *counts* what they left out,
// stops at --max-entries with a cursor instead of flooding the caller, and with --root reaches
// nothing outside the root. `--find` ranks file paths by an fzf-like fuzzy score, keeping only
// the best --skip + --max-entries in a bounded heap.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <queue>

#include "os/open.h"
#include "os/walk.h"
#include "runner/main.h"
#include "text/fuzzy.h"
#include "tools/list.schema.h"
#include "tools/render/render.h"

namespace {

using contract::Json;

struct Args {
  std::vector<std::string> dirs;
  uint64_t depth = 1;
  uint64_t max_entries = 0;
  uint64_t skip = 0;
  uint64_t max_bytes = 0;
  bool long_form = false;
  std::string kind;
  bool hidden = false;
  bool no_ignore = false;
  std::optional<std::string> find;
};

constexpr uint64_t kMaxDepth = 64;
constexpr uint64_t kEntriesCeiling = 100000;

using contract::Kind;
constexpr contract::Flag<Args> kFlags[] = {
    {.name = "depth", .short_name = 'd', .kind = Kind::Nat, .bind = &Args::depth,
     .value_name = "N", .fallback = "1", .ceiling = kMaxDepth, .floor = 1,
     .help = "how deep to list: 1 is the directory's own entries (with --find the default is "
             "64, the whole tree; a directory at 64 that holds more is limit.too-deep)"},
    {.name = "max-entries", .short_name = 'm', .kind = Kind::Nat, .bind = &Args::max_entries,
     .value_name = "N", .fallback = "1000", .ceiling = kEntriesCeiling, .floor = 1,
     .help = "the most entries returned; past it the stream ends truncated with a next cursor",
     .limit = true},
    {.name = "skip", .kind = Kind::Nat, .bind = &Args::skip, .value_name = "N", .fallback = "0",
     .help = "leave out the first N entries (the cursor a truncated answer gives as next.skip)"},
    contract::max_bytes<Args>(),
    {.name = "long", .short_name = 'l', .kind = Kind::Bool, .bind = &Args::long_form,
     .help = "add size and mtime (integer seconds) from lstat: a link's own, not its target's"},
    {.name = "kind", .kind = Kind::Choice, .bind = &Args::kind, .value_name = "KIND",
     .choices = "file|directory|link", .excludes = "find",
     .help = "list only entries of this kind (directories are still walked)"},
    {.name = "hidden", .kind = Kind::Bool, .bind = &Args::hidden,
     .help = "include names starting with '.' (else skipped and counted)"},
    {.name = "no-ignore", .kind = Kind::Bool, .bind = &Args::no_ignore,
     .help = "read no .gitignore or .ignore (else what they exclude is skipped and counted)"},
    {.name = "find", .short_name = 'f', .kind = Kind::Text, .bind = &Args::find,
     .value_name = "QUERY", .excludes = "kind",
     .help = "rank file paths by a fuzzy subsequence score (fzf-like: consecutive, word-boundary "
             "and basename matches score higher), best first, ties bytewise"},
};

constexpr contract::Operand<Args> kOperands[] = {
    {.name = "DIR", .role = contract::Role::PathRead, .min = 0, .max = contract::kMany,
     .bind = &Args::dirs,
     .help = "the directories to list, in order (default: the root, or . without one); one "
             "that cannot be read is an error record and the others are still listed"},
};

using contract::Repairable;
constexpr contract::Rule kRules[] = {
    {"io.read-failed", Repairable::Never, "the operating system failed to open or read a "
                                          "directory (out of descriptors, an I/O error)"},
    {"limit.input-too-large", Repairable::Never, "a .gitignore or .ignore larger than 16 MiB: "
                                                 "its rules were not applied"},
    {"limit.too-deep", Repairable::Never, "a directory 64 levels down, the deepest a walk goes, "
                                          "holds entries (at --depth 64, or --find's default)"},
};


constexpr contract::Example kExamples[] = {
    {"list --depth 2",
     "the tree two levels deep in bytewise order; a link is shown with its target, never entered"},
    {"list --find mainc",
     "file paths ranked by a fuzzy match, best first, each with its score"},
};

const contract::Tool kTool{
    .name = "list",
    .summary = "List the entries beneath directories, depth-first in bytewise order, with kind, "
               "depth and link targets, or rank file paths by a fuzzy query.",
    .differs = "Unlike ls and find it never follows or enters a link, applies .gitignore and "
               "hidden rules and counts what they skipped, stops at --max-entries with a cursor, "
               "answers in NDJSON, and with --root reaches nothing outside the root; --find "
               "ranks like fzf with integer scores.",
    .usage = "list [--root DIR] [--depth N] [--max-entries N] [--skip N] [--max-bytes N] [--long] "
             "[--kind file|directory|link] [--hidden] [--no-ignore] [--find QUERY] "
             "[--format ndjson|text] [DIR...]",
    .output = contract::Output::Stream,
    .schema = "list.v1",
    .data_schema = tool_schema::kRecords,
    .end_schema = tool_schema::kEnd,
    .cuts = "max-entries max-bytes",
    .text = render::list,
    .rules = kRules,
    .key_flags = "depth max-entries find",
    .examples = kExamples,
    .mcp_flags = "depth find",
};

static_assert(contract::valid<Args>(kFlags, kOperands));

void check(const Args& a, std::vector<contract::Error>& errs, const contract::Context&) {
  if (!a.find) return;
  auto bad = [&](std::string message, Json detail) {
    detail.set("flag", "find");
    errs.push_back(contract::make_error("args.bad-value", std::move(message), std::move(detail)));
  };
  if (a.find->empty())
    bad("--find is empty; an empty query matches nothing.", Json::object());
  else if (a.find->size() > text::kFuzzyQueryMax)
    bad("--find is " + std::to_string(a.find->size()) + " bytes; a query is at most " +
            std::to_string(text::kFuzzyQueryMax) + ".",
        Json::object({{"length", a.find->size()}, {"ceiling", text::kFuzzyQueryMax}}));
  // The ranking keeps the best skip + max-entries: that sum is the memory bound, so it has the
  // same ceiling as --max-entries.
  else if (a.skip > kEntriesCeiling || a.skip + a.max_entries > kEntriesCeiling)
    bad("with --find, --skip plus --max-entries is at most " + std::to_string(kEntriesCeiling) +
            " (the ranking holds that many paths).",
        Json::object({{"skip", a.skip}, {"max_entries", a.max_entries},
                      {"ceiling", kEntriesCeiling}}));
}

// The entry's link target (readlinkat on the directory descriptor the walk holds), or -errno.
int read_target(const os::Entry& e, std::string& out) {
  char buf[PATH_MAX + 1];
  ssize_t n = readlinkat(e.parent->get(), e.name.c_str(), buf, sizeof buf);
  if (n < 0) return -errno;
  out.assign(buf, static_cast<size_t>(std::min<ssize_t>(n, PATH_MAX)));
  return 0;
}

// One walk per DIR operand, in order, with its items handed to `each`; `stop` ends the run.
struct Walks {
  const Args& a;
  contract::Context& ctx;
  os::SkipCounts skipped;
  uint64_t errors = 0;

  void fail(contract::Error e) {
    ++errors;
    ctx.error(std::move(e));
  }

  template <class F>
  void run(uint64_t depth, bool stat_all, F&& each) {
    std::vector<std::string> dirs = a.dirs;
    if (dirs.empty()) dirs.push_back(".");
    for (const std::string& dir : dirs) {
      if (ctx.output_failed()) return;
      auto opened = os::open_read(ctx.root_fd(), dir, os::Want::Directory, dir);
      if (auto* e = std::get_if<contract::Error>(&opened)) {
        fail(std::move(*e));
        continue;
      }
      os::WalkOptions opts;
      opts.hidden = a.hidden;
      opts.no_ignore = a.no_ignore;
      opts.max_depth = depth;
      opts.depth_is_a_limit = depth == kMaxDepth;
      opts.stat_all = stat_all;
      // With a root, ignore rules start at the root, so `list --root R src` honours R's
      // .gitignore; without one, at the directory named.
      int ignore_root = ctx.root_fd();
      std::string rel = ignore_root >= 0 && dir != "." ? dir : "";
      os::Walker w(opts, std::move(std::get<os::Opened>(opened).fd), dir, ignore_root, rel);
      os::WalkItem item;
      bool stopped = false;
      while (!stopped && w.next(item)) {
        if (ctx.output_failed()) return;
        if (item.type == os::WalkItem::Type::Error)
          fail(std::move(item.error));
        else
          stopped = !each(item.entry);
      }
      skipped += w.counts();
      if (stopped) return;
    }
  }
};

void write_entry(contract::Context& ctx, const os::Entry& e, const std::string* target,
                 bool long_form, std::optional<int> score) {
  if (ctx.format() == contract::Format::Json) {
    // The hot path: serialized straight into the output buffer, no Json tree per entry.
    contract::JsonWriter w(ctx.raw());
    w.begin_object();
    w.key("type");
    w.string("entry");
    w.key("path");
    w.bytes(e.path);
    w.key("kind");
    w.string(os::kind_name(e.kind));
    w.key("depth");
    w.unsigned_integer(e.depth);
    if (target) {
      w.key("target");
      w.bytes(*target);
    }
    if (long_form) {
      w.key("size");
      w.unsigned_integer(static_cast<uint64_t>(e.st.st_size));
      w.key("mtime");
      w.integer(static_cast<int64_t>(e.st.st_mtim.tv_sec));
    }
    if (score) {
      w.key("score");
      w.integer(*score);
    }
    w.end_object();
    ctx.commit();
    return;
  }
  Json rec = Json::object({{"type", "entry"},
                           {"path", Json::bytes(e.path)},
                           {"kind", os::kind_name(e.kind)},
                           {"depth", e.depth}});
  if (target) rec.set("target", Json::bytes(*target));
  if (long_form) {
    rec.set("size", static_cast<uint64_t>(e.st.st_size));
    rec.set("mtime", static_cast<int64_t>(e.st.st_mtim.tv_sec));
  }
  if (score) rec.set("score", *score);
  ctx.record(rec);
}

// What cut a page short: "max-entries", "max-bytes", or nothing.
Json end_fields(Walks& w, uint64_t entries, std::string_view cut, uint64_t next_skip) {
  const bool truncated = !cut.empty();
  Json end = Json::object({{"entries", entries}, {"errors", w.errors},
                           {"skipped", w.skipped.to_json()}});
  if (truncated) {
    end.set("complete", false);
    end.set("truncated", true);
    end.set("next", Json::object({{"skip", next_skip}}));
    end.set("cut", cut);
  }
  return end;
}

Json list_entries(const Args& a, contract::Context& ctx) {
  Walks walks{a, ctx, {}, 0};
  uint64_t seen = 0, entries = 0;
  std::string_view cut;
  std::string target;
  const uint64_t start = ctx.produced();
  walks.run(a.depth, a.long_form, [&](os::Entry& e) {
    if (!a.kind.empty() && os::kind_name(e.kind) != a.kind) return true;
    if (seen++ < a.skip) return true;
    // One past the page proves that more exists: only then is the answer truncated.
    if (entries == a.max_entries) {
      cut = "max-entries";
      return false;
    }
    if (entries > 0 && ctx.produced() - start >= a.max_bytes) {
      cut = "max-bytes";
      return false;
    }
    const std::string* t = nullptr;
    if (e.kind == os::EntryKind::Link) {
      if (int rc = read_target(e, target); rc < 0) {
        if (rc == -ENOENT) return true;  // gone since it was listed
        walks.fail(os::errno_error(-rc, e.path, "read link"));
        return true;
      }
      t = &target;
    }
    write_entry(ctx, e, t, a.long_form, std::nullopt);
    ++entries;
    return true;
  });
  return end_fields(walks, entries, cut, a.skip + entries);
}

struct Ranked {
  int score;
  os::Entry entry;
};
// Heap order: the worst candidate on top (lowest score, then the bytewise greatest path), so
// it is the one a better candidate replaces.
struct Better {
  bool operator()(const Ranked& x, const Ranked& y) const {
    if (x.score != y.score) return x.score > y.score;
    return x.entry.path < y.entry.path;
  }
};

Json find_entries(const Args& a, contract::Context& ctx) {
  Walks walks{a, ctx, {}, 0};
  const uint64_t depth = ctx.given("depth") ? a.depth : kMaxDepth;
  const size_t keep = static_cast<size_t>(a.skip + a.max_entries);  // ≤ ceiling (check)
  std::priority_queue<Ranked, std::vector<Ranked>, Better> heap;
  uint64_t matched = 0;
  walks.run(depth, a.long_form, [&](os::Entry& e) {
    if (e.kind != os::EntryKind::File) return true;
    auto score = text::fuzzy_score(*a.find, e.path);
    if (!score) return true;
    ++matched;
    Ranked r{*score, std::move(e)};
    r.entry.parent.reset();  // the heap must not hold directory descriptors open
    if (heap.size() < keep) {
      heap.push(std::move(r));
    } else if (Better()(r, heap.top())) {
      heap.pop();
      heap.push(std::move(r));
    }
    return true;
  });
  std::vector<Ranked> best;
  best.reserve(heap.size());
  while (!heap.empty()) {
    best.push_back(std::move(const_cast<Ranked&>(heap.top())));
    heap.pop();
  }
  std::reverse(best.begin(), best.end());
  uint64_t entries = 0;
  std::string_view cut = matched > keep ? "max-entries" : "";
  const uint64_t start = ctx.produced();
  for (size_t i = static_cast<size_t>(std::min<uint64_t>(a.skip, best.size())); i < best.size();
       ++i) {
    if (ctx.output_failed()) break;
    if (entries > 0 && ctx.produced() - start >= a.max_bytes) {
      cut = "max-bytes";
      break;
    }
    write_entry(ctx, best[i].entry, nullptr, a.long_form, best[i].score);
    ++entries;
  }
  Json end = end_fields(walks, entries, cut, a.skip + entries);
  end.set("matched", matched);
  return end;
}

Json run(const Args& a, contract::Context& ctx) {
  return a.find ? find_entries(a, ctx) : list_entries(a, ctx);
}

// One path a line: "/" after a directory, " -> TARGET" after a link (as ls -F and ls -l do).

}  // namespace

int main(int argc, char** argv) {
  return contract::main(contract::Spec<Args>{kTool, kFlags, kOperands, check, run}, argc, argv);
}
