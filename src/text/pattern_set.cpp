// pattern_set.cpp — the pattern set on Hyperscan (Debian's libhyperscan-dev, linked statically;
// its fat runtime picks the SSSE3, AVX2 or AVX-512 kernel when it runs). Where Hyperscan is
// not there (not x86-64, or built without it) every set is null and seek searches pattern by
// pattern.
#include "text/pattern_set.h"

#ifdef TACK_HYPERSCAN
#include <hs/hs.h>
#endif

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <new>

namespace text {

// RE2 and Hyperscan (PCRE syntax) agree on ASCII literals, escaped punctuation, classes of
// ASCII members, \d \s \w \b, groups, alternation, repetition and ^ $ (multi-line: a line is
// searched as it is shown). Where they differ the spelling is widened, never narrowed: RE2
// reads UTF-8, so `.`, a negated class, \D \S \W take a whole character of one to four bytes
// where Hyperscan's byte mode takes one byte. Anything else (non-ASCII bytes, flags, \p, \C,
// \A, \z, \Q, \x{...}; under case folding, which in RE2 is Unicode's and adds the Kelvin sign
// to k and the long s to s, any letter k or s, any class and \w) is refused: that pattern set
// is not built.
std::string hyperscan_spelling(std::string_view p, bool icase) {
  std::string out;
  constexpr std::string_view kWide = "[\\x80-\\xff]{2,4}";  // one non-ASCII character
  auto letter_ks = [](char c) { return c == 'k' || c == 's' || c == 'K' || c == 'S'; };
  auto punct = [](unsigned char c) { return c > 0x20 && c < 0x7f && !std::isalnum(c); };
  for (size_t i = 0; i < p.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (c >= 0x80 || c == 0 || c == '\n') return {};
    if (icase && letter_ks(static_cast<char>(c))) return {};
    if (c == '.') {
      out += "(?:[^\\n]{1,4})";  // a group, so that a repetition after it applies to it
    } else if (c == '(') {
      if (i + 1 < p.size() && p[i + 1] == '?') {
        if (i + 2 < p.size() && p[i + 2] == ':') {
          out += "(?:";
          i += 2;
        } else if (p.substr(i, 4) == "(?P<") {
          const size_t close = p.find('>', i);
          if (close == std::string_view::npos) return {};
          out += '(';
          i = close;
        } else {
          return {};  // a flag group
        }
      } else {
        out += '(';
      }
    } else if (c == '\\') {
      if (++i >= p.size()) return {};
      const char e = p[i];
      if (e == 'd' || e == 's' || e == 'b' || e == 't' || e == 'n' || e == 'r' || e == 'f' ||
          (e == 'w' && !icase)) {
        out += '\\', out += e;
      } else if (e == 'D' || e == 'S' || (e == 'W' && !icase)) {
        out += "(?:\\", out += e, out += '|', out += kWide, out += ')';
      } else if (e == 'x' && i + 2 < p.size() && std::isxdigit(static_cast<unsigned char>(p[i + 1])) &&
                 std::isxdigit(static_cast<unsigned char>(p[i + 2])) && p[i + 1] <= '7') {
        out += p.substr(i - 1, 4);
        i += 2;
      } else if (punct(static_cast<unsigned char>(e))) {
        out += '\\', out += e;
      } else {
        return {};
      }
    } else if (c == '[') {
      if (icase) return {};
      // A class up to its closing ']' (a ']' first in it is a member, as in both syntaxes).
      size_t j = i + 1;
      const bool negated = j < p.size() && p[j] == '^';
      if (negated) ++j;
      std::string body = "[";
      if (negated) body += '^';
      if (j < p.size() && p[j] == ']') body += "\\]", ++j;
      bool closed = false;
      for (; j < p.size(); ++j) {
        const unsigned char m = static_cast<unsigned char>(p[j]);
        if (m >= 0x80 || m == 0 || m == '\n') return {};
        if (m == ']') {
          closed = true;
          break;
        }
        if (m == '[') {
          // Only a POSIX class [:name:] (not negated) is taken.
          if (j + 1 >= p.size() || p[j + 1] != ':' || (j + 2 < p.size() && p[j + 2] == '^'))
            return {};
          const size_t end = p.find(":]", j + 2);
          if (end == std::string_view::npos) return {};
          for (size_t k = j + 2; k < end; ++k)
            if (!std::isalpha(static_cast<unsigned char>(p[k]))) return {};
          body += p.substr(j, end + 2 - j);
          j = end + 1;
        } else if (m == '\\') {
          if (++j >= p.size()) return {};
          const char e = p[j];
          if (e == 'd' || e == 's' || e == 'w' || e == 't' || e == 'n' || e == 'r' || e == 'f' ||
              punct(static_cast<unsigned char>(e)))
            body += '\\', body += e;
          else
            return {};
        } else {
          body += static_cast<char>(m);
        }
      }
      if (!closed) return {};
      body += ']';
      if (negated)
        out += "(?:" + body + "|" + std::string(kWide) + ")";
      else
        out += body;
      i = j;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

#ifdef TACK_HYPERSCAN
namespace {

constexpr size_t npos = std::string_view::npos;
// Hyperscan takes a length of 32 bits; a longer slice is not scanned (its line is a candidate).
constexpr size_t kMaxScan = size_t{1} << 30;
// A buffer is scanned a slice at a time, each ending at a line's end: the first of 64 KiB, so
// that a search that stops at its first match (-l, -m 1) scans little past it, then twice as
// long each time, so that dense matches cost few scans. Each slice's findings are held until
// used, which bounds them too. (A first slice of 4 KiB cost a source tree of small files two
// or three scans a file: Hyperscan's setup per scan is what a small file costs.)
constexpr size_t kFirstSlice = 64 << 10, kLastSlice = 256 << 10;

struct Freer {
  void operator()(hs_database_t* d) const { hs_free_database(d); }
  void operator()(hs_scratch_t* s) const { hs_free_scratch(s); }
};

class HsScanner final : public SetScanner {
 public:
  HsScanner(std::shared_ptr<const PatternSet> set, const hs_database_t* db, hs_scratch_t* scratch,
            uint32_t count)
      : set_(std::move(set)), db_(db), scratch_(scratch), count_(count), stamp_(count, 0) {}

  size_t first(std::string_view buf, size_t from) override {
    if (buf.data() != base_ || buf.size() != size_ || from < lo_) {
      forget();
      base_ = buf.data();
      size_ = buf.size();
      lo_ = hi_ = from;
    }
    answered_ = npos;
    while (from < size_) {
      if (from < hi_) {
        while (next_ < hits_.size() && hits_[next_].start < from) ++next_;
        if (next_ < hits_.size()) return answered_ = hits_[next_].start;
        from = hi_;  // nothing more in this slice
        continue;
      }
      if (!scan_slice(from)) {  // never skip what could not be scanned: its line may match
        lo_ = hi_ = from;
        return from;
      }
    }
    return npos;
  }

  void which(std::string_view line, std::vector<uint32_t>& out) override {
    out.clear();
    if (answered_ != npos && line.data() == base_ + answered_) {
      // The line first() named: its patterns are the slice's, from `next_` on. (A match
      // that ends in the line's '\r', or that began on the line before, names a pattern
      // that may not match the line as shown: the set is a superset.)
      for (size_t k = next_; k < hits_.size() && hits_[k].start == answered_; ++k)
        out.push_back(hits_[k].id);
      std::sort(out.begin(), out.end());  // named in the order their matches ended
      answered_ = npos;
      return;
    }
    if (line.size() > kMaxScan) {  // a line this long is not held; searched by each pattern
      all(out);
      return;
    }
    // Any other line is scanned on its own.
    ++serial_;
    Collect c{this, line.data(), line.size()};
    const hs_error_t r = hs_scan(db_, line.data(), static_cast<unsigned>(line.size()), 0,
                                 scratch_.get(), &HsScanner::on_line, &c);
    if (r != HS_SUCCESS) {
      all(out);
      return;
    }
    std::sort(out_.begin(), out_.end());
    out.swap(out_);
    out_.clear();
  }

  void forget() override {
    base_ = nullptr;
    size_ = lo_ = hi_ = next_ = 0;
    hits_.clear();
    answered_ = npos;
    slice_ = kFirstSlice;
  }

 private:
  struct Hit {
    size_t start;  // of the line, in the buffer
    uint32_t id;
    bool operator<(const Hit& o) const { return start != o.start ? start < o.start : id < o.id; }
    bool operator==(const Hit&) const = default;
  };
  struct Collect {
    HsScanner* self;
    const char* at;  // the bytes scanned
    size_t size;
  };

  // Scans base_[from, end of the slice) and holds the lines where some pattern may match.
  bool scan_slice(size_t from) {
    size_t end = std::min(size_, from + slice_);
    if (end < size_) {  // the slice ends at a line's end, so no match is cut
      const void* nl = std::memchr(base_ + end - 1, '\n', size_ - (end - 1));
      end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - base_) + 1 : size_;
    }
    slice_ = std::min(slice_ * 2, kLastSlice);
    hits_.clear();
    next_ = 0;
    lo_ = from;
    hi_ = end;
    if (end - from > kMaxScan) return false;
    cur_start_ = cur_end_ = from;
    sorted_ = true;
    Collect c{this, base_ + from, end - from};
    const hs_error_t r = hs_scan(db_, base_ + from, static_cast<unsigned>(end - from), 0,
                                 scratch_.get(), &HsScanner::on_slice, &c);
    if (r != HS_SUCCESS) return false;
    // Hyperscan reports in the order of end offsets as a rule; where it did not, the lines
    // are put in order here (and a pattern named twice in a line once).
    if (!sorted_) {
      std::sort(hits_.begin(), hits_.end());
      hits_.erase(std::unique(hits_.begin(), hits_.end()), hits_.end());
    }
    return true;
  }

  // A match whose last byte is at `to - 1`: its line is named, with its pattern, once. The
  // line being filled is [cur_start_, cur_end_) ('\n' included); one further on starts after
  // the last '\n' before the match and ends after the first '\n' from its last byte.
  static int on_slice(unsigned id, unsigned long long, unsigned long long to, unsigned,
                      void* ctx) {
    Collect& c = *static_cast<Collect*>(ctx);
    HsScanner& s = *c.self;
    const char* b = s.base_;
    const size_t last = static_cast<size_t>(c.at - b) + static_cast<size_t>(to > 0 ? to - 1 : 0);
    if (last >= s.cur_end_) {
      const void* nl = last > s.cur_end_ ? memrchr(b + s.cur_end_, '\n', last - s.cur_end_) : nullptr;
      s.cur_start_ = nl ? static_cast<size_t>(static_cast<const char*>(nl) - b) + 1 : s.cur_end_;
      const void* e = std::memchr(b + last, '\n', s.hi_ - last);
      s.cur_end_ = e ? static_cast<size_t>(static_cast<const char*>(e) - b) + 1 : s.hi_;
      ++s.serial_;
    } else if (last < s.cur_start_) {  // out of order: its line is found on its own
      const void* nl = last > s.lo_ ? memrchr(b + s.lo_, '\n', last - s.lo_) : nullptr;
      const size_t start = nl ? static_cast<size_t>(static_cast<const char*>(nl) - b) + 1 : s.lo_;
      s.hits_.push_back({start, id});
      s.sorted_ = false;
      return 0;
    }
    if (id < s.count_ && s.stamp_[id] != s.serial_) {
      s.stamp_[id] = s.serial_;
      s.hits_.push_back({s.cur_start_, id});
    }
    return 0;
  }

  // A match in a line scanned on its own: its pattern, once.
  static int on_line(unsigned id, unsigned long long, unsigned long long, unsigned, void* ctx) {
    HsScanner& s = *static_cast<Collect*>(ctx)->self;
    if (id < s.count_ && s.stamp_[id] != s.serial_) {
      s.stamp_[id] = s.serial_;
      s.out_.push_back(id);
    }
    return 0;
  }

  void all(std::vector<uint32_t>& out) const {
    for (uint32_t i = 0; i < count_; ++i) out.push_back(i);
  }

  std::shared_ptr<const PatternSet> set_;  // keeps the database alive as long as its scanners
  const hs_database_t* db_;
  std::unique_ptr<hs_scratch_t, Freer> scratch_;
  uint32_t count_;
  // The buffer and its slice base_[lo_, hi_) last scanned, the lines in it where a pattern
  // may match (hits_, by line), the first not yet passed (next_), and the line first() named.
  const char* base_ = nullptr;
  size_t size_ = 0, lo_ = 0, hi_ = 0, next_ = 0, answered_ = npos, slice_ = kFirstSlice;
  std::vector<Hit> hits_;
  size_t cur_start_ = 0, cur_end_ = 0;
  bool sorted_ = true;
  // The serial number of the line last named for each pattern: a pattern is named once a line.
  std::vector<uint64_t> stamp_;
  uint64_t serial_ = 1;
  std::vector<uint32_t> out_;
};

class HsSet final : public PatternSet, public std::enable_shared_from_this<HsSet> {
 public:
  HsSet(hs_database_t* db, hs_scratch_t* prototype, uint32_t count)
      : db_(db), prototype_(prototype), count_(count) {}

  std::unique_ptr<SetScanner> scanner() const override {
    hs_scratch_t* s = nullptr;
    if (hs_clone_scratch(prototype_.get(), &s) != HS_SUCCESS) return nullptr;
    return std::make_unique<HsScanner>(shared_from_this(), db_.get(), s, count_);
  }

 private:
  std::unique_ptr<hs_database_t, Freer> db_;
  std::unique_ptr<hs_scratch_t, Freer> prototype_;
  uint32_t count_;
};

}  // namespace

std::shared_ptr<const PatternSet> pattern_set(const std::vector<std::string>& patterns,
                                              SetSyntax syntax, bool icase) {
  if (patterns.empty() || patterns.size() > UINT32_MAX) return nullptr;
  if (hs_valid_platform() != HS_SUCCESS) return nullptr;
  std::vector<std::string> spelled;
  std::vector<const char*> exprs;
  std::vector<size_t> lens;
  std::vector<unsigned> flags, ids;
  // Every match is reported (a slice's scan names every line a pattern may match in).
  // Prefilter mode lets Hyperscan widen what it cannot match exactly (a long bounded repeat)
  // instead of refusing it.
  unsigned common = icase ? HS_FLAG_CASELESS : 0;
  if (syntax == SetSyntax::Regex) common |= HS_FLAG_MULTILINE | HS_FLAG_PREFILTER;
  spelled.reserve(patterns.size());
  for (size_t i = 0; i < patterns.size(); ++i) {
    const std::string& p = patterns[i];
    if (p.empty() || p.find('\n') != std::string::npos) return nullptr;
    spelled.push_back(syntax == SetSyntax::Regex ? hyperscan_spelling(p, icase) : p);
    if (spelled.back().empty()) return nullptr;
    flags.push_back(common);
    ids.push_back(static_cast<unsigned>(i));
  }
  for (const std::string& s : spelled) exprs.push_back(s.c_str()), lens.push_back(s.size());
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  const hs_error_t r =
      syntax == SetSyntax::Literal
          ? hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
                                 static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db,
                                 &err)
          : hs_compile_multi(exprs.data(), flags.data(), ids.data(),
                             static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db, &err);
  if (r != HS_SUCCESS) {  // e.g. a pattern that can match the empty string: searched one by one
    hs_free_compile_error(err);
    return nullptr;
  }
  hs_scratch_t* scratch = nullptr;
  if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) {
    hs_free_database(db);
    return nullptr;
  }
  return std::make_shared<HsSet>(db, scratch, static_cast<uint32_t>(patterns.size()));
}

#else

std::shared_ptr<const PatternSet> pattern_set(const std::vector<std::string>&, SetSyntax, bool) {
  return nullptr;
}

#endif

namespace {

class LazySet final : public PatternSet {
 public:
  LazySet(std::vector<std::string> patterns, SetSyntax syntax, bool icase)
      : patterns_(std::move(patterns)), syntax_(syntax), icase_(icase) {}
  std::unique_ptr<SetScanner> scanner() const override {
    if (!make()) made_.wait(false);  // another thread compiles it
    return set_ ? set_->scanner() : nullptr;
  }
  // A worker that does not wait while another compiles the set (several milliseconds for a
  // regex) searches on pattern by pattern meanwhile, instead of leaving its core idle.
  bool try_scanner(std::unique_ptr<SetScanner>& out) const override {
    if (!make()) return false;
    out = set_ ? set_->scanner() : nullptr;
    return true;
  }

 private:
  // true once the set is made (by this thread now, if nobody had started); false while
  // another thread makes it.
  bool make() const {
    if (made_.load(std::memory_order_acquire)) return true;
    if (making_.load(std::memory_order_relaxed) || making_.exchange(true))
      return made_.load(std::memory_order_acquire);
    try {
      set_ = pattern_set(patterns_, syntax_, icase_);
    } catch (const std::bad_alloc&) {  // no set: pattern by pattern, and nobody left waiting
    }
    made_.store(true, std::memory_order_release);
    made_.notify_all();
    return true;
  }

  std::vector<std::string> patterns_;
  SetSyntax syntax_;
  bool icase_;
  mutable std::atomic<bool> making_{false}, made_{false};
  mutable std::shared_ptr<const PatternSet> set_;  // written once, before made_
};

}  // namespace

std::shared_ptr<const PatternSet> lazy_pattern_set(std::vector<std::string> patterns,
                                                   SetSyntax syntax, bool icase) {
  return std::make_shared<LazySet>(std::move(patterns), syntax, icase);
}

}  // namespace text
