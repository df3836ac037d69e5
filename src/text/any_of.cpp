// any_of.cpp — several matchers as one, and one found through a pattern set. Candidates: the earliest of the parts' finds, each
// part after the first searching only up to the end of the line of the best hit so far, so a
// rare pattern beside a common one is not searched again from every common hit to its own.
#include "text/any_of.h"

#include <algorithm>
#include <cstring>

namespace text {
namespace {

constexpr size_t npos = std::string_view::npos;

class AnyOf final : public Matcher {
 public:
  AnyOf(std::vector<std::unique_ptr<Matcher>> parts, std::shared_ptr<const PatternSet> set,
        uint64_t set_after)
      : parts_(std::move(parts)), keep_(std::move(set)), set_after_(set_after) {
    if (keep_ && set_after_ == 0) take_set();
    for (const auto& p : parts_) need_ = std::max(need_, p->needle_size());
    for (const auto& p : parts_)
      if (p->needle_size() == 0) need_ = 0;
  }

  size_t find(std::string_view buf, size_t from) const override {
    if (set_) return set_->first(buf, from);
    const size_t h = find_each(buf, from);
    // Once enough has been searched pattern by pattern to repay compiling the set, the rest
    // is searched with it.
    if (keep_) {
      seen_ += ((h == npos ? buf.size() : h) - from) * parts_.size();
      if (seen_ >= set_after_) take_set();
    }
    return h;
  }

  void forget() const override {
    if (set_) set_->forget();
  }

  void take_set() const {
    // null where the set cannot be built: pattern by pattern still; not yet made by another
    // thread: pattern by pattern until it is
    if (keep_->try_scanner(set_)) keep_.reset();
  }

  size_t find_each(std::string_view buf, size_t from) const {
    // The part that found the last candidate goes first: it scans on to its own next hit,
    // which the other parts then need search only up to. Each part's scans stay disjoint, so
    // a region costs each part about one pass. The order changes cost, never the answer.
    size_t best = npos, winner = lead_;
    const size_t n = parts_.size();
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (lead_ + k) % n;
      size_t lim = buf.size();
      if (best != npos && best < buf.size()) {
        const void* nl = std::memchr(buf.data() + best, '\n', buf.size() - best);
        if (nl) lim = static_cast<size_t>(static_cast<const char*>(nl) - buf.data());
      }
      if (from > lim) continue;
      const size_t h = parts_[i]->find(buf.substr(0, lim), from);
      if (h != npos && h < best) best = h, winner = i;
    }
    if (best != npos) lead_ = winner;
    return best;
  }

  void spans(std::string_view line, std::vector<Span>& out) const override {
    hit_.clear();
    all_.clear();
    auto part = [&](size_t i) {
      const size_t before = all_.size();
      parts_[i]->spans(line, all_);
      if (all_.size() > before) hit_.push_back(static_cast<uint32_t>(i));
    };
    if (set_) {  // the parts the set names are the only ones that can match here
      set_->which(line, maybe_);
      for (uint32_t i : maybe_) part(i);
    } else {
      for (size_t i = 0; i < parts_.size(); ++i) part(i);
    }
    if (all_.empty()) return;
    const bool solid =
        std::any_of(all_.begin(), all_.end(), [](const Span& s) { return s.end > s.start; });
    if (!solid) {  // only empty matches: the first of them is the line's one span
      out.push_back(*std::min_element(all_.begin(), all_.end(), [](const Span& a, const Span& b) {
        return a.start < b.start;
      }));
      return;
    }
    std::erase_if(all_, [](const Span& s) { return s.end == s.start; });
    std::sort(all_.begin(), all_.end(), [](const Span& a, const Span& b) {
      return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    const size_t first = out.size();
    for (const Span& s : all_) {
      if (out.size() > first && s.start < out.back().end)
        out.back().end = std::max(out.back().end, s.end);
      else
        out.push_back(s);
    }
  }

  bool line_by_line(bool crlf) const override {
    return std::any_of(parts_.begin(), parts_.end(),
                       [&](const auto& p) { return p->line_by_line(crlf); });
  }
  bool wants_eol_first() const override {
    return std::any_of(parts_.begin(), parts_.end(),
                       [](const auto& p) { return p->wants_eol_first(); });
  }
  // A long line can be searched in pieces only when every part can (then with the largest
  // window any of them needs).
  size_t needle_size() const override { return need_; }
  bool probe(std::string_view window, size_t begin, size_t end, bool at_start,
             bool at_end) const override {
    return std::any_of(parts_.begin(), parts_.end(), [&](const auto& p) {
      return p->probe(window, begin, end, at_start, at_end);
    });
  }
  const std::vector<uint32_t>* patterns() const override { return &hit_; }
  size_t parts() const override { return keep_ || set_ ? 0 : parts_.size(); }
  const Matcher& part(size_t i) const override { return *parts_[i]; }
  // Where in a piece of a long line a match starts: the earliest of every part's, when every
  // part can say where (else only whether, as probe() does).
  bool positions() const override {
    return need_ > 0 && std::all_of(parts_.begin(), parts_.end(), [](const auto& p) { return p->positions(); });
  }
  std::optional<Span> first_in(std::string_view window, size_t begin, size_t end, bool at_start,
                               bool at_end) const override {
    std::optional<Span> best;
    for (const auto& p : parts_) {
      auto s = p->first_in(window, begin, end, at_start, at_end);
      if (s && (!best || s->start < best->start || (s->start == best->start && s->end > best->end)))
        best = s;
    }
    return best;
  }

 private:
  std::vector<std::unique_ptr<Matcher>> parts_;
  mutable std::shared_ptr<const PatternSet> keep_;  // the set, until this thread scans with it
  mutable std::unique_ptr<SetScanner> set_;         // this thread's scratch over the shared set
  uint64_t set_after_;
  mutable uint64_t seen_ = 0;  // bytes times patterns searched pattern by pattern
  mutable std::vector<uint32_t> maybe_;
  size_t need_ = 0;
  mutable size_t lead_ = 0;
  mutable std::vector<uint32_t> hit_;
  mutable std::vector<Span> all_;
};

// One pattern whose lines a set of it alone finds: Hyperscan scans a buffer for a class or an
// alternation faster than RE2's DFA, and names the lines; RE2 gives their spans.
class SetFiltered final : public Matcher {
 public:
  SetFiltered(std::unique_ptr<Matcher> part, std::shared_ptr<const PatternSet> set,
              uint64_t set_after)
      : part_(std::move(part)), keep_(std::move(set)), set_after_(set_after) {
    if (keep_ && set_after_ == 0) take_set();
  }

  size_t find(std::string_view buf, size_t from) const override {
    if (set_) return set_->first(buf, from);
    const size_t h = part_->find(buf, from);
    if (keep_) {  // as any_of does: the set once the pattern's own search has repaid it
      seen_ += (h == npos ? buf.size() : h) - from;
      if (seen_ >= set_after_) take_set();
    }
    return h;
  }
  void forget() const override {
    if (set_) set_->forget();
  }
  void spans(std::string_view line, std::vector<Span>& out) const override {
    part_->spans(line, out);
  }
  bool matches(std::string_view line) const override { return part_->matches(line); }
  bool line_by_line(bool crlf) const override { return part_->line_by_line(crlf); }
  bool wants_eol_first() const override { return part_->wants_eol_first(); }
  size_t needle_size() const override { return part_->needle_size(); }
  bool probe(std::string_view window, size_t begin, size_t end, bool at_start,
             bool at_end) const override {
    return part_->probe(window, begin, end, at_start, at_end);
  }
  bool positions() const override { return part_->positions(); }
  std::optional<Span> first_in(std::string_view window, size_t begin, size_t end, bool at_start,
                               bool at_end) const override {
    return part_->first_in(window, begin, end, at_start, at_end);
  }
  const Matcher* long_filter() const override { return part_->long_filter(); }

 private:
  void take_set() const {
    if (keep_->try_scanner(set_)) keep_.reset();  // as AnyOf's
  }

  std::unique_ptr<Matcher> part_;
  mutable std::shared_ptr<const PatternSet> keep_;
  mutable std::unique_ptr<SetScanner> set_;
  uint64_t set_after_;
  mutable uint64_t seen_ = 0;
};

}  // namespace

std::unique_ptr<Matcher> set_filtered(std::unique_ptr<Matcher> part,
                                      std::shared_ptr<const PatternSet> set, uint64_t set_after) {
  return std::make_unique<SetFiltered>(std::move(part), std::move(set), set_after);
}

std::unique_ptr<Matcher> any_of(std::vector<std::unique_ptr<Matcher>> parts,
                                std::shared_ptr<const PatternSet> set, uint64_t set_after) {
  return std::make_unique<AnyOf>(std::move(parts), std::move(set), set_after);
}

}  // namespace text
