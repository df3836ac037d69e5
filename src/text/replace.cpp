// replace.cpp — see replace.h.
#include "text/replace.h"

#include <algorithm>

#include "text/near_miss.h"
#include "text/newlines.h"

namespace text {

using contract::Json;

void Finder::scan(std::string_view w, uint64_t base, uint64_t lines_at_base, bool eof) {
  if (counted_ < base) {
    counted_ = base;
    lines_ = lines_at_base;
  }
  const bool lookahead = crlf_ && needle_.back() == '\r';
  size_t from = static_cast<size_t>(next_ - base);
  while (true) {
    const size_t k = w.find(needle_, from);
    if (k == std::string_view::npos) {
      // A match may still start in the last size-1 bytes, once more arrive.
      size_t next = eof ? w.size()
                        : std::max(from, w.size() >= needle_.size() ? w.size() - needle_.size() + 1
                                                                    : size_t{0});
      next_ = base + next;
      return;
    }
    const size_t end = k + needle_.size();
    if (lookahead) {
      if (end == w.size() && !eof) {  // whether a '\n' follows is not known yet
        next_ = base + k;
        return;
      }
      if (end < w.size() && w[end] == '\n') {
        from = k + 1;
        continue;
      }
    }
    if (base + k >= skip_) {
      count_to(w, base, base + k);
      found.push_back({base + k, lines_});
    }
    from = k + 1;
  }
}

void Finder::count_to(std::string_view w, uint64_t base, uint64_t pos) {
  if (pos <= counted_) return;
  lines_ += count_newlines(w.data() + (counted_ - base), static_cast<size_t>(pos - counted_));
  counted_ = pos;
}

EditFinders::EditFinders(const ReplaceEdit& e) {
  old_lf_ = finder_of(raw_form(e.old_text, false), false);
  old_crlf_ = finder_of(raw_form(e.old_text, true), true);
  new_lf_ = finder_of(raw_form(e.new_text, false), false);
  new_crlf_ = finder_of(raw_form(e.new_text, true), true);
}

int EditFinders::finder_of(std::string needle, bool crlf) {
  if (needle.empty()) return -1;
  // The CRLF filter matters only for a needle ending in '\r': otherwise the two forms of a
  // text without '\n' find the same places, and one finder serves both.
  crlf = crlf && needle.back() == '\r';
  for (size_t i = 0; i < finders_.size(); ++i)
    if (finders_[i].needle() == needle && finders_[i].crlf() == crlf) return static_cast<int>(i);
  finders_.emplace_back(std::move(needle), crlf);
  return static_cast<int>(finders_.size() - 1);
}

const std::vector<Found>& EditFinders::of(int i) const {
  static const std::vector<Found> kNone;
  return i >= 0 ? finders_[static_cast<size_t>(i)].found : kNone;
}

std::variant<Applied, contract::Error> decide(const ReplaceEdit& e, size_t old_len, size_t new_len,
                                              const std::vector<Found>& at,
                                              const std::vector<Found>& fresh, int64_t index,
                                              const std::function<Json()>& near) {
  // All occurrences of new have one length, so the last one starting at or before p is the
  // one reaching furthest.
  size_t live = 0;
  for (size_t i = 0, q = 0; i < at.size(); ++i) {
    while (q < fresh.size() && fresh[q].pos <= at[i].pos) ++q;
    const bool inside = q > 0 && at[i].pos + old_len <= fresh[q - 1].pos + new_len;
    if (!inside) ++live;
  }
  auto count_ok = [&](size_t n) { return e.all ? n >= 1 : n == e.expect; };
  if (live == 0 && !fresh.empty() && count_ok(fresh.size())) return Applied{0, true};

  bool overlapping = false;
  for (size_t i = 1; i < at.size(); ++i)
    if (at[i].pos < at[i - 1].pos + old_len) overlapping = true;
  if (count_ok(at.size()) && !overlapping) return Applied{at.size(), false};

  Json lines = Json::array();
  for (const Found& f : at) lines.push(f.line + 1);
  Json detail = Json::object({{"expected", e.all ? Json(nullptr) : Json(e.expect)},
                              {"all", e.all},
                              {"found", at.size()},
                              {"lines", std::move(lines)},
                              {"overlapping", overlapping}});
  if (index >= 0) detail.set("index", index);
  std::string what = e.all ? "at least 1" : std::to_string(e.expect);
  std::string message =
      overlapping && count_ok(at.size())
          ? "the text occurs " + std::to_string(at.size()) +
                " times but the occurrences overlap, so which to replace is ambiguous; nothing "
                "was written."
          : "the text occurs " + std::to_string(at.size()) + " times, not " + what +
                "; nothing was written.";
  if (at.empty()) detail.set("near", near());
  contract::Error err =
      contract::make_error("precondition.count-mismatch", message, std::move(detail));
  err.repair = contract::Repair::none(
      at.empty() ? "the text is not there: quote it exactly (detail.near lists close matches)"
                 : "choose a longer --old that names only the intended places, or the count "
                   "the caller really means");
  return err;
}

void splice(std::string_view text, uint64_t offset, const Found* at, size_t n, size_t old_len,
            std::string_view repl, std::string& out) {
  size_t pos = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t p = static_cast<size_t>(at[k].pos - offset);
    out.append(text.substr(pos, p - pos));
    out += repl;
    pos = p + old_len;
  }
  out.append(text.substr(pos));
}

void Splicer::feed(std::string_view chunk, uint64_t pos,
                   const std::function<void(std::string_view)>& emit) {
  const uint64_t chunk_end = pos + chunk.size();
  uint64_t cur = std::max(pos, resume_);
  while (next_ < at_.size() && at_[next_].pos < chunk_end) {
    const uint64_t q = at_[next_++].pos;
    if (q > cur) emit(chunk.substr(static_cast<size_t>(cur - pos), static_cast<size_t>(q - cur)));
    emit(repl_);
    resume_ = q + old_len_;
    cur = std::min(resume_, chunk_end);
  }
  if (cur < chunk_end) emit(chunk.substr(static_cast<size_t>(cur - pos)));
}

std::optional<std::vector<Region>> regions(const std::vector<Found>& at, size_t old_len,
                                           size_t context, const BackFn& back,
                                           const ForwardFn& forward) {
  std::vector<Region> out;
  for (size_t k = 0; k < at.size(); ++k) {
    const uint64_t q = at[k].pos;
    const std::optional<uint64_t> end = forward(q + old_len, context + 1);
    if (!end) return std::nullopt;
    if (!out.empty() && q < out.back().end) {  // inside the last region: it grows
      out.back().end = std::max(out.back().end, *end);
      out.back().last = k + 1;
      continue;
    }
    const auto bk = back(q, context + 1);
    if (!bk) return std::nullopt;
    const auto [start, between] = *bk;
    if (!out.empty() && start <= out.back().end) {  // touching: one region
      out.back().end = std::max(out.back().end, *end);
      out.back().last = k + 1;
    } else {
      out.push_back({start, *end, at[k].line - between, k, k + 1});
    }
  }
  return out;
}

std::variant<EditsApplied, contract::Error> apply_edits(std::string_view text, bool bom, Eol eol,
                                                        const std::vector<ReplaceEdit>& edits) {
  const bool crlf = eol == Eol::Crlf;
  EditsApplied out;
  for (size_t i = 0; i < edits.size(); ++i) {
    const ReplaceEdit& e = edits[i];
    Finder fo(raw_form(e.old_text, crlf), crlf);
    std::optional<Finder> fn;
    if (!e.new_text.empty()) fn.emplace(raw_form(e.new_text, crlf), crlf);
    for (Finder* f : {&fo, fn ? &*fn : nullptr}) {
      if (!f) continue;
      f->skip_below(bom ? 3 : 0);
      f->scan(text, 0, 0, true);
    }
    static const std::vector<Found> kNone;
    auto decided = decide(e, fo.needle().size(), fn ? fn->needle().size() : 0, fo.found,
                          fn ? fn->found : kNone, static_cast<int64_t>(i),
                          [&] { return near_of(text, bom, eol, e.old_text); });
    if (auto* err = std::get_if<contract::Error>(&decided)) return std::move(*err);
    const Applied& ap = std::get<Applied>(decided);
    out.replacements += ap.replacements;
    out.already = out.already && ap.already;
    if (ap.replacements == 0) continue;
    std::string next;
    next.reserve(text.size());
    splice(text, 0, fo.found.data(), fo.found.size(), fo.needle().size(),
           fn ? std::string_view(fn->needle()) : std::string_view(), next);
    out.text = std::move(next);
    text = *out.text;
  }
  return out;
}

uint64_t newlines(std::string_view s) {
  return count_newlines(s.data(), s.size());
}

}  // namespace text
