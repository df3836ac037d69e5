// pattern_set.cpp — the pattern set on Hyperscan (Debian's libhyperscan-dev, linked statically;
// its fat runtime picks the SSSE3, AVX2 or AVX-512 kernel when it runs). Where Hyperscan is
// not there (not x86-64, or built without it) every set is null and seek searches pattern by
// pattern.
#include "text/pattern_set.h"

#ifdef TACK_HYPERSCAN
#include <hs/hs.h>
#endif

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>

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
// Hyperscan takes a length of 32 bits; a longer buffer is scanned a piece at a time.
constexpr size_t kMaxScan = size_t{1} << 30;

struct Freer {
  void operator()(hs_database_t* d) const { hs_free_database(d); }
  void operator()(hs_scratch_t* s) const { hs_free_scratch(s); }
};

class HsScanner final : public SetScanner {
 public:
  HsScanner(const hs_database_t* db, hs_scratch_t* scratch) : db_(db), scratch_(scratch) {}

  // Hyperscan reports a scan's matches in the order of their end offsets, so the first one
  // reported ends first, and its line is the first line any pattern matches in (a match
  // never crosses a line the line-by-line search would see; one that crosses a '\n' here, as
  // a class holding '\n' can, only makes an earlier candidate, which the exact search then
  // turns down). Its end byte is the position returned.
  size_t first(std::string_view buf, size_t from) override {
    while (from < buf.size()) {
      size_t len = buf.size() - from;
      if (len > kMaxScan) {  // a piece that ends at a line's end, so no match is cut
        const void* nl = memrchr(buf.data() + from, '\n', kMaxScan);
        len = nl ? static_cast<size_t>(static_cast<const char*>(nl) - buf.data()) - from : kMaxScan;
      }
      unsigned long long end = 0;
      const hs_error_t r = hs_scan(db_, buf.data() + from, static_cast<unsigned>(len), 0,
                                   scratch_.get(), &HsScanner::on_first, &end);
      if (r == HS_SCAN_TERMINATED) return from + (end > 0 ? end - 1 : 0);
      if (r != HS_SUCCESS) return from;  // never skip what could not be scanned
      if (len == buf.size() - from) return npos;
      from += len;
    }
    return npos;
  }

  void which(std::string_view line, std::vector<uint32_t>& out) override {
    out.clear();
    if (line.size() > kMaxScan) {  // a line this long is not held; searched by each pattern
      all(out);
      return;
    }
    const hs_error_t r = hs_scan(db_, line.data(), static_cast<unsigned>(line.size()), 0,
                                 scratch_.get(), &HsScanner::on_which, &out);
    if (r != HS_SUCCESS && r != HS_SCAN_TERMINATED) {
      all(out);
      return;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }

  void set_count(uint32_t n) { count_ = n; }

 private:
  static int on_first(unsigned, unsigned long long, unsigned long long to, unsigned, void* ctx) {
    *static_cast<unsigned long long*>(ctx) = to;
    return 1;
  }
  static int on_which(unsigned id, unsigned long long, unsigned long long, unsigned, void* ctx) {
    static_cast<std::vector<uint32_t>*>(ctx)->push_back(id);
    return 0;
  }
  void all(std::vector<uint32_t>& out) const {
    for (uint32_t i = 0; i < count_; ++i) out.push_back(i);
  }

  const hs_database_t* db_;
  std::unique_ptr<hs_scratch_t, Freer> scratch_;
  uint32_t count_ = 0;
};

class HsSet final : public PatternSet {
 public:
  HsSet(hs_database_t* db, hs_scratch_t* prototype, uint32_t count)
      : db_(db), prototype_(prototype), count_(count) {}

  std::unique_ptr<SetScanner> scanner() const override {
    hs_scratch_t* s = nullptr;
    if (hs_clone_scratch(prototype_.get(), &s) != HS_SUCCESS) return nullptr;
    auto sc = std::make_unique<HsScanner>(db_.get(), s);
    sc->set_count(count_);
    return sc;
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
  // One report per pattern and scan is all a line's "which" needs, and the first report all
  // "first" needs. Prefilter mode lets Hyperscan widen what it cannot match exactly (a long
  // bounded repeat) instead of refusing it.
  unsigned common = HS_FLAG_SINGLEMATCH | (icase ? HS_FLAG_CASELESS : 0);
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
    std::call_once(once_, [&] { set_ = pattern_set(patterns_, syntax_, icase_); });
    return set_ ? set_->scanner() : nullptr;
  }

 private:
  std::vector<std::string> patterns_;
  SetSyntax syntax_;
  bool icase_;
  mutable std::once_flag once_;
  mutable std::shared_ptr<const PatternSet> set_;
};

}  // namespace

std::shared_ptr<const PatternSet> lazy_pattern_set(std::vector<std::string> patterns,
                                                   SetSyntax syntax, bool icase) {
  return std::make_shared<LazySet>(std::move(patterns), syntax, icase);
}

}  // namespace text
