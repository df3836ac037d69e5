// scan_long.cpp — a line past the cap, read in pieces and never held (Scanner::long_line),
// and what the parts of a file searched in parts say joined (join_part, window_around).
#include <algorithm>
#include <cstring>
#include <optional>

#include "text/scanner.h"

namespace text {
namespace scan_detail {

// The line at base_ is longer than the cap: it is read in pieces and never held. A literal
// is still looked for in it (each start probed once, with the bytes a --word check needs);
// a matcher that can say where a match is has every occurrence found and counted (their
// offsets kept up to a cap); a matcher that cannot search a piece leaves it unsearched, and
// the result says so.
void Scanner::long_line() {
  const uint64_t ls = base_;
  const uint64_t line = line_of(ls);
  const Matcher* filter = m_.needle_size() ? nullptr : m_.long_filter();
  const Matcher& m = filter ? *filter : m_;  // what is looked for in the line
  const size_t need = m.needle_size();
  const bool where = need && m.positions();
  if (filter) r_.long_candidates = true;
  const uint64_t shown_start = (ls == 0 && bom_) ? 3 : ls;
  const bool first_here = r_.long_occurrences == 0;
  if (where) r_.long_located = true;
  uint64_t next = shown_start;  // the next start to probe
  uint64_t nl_from = ls;
  uint64_t le = 0;
  bool matched = false, done = need == 0;
  // Matches starting in [next, lim) (and at lim itself at the line's end), in the bytes up to
  // wend and the one before next; next moves past what was seen.
  auto look = [&](uint64_t wend, uint64_t lim, bool at_end) {
    const uint64_t ws = next > shown_start ? next - 1 : next;
    const std::string_view w(at(ws), static_cast<size_t>(wend - ws));
    const bool at_start = ws == shown_start;
    if (!where) {
      matched = done = m.probe(w, next - ws, lim - ws, at_start, at_end);
    } else {
      while (!done) {
        const std::optional<Span> h = m.first_in(w, next - ws, lim - ws, at_start, at_end);
        if (!h) break;
        matched = true;
        if (r_.long_offsets.size() < o_.max_long_offsets) r_.long_offsets.push_back(ws + h->start);
        ++r_.long_occurrences;
        if (h->end == h->start)
          done = true;  // an empty match is the line's one span
        else
          next = ws + h->end;  // non-overlapping, as spans are
      }
    }
    next = std::max(next, lim);
  };
  for (;;) {
    const void* nl = std::memchr(at(nl_from), '\n', static_cast<size_t>(end() - nl_from));
    if (nl || eof_) {
      le = nl ? off_of(nl) : end();
      if (!done) {
        uint64_t se = le;
        if (nl && se > next && crlf() && *at(se - 1) == '\r')
          --se;                              // the '\r' of a line ending only
        if (se >= next) look(se, se, true);  // (an empty needle can match at the very end)
      }
      break;
    }
    if (!done && end() > next + need) look(end(), end() - need, false);
    uint64_t keep = end();
    if (!done) keep = next > shown_start ? next - 1 : next;
    nl_from = end();
    drop(std::min(keep, end()));
    if (!fill() || stop_) return;
  }
  if (where && first_here && r_.long_occurrences > 0) {
    uint64_t off, len;
    shown({line, ls, le - ls, true}, off, len);
    r_.first_long_start = off;
    r_.first_long_end = off + len;
  }
  const uint64_t length = le - ls;
  if (matched || need == 0) {
    ++r_.long_count;
    r_.longest = std::max(r_.longest, length);
    if (r_.long_lines.size() < o_.max_long_lines) r_.long_lines.push_back(line);
    if (need == 0 || filter) r_.long_unsearched = true;
  }
  const LineRef ref{line, ls, length, true};
  if (n_ > 0) {
    if (after_want_ > 0) {
      pend_.push_back(ref);
      ++pend_last_line_;
      --after_want_;
    }
    std::deque<LineRef>& h = hist();
    h.push_back(ref);
    while (h.size() > n_) h.pop_front();
  }
  after_next_ = le + 1;
  drop(std::min(le + 1, end()));
  count_off_ = base_;
  count_line_ = line + 1;
  pos_ = base_;
}

}  // namespace scan_detail

void join_part(ScanResult& into, const ScanResult& part, uint64_t lines_before,
               const ScanOptions& o) {
  into.binary = into.binary || part.binary;
  into.skipped = into.skipped || part.skipped;
  into.crlf = into.crlf || part.crlf;
  into.found += part.found;
  into.stopped = into.stopped || part.stopped;
  for (uint64_t n : part.long_lines)
    if (into.long_lines.size() < o.max_long_lines) into.long_lines.push_back(lines_before + n);
  into.long_count += part.long_count;
  into.longest = std::max(into.longest, part.longest);
  into.long_unsearched = into.long_unsearched || part.long_unsearched;
  into.long_located = into.long_located || part.long_located;
  into.long_candidates = into.long_candidates || part.long_candidates;
  for (uint64_t off : part.long_offsets)
    if (into.long_offsets.size() < o.max_long_offsets) into.long_offsets.push_back(off);
  if (into.long_occurrences == 0 && part.long_occurrences > 0) {
    into.first_long_start = part.first_long_start;
    into.first_long_end = part.first_long_end;
  }
  into.long_occurrences += part.long_occurrences;
  if (!into.error) into.error = part.error;
  into.newlines += part.newlines;
  into.part_done = part.part_done;
  into.more = part.more;
}

std::pair<uint64_t, uint64_t> window_around(const ScanResult& r, uint64_t needle, uint64_t side,
                                            const ReadAt& read) {
  const uint64_t first = r.long_offsets.front();
  uint64_t from = std::max(r.first_long_start, first > side ? first - side : 0);
  uint64_t to = std::min(r.first_long_end, first + needle + side);
  auto continuation = [&](uint64_t off) {
    char c = 0;
    return read(&c, 1, off) == 1 && (static_cast<unsigned char>(c) & 0xC0) == 0x80;
  };
  for (int i = 0; i < 3 && from < first && continuation(from); ++i) ++from;
  for (int i = 0; i < 3 && to > first + needle && to < r.first_long_end && continuation(to); ++i)
    --to;
  return {from, to};
}

}  // namespace text
