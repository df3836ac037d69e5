// page.cpp — seek's paging (main thread).
#include "tools/seek/page.h"

#include <charconv>

#include "os/inputs.h"
#include "tools/render/render.h"
#include "tools/seek/long_line.h"

namespace seek {

using contract::Json;

// A slot's part: a named file's parts, and the parts after a walked file's first, carry it
// from the start; a walked file's first part gets it from its worker at the end of its search
// (search_file), so it is read only once the slot is done. Before that the slot is taken as
// a file's first part or a whole file, which are taken alike.
namespace {
const Part* part_of(const Slot& s) {
  return s.named || s.done.load(std::memory_order_acquire) ? s.part.get() : nullptr;
}
}  // namespace

void Page::enter(const Slot& s) {
  if (current == &s) return;
  current = &s;
  shift = 0;
  const Part* part = part_of(s);
  if (part && part->from > 0) {  // the same file goes on: its lines after the parts before
    shift = parts.scan.newlines;
    return;
  }
  if (joined) {
    parts = Parts{};
    joined = false;
  }
  file_seq = s.seq;
  last_line = 0;
  file_emitted = 0;
  skips += s.walk_skips;
  held.clear();
}

void Page::put(std::string& out, const Piece& p, const Rec& r, const Slot& s) const {
  if (shift == 0 || r.kind == RecKind::Error) {
    out.append(p.bytes, r.begin, r.end - r.begin - 1);
    return;
  }
  const size_t at =
      r.begin + (r.kind == RecKind::Match ? s.part->match_line_at : s.part->context_line_at);
  char digits[24];
  const size_t was = static_cast<size_t>(std::to_chars(digits, digits + 24, r.line).ptr - digits);
  out.append(p.bytes, r.begin, at - r.begin);
  out.append(digits,
             static_cast<size_t>(std::to_chars(digits, digits + 24, r.line + shift).ptr - digits));
  out.append(p.bytes, at + was, r.end - 1 - (at + was));
}

void Page::write(const Piece& p, const Rec& r, const Slot& s) {
  put(ctx.raw(), p, r, s);
  ctx.commit();
}

void Page::error(contract::Error e) {
  // `seek -e P Q PATH`: Q is a PATH now, but may have been meant as a pattern.
  if (e.rule == "io.not-found" && !a.patterns.empty() && !a.paths.empty() && !e.hint &&
      e.detail.get("path") && e.detail.get("path")->str() == a.paths.front())
    e.hint = "with -e every operand is a PATH; a pattern goes after another -e.";
  if (e.rule == "limit.line-too-long")
    repair_long_line(e, a,
                     {ctx.argv().front(), ctx.root(), ctx.format() == contract::Format::Text,
                      ctx.given("max-count")});
  if (tail)
    tail->error(file_seq, std::move(e));  // written in walk order with the ring's records
  else
    ctx.error(std::move(e));
}

void Page::file_record(const Slot& s) {
  if (file_emitted == 0) return;
  ctx.record(Json::object({{"type", "file"},
                           {"path", Json::bytes(s.path)},
                           {"matches", file_emitted},
                           {"bytes", s.bytes()},
                           {"binary", s.binary}}));
  file_emitted = 0;
}

// -c, -l: the one record of a file with a match. --format text: `path:count` (-c), `path`.
void Page::count_record(const Slot& s) {
  const bool exact = cfg.mode == Mode::Count;
  if (ctx.format() == contract::Format::Text) {
    render::seek_file(s.path, exact ? Json(s.found) : Json(), ctx.raw());
    ctx.commit();
    return;
  }
  Json rec = Json::object({{"type", "file"},
                           {"path", Json::bytes(s.path)},
                           {"matches", exact ? Json(s.found) : Json()}});
  if (!s.pattern_counts.empty()) {
    Json counts = Json::array();
    for (uint64_t n : s.pattern_counts) counts.push(n);
    rec.set("pattern_counts", std::move(counts));
  }
  rec.set("bytes", s.bytes());
  rec.set("binary", s.binary);
  ctx.record(rec);
}

void Page::add_totals(const Slot& s) {
  total += s.found;
  for (size_t i = 0; i < s.pattern_counts.size() && i < pattern_totals.size(); ++i)
    pattern_totals[i] += s.pattern_counts[i];
}

bool Page::take(Slot& s, Piece& p) {
  enter(s);
  if (ctx.output_failed()) return false;
  if (parts.broken && part_of(s)) return true;  // after a part that ended early: not shown
  if (!cfg.lines()) {  // no lines rendered: only errors to pass on
    for (const Rec& r : p.recs)
      if (r.kind == RecKind::Error) error(std::move(s.errors[r.lo]));
    return !ctx.output_failed();
  }
  const uint64_t lo = a.skip, hi = a.skip + a.max_count;  // the window of ordinals shown
  bool whole = !p.bytes.empty();
  uint64_t n = 0;
  for (const Rec& r : p.recs) {
    if (r.kind == RecKind::Error || base + r.lo < lo || base + r.lo >= hi) whole = false;
    n += r.kind == RecKind::Match;
  }
  if (cfg.last()) return take_tail(s, p);
  // the common case: all of it inside the window and the budget
  if (whole && ctx.produced() - start + p.bytes.size() <= a.max_bytes) {
    if (shift == 0) {  // a whole file, or a first part: never a line twice
      ctx.raw().append(p.bytes, 0, p.bytes.size() - 1);
      for (auto r = p.recs.rbegin(); r != p.recs.rend(); ++r)  // its last line, from the end
        if (r->kind != RecKind::Error) {
          last_line = r->line;
          break;
        }
      ctx.commit();
    } else {
      bool any = false;  // a piece may hold only lines already shown
      for (const Rec& r : p.recs) {
        if (again(r)) continue;
        if (any) ctx.raw() += '\n';
        any = true;
        put(ctx.raw(), p, r, s);
        last_line = r.line + shift;
      }
      if (any) ctx.commit();
    }
    emitted += n;
    file_emitted += n;
    return !ctx.output_failed();
  }
  for (const Rec& r : p.recs) {
    if (r.kind != RecKind::Error) {
      if (again(r)) continue;
      last_line = r.line + shift;
    }
    switch (r.kind) {
      case RecKind::Error:
        error(std::move(s.errors[r.lo]));
        break;
      case RecKind::Match:
        if (base + r.lo < lo) break;
        if (base + r.lo >= hi || (emitted > 0 && full())) {
          // one more exists: the answer is complete up to here
          stop(base + r.lo >= hi ? "max-count" : "max-bytes");
          ++files;  // this file was searched, up to the line that proved more exists
          file_record(s);
          return false;
        }
        for (auto& [line, bytes] : held) {
          if (line + a.context < r.line + shift) continue;
          ctx.raw() += bytes;
          ctx.commit();
        }
        held.clear();
        write(p, r, s);
        ++emitted;
        ++file_emitted;
        break;
      case RecKind::Context:
        // `lo` is exact: the nearest match before the line within --context. Before the
        // first match shown, whether a line is its before-context waits for that match.
        if (base + r.lo < lo) {
          std::string bytes;
          put(bytes, p, r, s);
          held.emplace_back(r.line + shift, std::move(bytes));
          if (held.size() > a.context) held.pop_front();
        } else if (base + r.lo < hi) {
          if (emitted > 0 && full()) {  // a next page starts at the next match, with its context
            stop("max-bytes");
            ++files;
            file_record(s);
            return false;
          }
          write(p, r, s);
        }
        break;
    }
  }
  return !ctx.output_failed();
}

// A part joins the parts of its file before it; false until the file's last, which then
// stands for the whole file: its counts the file's, its long lines reported as one scan of the
// file reports them.
bool Page::join(Slot& s) {
  const Part& part = *s.part;
  joined = true;
  if (parts.broken) {
    s.found = 0;
  } else {
    text::join_part(parts.scan, part.scan, parts.scan.newlines, text::ScanOptions{});
    parts.pattern_counts.resize(s.pattern_counts.size());
    for (size_t i = 0; i < s.pattern_counts.size(); ++i)
      parts.pattern_counts[i] += s.pattern_counts[i];
    if (!part.last && !part.scan.part_done) parts.broken = true;
  }
  if (!part.last) {
    if (cfg.lines()) base += s.found;  // the ordinals of the next part's matches follow
    return false;
  }
  if (!cfg.lines()) {
    s.found = parts.scan.found;
    s.pattern_counts = parts.pattern_counts;
  }
  if (parts.scan.long_count)
    error(long_line_error(a, s.path, parts.scan, os::input_reader(part.file->fd.get(), s.bytes())));
  return true;
}

bool Page::done(Slot& s) {
  enter(s);
  skips += s.own;
  if (s.part && !join(s)) return !ctx.output_failed();
  if (s.searched) ++files;
  base += s.found;
  if (!cfg.lines()) {
    current = nullptr;
    if (s.found == 0) return !ctx.output_failed();
    if (cfg.totals) {
      add_totals(s);
      return !ctx.output_failed();
    }
    // A page counts files with a match; the file past it proves that more exist.
    const uint64_t ordinal = matched_files++;
    if (ordinal < a.skip) return !ctx.output_failed();
    if (ordinal >= a.skip + a.max_count || (emitted > 0 && full())) {
      stop(ordinal >= a.skip + a.max_count ? "max-count" : "max-bytes");
      return false;
    }
    count_record(s);
    add_totals(s);
    ++emitted;
    return !ctx.output_failed();
  }
  if (tail)
    tail->file(file_seq, s.path, s.bytes(), s.binary);
  else
    file_record(s);
  current = nullptr;
  return !ctx.output_failed();
}

// --last: every match goes into the ring, to the end of the answer or to --before. The parts
// of a file go in as one file (its first part's place), their line numbers moved.
bool Page::take_tail(Slot& s, Piece& p) {
  for (const Rec& r : p.recs) {
    if (r.kind == RecKind::Error) {
      error(std::move(s.errors[r.lo]));
      continue;
    }
    if (r.kind == RecKind::Match && a.before && base + r.lo >= *a.before) {
      ++files;  // the rest is after the cursor
      tail->file(file_seq, s.path, s.bytes(), s.binary);
      return false;
    }
    if (again(r)) continue;
    last_line = r.line + shift;
    std::string bytes;
    put(bytes, p, r, s);
    if (r.kind == RecKind::Match)
      tail->match(file_seq, r.line + shift, base + r.lo, std::move(bytes));
    else
      tail->context(file_seq, r.line + shift, std::move(bytes));
  }
  return !ctx.output_failed();
}

void Page::write_tail() {
  shown = tail->write(
      [&](const std::string& bytes) {
        ctx.raw() += bytes;
        ctx.commit();
      },
      [&](const Tail::File& f, uint64_t n) {
        ctx.record(Json::object({{"type", "file"},
                                 {"path", Json::bytes(f.path)},
                                 {"matches", n},
                                 {"bytes", f.bytes},
                                 {"binary", f.binary}}));
      },
      [&](contract::Error e) { ctx.error(std::move(e)); });
  emitted = shown.matches;
  if (shown.matches > 0 && shown.first > 0) stop(shown.cut_by_bytes ? "max-bytes" : "last");
}

}  // namespace seek
