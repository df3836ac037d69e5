// edit_file.cpp — see edit_file.h.
#include "writer/edit_file.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "os/hash.h"
#include "os/temp_file.h"
#include "text/diff.h"
#include "text/eol.h"
#include "text/line_edits.h"
#include "text/witness.h"
#include "text/witness_search.h"
#include "writer/edit_stream.h"
#include "writer/writer.h"

namespace writer {

namespace {

using contract::Json;
using Errors = std::vector<contract::Error>;
using Outcome = std::variant<Edited, Errors>;

constexpr uint64_t kAround = 5;   // fresh witnesses: lines either side of a failure
constexpr uint64_t kContext = 3;  // the diff's context lines (text::DiffOptions)
static_assert(kAround >= kContext, "the diff's regions lie within the lines kept");
static_assert(text::DiffOptions{}.context == kContext);

Outcome one(contract::Error e) {
  return Errors{std::move(e)};
}

// The bytes [from, to) of the file, read back: a changed region, a line.
os::Result<std::string> read_back(int fd, const std::string& path, uint64_t from, uint64_t to) {
  std::string out(static_cast<size_t>(to - from), '\0');
  const long long got = os::pread_full(fd, out.data(), out.size(), from);
  if (got < 0) return os::errno_error(static_cast<int>(-got), path, "read");
  if (static_cast<size_t>(got) != out.size()) return changed_meanwhile(path);
  return out;
}

// A line without its '\n'.
std::string_view raw_of(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  return line;
}

// The lines around `center` with their fresh witnesses and text, as the refusal shows them.
os::Result<Json> around(int fd, const std::string& path, const text::WitnessSearch& s,
                        int64_t center, text::Eol eol) {
  Json out = Json::array();
  const uint64_t n = s.lines();
  if (n == 0) return out;
  const uint64_t c =
      static_cast<uint64_t>(std::clamp<int64_t>(center, 0, static_cast<int64_t>(n - 1)));
  for (uint64_t i = c > kAround ? c - kAround : 0; i <= std::min(n - 1, c + kAround); ++i) {
    const auto [from, to] = s.extent(i);
    auto line = read_back(fd, path, from, to);
    if (auto* e = std::get_if<contract::Error>(&line)) return std::move(*e);
    out.push(Json::object(
        {{"n", i + 1},
         {"witness", text::witness_text(s.witness(i))},
         {"text", Json::bytes(text::shown_line(raw_of(std::get<std::string>(line)), eol))}}));
  }
  return out;
}

// An edit whose witness does not name exactly one line of its own.
struct Refusal {
  size_t index;
  std::string reason;          // no-match, several, named-twice
  std::vector<uint64_t> hits;  // the lines the witness names
  int64_t guess;               // where it most likely pointed, or -1
};

// The line each edit names (after pass 2), and the edits refused.
std::pair<std::vector<uint64_t>, std::vector<Refusal>> resolve(
    const text::WitnessSearch& s, const std::vector<text::LineEdit>& edits) {
  std::vector<uint64_t> target(edits.size());
  std::map<uint64_t, size_t> named;  // line -> the first edit that named it
  std::vector<Refusal> refused;
  for (size_t k = 0; k < edits.size(); ++k) {
    std::vector<uint64_t> hits = s.hits(edits[k].value);
    if (hits.size() == 1) {
      target[k] = hits[0];
      if (named.emplace(hits[0], k).second) continue;
      const auto line = static_cast<int64_t>(hits[0]);
      refused.push_back({k, "named-twice", std::move(hits), line});
    } else if (hits.empty()) {
      refused.push_back({k, "no-match", {}, s.nearest(edits[k].value)});
    } else {
      const auto first = static_cast<int64_t>(hits[0]);
      refused.push_back({k, "several", std::move(hits), first});
    }
  }
  return {std::move(target), std::move(refused)};
}

// The precondition.stale-witness of a refused edit, with the fresh witnesses around where it
// pointed (found by the pass after WitnessSearch::around), added to `out`; or the error
// reading those lines back.
std::optional<contract::Error> stale(int fd, const EditJob& a, const text::WitnessSearch& s,
                                     const text::LineEdit& e, const Refusal& r, text::Eol eol,
                                     const std::string& before, Errors& out) {
  Json matches = Json::array();
  for (uint64_t i : r.hits) matches.push(i + 1);
  auto near = around(fd, a.path, s, std::max<int64_t>(r.guess, 0), eol);
  if (auto* err = std::get_if<contract::Error>(&near)) return std::move(*err);
  Json detail = Json::object({{"path", Json::bytes(a.path)},
                              {"index", r.index},
                              {"witness", e.witness},
                              {"reason", r.reason},
                              {"matches", std::move(matches)},
                              {"guess", r.guess >= 0 ? Json(r.guess + 1) : Json(nullptr)},
                              {"around", std::move(std::get<Json>(near))},
                              {"actual_sha256", before}});
  const std::string which = "witness " + e.witness + " (edit " + std::to_string(r.index) + ")";
  const std::string message =
      r.reason == "no-match"
          ? which + " names no line: the lines near it changed since it was read."
      : r.reason == "several"
          ? which + " names several lines."
          : "edit " + std::to_string(r.index) + " names line " + std::to_string(r.hits[0] + 1) +
                ", which an earlier edit names.";
  contract::Error err = contract::make_error("precondition.stale-witness",
                                             message + " Nothing was written.", std::move(detail));
  err.repair = contract::Repair::none(
      "the lines changed since they were read: detail.around has fresh witnesses of the lines "
      "there; check them and decide");
  out.push_back(std::move(err));
  return std::nullopt;
}

// The cut of each edit: the line it names, its '\n' included, and the lines put in its place
// (text::apply_line_edits on that one line). `changes`: some cut's bytes differ from the line's.
os::Result<std::vector<text::Cut>> cuts_of(int fd, const std::string& path,
                                           const text::WitnessSearch& s,
                                           const std::vector<text::LineEdit>& edits,
                                           const std::vector<uint64_t>& target, text::Eol eol,
                                           bool& changes) {
  std::vector<text::Cut> cuts;
  changes = false;
  for (size_t k = 0; k < edits.size(); ++k) {
    const auto [from, to] = s.extent(target[k]);
    auto line = read_back(fd, path, from, to);
    if (auto* e = std::get_if<contract::Error>(&line)) return std::move(*e);
    const std::string& old = std::get<std::string>(line);
    const text::Line l{raw_of(old), !old.empty() && old.back() == '\n'};
    std::string repl = text::apply_line_edits({l}, {&edits[k]}, eol, false);
    changes = changes || repl != old;
    cuts.push_back({from, to, std::move(repl)});
  }
  std::sort(cuts.begin(), cuts.end(),
            [](const text::Cut& x, const text::Cut& y) { return x.start < y.start; });
  return cuts;
}

// The diff of the changed regions: `kContext` lines either side of each edited line, regions
// that touch taken as one, each read back from the file and edited as the whole file is.
std::optional<contract::Error> diff_regions(int fd, const std::string& path,
                                            const text::WitnessSearch& s,
                                            const std::vector<text::LineEdit>& edits,
                                            const std::vector<uint64_t>& target, text::Eol eol,
                                            bool bom, text::DiffBuilder& diff) {
  std::vector<std::pair<uint64_t, size_t>> order;  // (line, edit), by line
  for (size_t k = 0; k < edits.size(); ++k) order.emplace_back(target[k], k);
  std::sort(order.begin(), order.end());
  const uint64_t last = s.lines() - 1;
  int64_t delta = 0;  // lines the new file has more than the old before the region
  for (size_t i = 0; i < order.size();) {
    const uint64_t first = order[i].first > kContext ? order[i].first - kContext : 0;
    uint64_t end = std::min(last, order[i].first + kContext);
    size_t j = i + 1;
    while (j < order.size() && order[j].first <= end + 1 + kContext) {
      end = std::min(last, order[j].first + kContext);
      ++j;
    }
    // From byte 0 when it holds line 1: the BOM belongs to the region as to diff_lines' text.
    const uint64_t from = first == 0 ? 0 : s.extent(first).first;
    auto read = read_back(fd, path, from, s.extent(end).second);
    if (auto* e = std::get_if<contract::Error>(&read)) return std::move(*e);
    const std::string& old_region = std::get<std::string>(read);
    const bool with_bom = first == 0 && bom;
    const std::vector<text::Line> lines =
        text::split_lines(std::string_view(old_region).substr(with_bom ? 3 : 0));
    if (lines.size() != end - first + 1) return changed_meanwhile(path);
    std::vector<const text::LineEdit*> edit_of(lines.size(), nullptr);
    int64_t shift = 0;
    for (size_t m = i; m < j; ++m) {
      const text::LineEdit& e = edits[order[m].second];
      edit_of[order[m].first - first] = &e;
      shift += static_cast<int64_t>(e.lines.size()) - 1;
    }
    const std::string new_region = text::apply_line_edits(lines, edit_of, eol, with_bom);
    diff.add(old_region, new_region, first,
             static_cast<uint64_t>(static_cast<int64_t>(first) + delta));
    delta += shift;
    i = j;
  }
  return std::nullopt;
}

Edited unchanged(const std::string& before, uint64_t size, text::Eol eol, bool bom,
                 const text::DiffOptions& opt) {
  const text::Diff d = text::DiffBuilder(opt).finish(eol, eol, bom, bom);
  return {.changed = false,
          .before = before,
          .after = before,
          .bytes = size,
          .diff = text::diff_json(d),
          .diff_truncated = d.truncated};
}

}  // namespace

Outcome edit_file(const EditJob& a, const os::Place& place, const os::Opened& file,
                  const std::vector<text::LineEdit>& edits,
                  const std::function<contract::Error(uint64_t size)>& too_large) {
  const int fd = file.fd.get();
  std::vector<uint32_t> values;
  for (const text::LineEdit& e : edits) values.push_back(e.value);
  text::WitnessSearch search(values, kAround);

  // Pass 1: the file's hash and the lines each witness may name.
  auto scanned = scan_lines(fd, a.path, search, a.max_bytes);
  if (auto* e = std::get_if<contract::Error>(&scanned)) return one(std::move(*e));
  const EditScan& first = std::get<EditScan>(scanned);
  if (first.over) return one(too_large(first.total));
  const std::string& before = first.sha256;
  if (a.if_sha256 && os::lower_hex(*a.if_sha256) != before)
    return one(os::hash_mismatch(a.path, os::lower_hex(*a.if_sha256), before));
  const text::Eol eol = first.eol;
  text::DiffOptions opt;
  opt.max_lines = a.max_diff_lines;
  opt.max_bytes = a.max_diff_bytes;

  // Writes the file with `cuts` (a temporary file unless a dry run), counting the witnesses
  // too when `count`.
  std::optional<os::TempFile> tmp;
  auto rewrite = [&](const std::vector<text::Cut>* cuts, bool count) -> os::Result<Rewritten> {
    tmp.reset();
    if (cuts && !a.dry_run) {
      auto made = os::TempFile::create(place, replacing(file.st));
      if (auto* e = std::get_if<contract::Error>(&made)) return std::move(*e);
      tmp.emplace(std::move(std::get<os::TempFile>(made)));
    }
    return rewrite_lines(fd, a.path, first, count ? &search : nullptr, cuts, tmp ? &*tmp : nullptr);
  };

  std::vector<uint64_t> target;
  std::vector<Refusal> refused;
  std::vector<text::Cut> cuts;
  bool changes = false;
  std::optional<Rewritten> next;  // the new file, once written (or hashed, in a dry run)
  if (std::all_of(edits.begin(), edits.end(),
                  [&](const text::LineEdit& e) { return search.known(e.value).has_value(); })) {
    // The usual case: pass 1 knows which lines the witnesses name; pass 2 only writes.
    std::tie(target, refused) = resolve(search, edits);
  } else {
    // The lines the witnesses most likely name, if each names one of its own: pass 2 writes
    // the new file while it settles whether they do.
    std::vector<uint64_t> likely;
    for (const text::LineEdit& e : edits)
      if (auto l = search.likely(e.value)) likely.push_back(*l);
    std::vector<uint64_t> sorted = likely;
    std::sort(sorted.begin(), sorted.end());
    const bool guessed = likely.size() == edits.size() &&
                         std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    if (guessed) {
      auto made = cuts_of(fd, a.path, search, edits, likely, eol, changes);
      if (auto* e = std::get_if<contract::Error>(&made)) return one(std::move(*e));
      cuts = std::move(std::get<std::vector<text::Cut>>(made));
    }
    // Pass 2: the witnesses settled, and (when the guess changes anything) the file written.
    auto second = rewrite(changes ? &cuts : nullptr, true);
    if (auto* e = std::get_if<contract::Error>(&second)) return one(std::move(*e));
    while (!search.settle()) {  // rare: some candidate needs its larger radii counted
      auto more = rewrite_lines(fd, a.path, first, &search, nullptr, nullptr);
      if (auto* e = std::get_if<contract::Error>(&more)) return one(std::move(*e));
    }
    std::tie(target, refused) = resolve(search, edits);
    if (guessed && target == likely && refused.empty())
      next = std::get<Rewritten>(second);
    else
      tmp.reset();  // a wrong guess: written again below, as the witnesses say
  }
  if (!refused.empty()) {
    // Nothing is written; the fresh witnesses around each failure take one more pass.
    tmp.reset();
    std::vector<uint64_t> centers;
    for (const Refusal& r : refused)
      centers.push_back(static_cast<uint64_t>(std::max<int64_t>(r.guess, 0)));
    search.around(centers);
    auto counted = rewrite_lines(fd, a.path, first, &search, nullptr, nullptr);
    if (auto* e = std::get_if<contract::Error>(&counted)) return one(std::move(*e));
    Errors errs;
    for (const Refusal& r : refused)
      if (auto e = stale(fd, a, search, edits[r.index], r, eol, before, errs))
        return one(std::move(*e));
    return errs;
  }
  if (!next) {
    auto made = cuts_of(fd, a.path, search, edits, target, eol, changes);
    if (auto* e = std::get_if<contract::Error>(&made)) return one(std::move(*e));
    cuts = std::move(std::get<std::vector<text::Cut>>(made));
    if (changes) {
      auto written = rewrite(&cuts, false);
      if (auto* e = std::get_if<contract::Error>(&written)) return one(std::move(*e));
      next = std::get<Rewritten>(written);
    }
  }
  // Every edit gives back the bytes it replaces, or the edits together give back the file.
  if (!changes || next->sha256 == before)
    return unchanged(before, first.total, eol, first.bom, opt);

  text::DiffBuilder diff(opt);
  if (auto e = diff_regions(fd, a.path, search, edits, target, eol, first.bom, diff))
    return one(std::move(*e));
  const text::Diff d = std::move(diff).finish(eol, next->eol, first.bom, next->bom);
  Edited out{.changed = true,
             .before = before,
             .after = next->sha256,
             .bytes = next->size,
             .diff = text::diff_json(d),
             .diff_truncated = d.truncated};
  if (tmp && a.journal) {
    // Large: only the lines the edits took out.
    auto c = rewritten_file(a.path, file.st, before, out.after, out.diff, first.total, fd,
                            [&] { return patches_of_cuts(fd, a.path, cuts); });
    if (auto* e = std::get_if<contract::Error>(&c)) return one(std::move(*e));
    std::get<Change>(c).new_file = &*tmp;
    if (auto e = a.journal->stage(std::move(std::get<Change>(c)))) return one(std::move(*e));
  }
  if (tmp)
    if (auto e = tmp->commit()) return one(std::move(*e));
  return out;
}

}  // namespace writer
