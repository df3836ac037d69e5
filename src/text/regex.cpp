// regex.cpp — the RE2 matcher: one RE2 form for a line, one multi-line form for a buffer of
// whole lines, and a literal every match must contain, searched first at SIMD speed.
#include "text/regex.h"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <cctype>

namespace text {
namespace {

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

class RegexMatcher final : public Matcher {
 public:
  RegexMatcher(const std::string& pattern, bool icase, bool word) : word_(word), shape_(pattern) {
    const std::string body =
        word ? "(?:^|[^0-9A-Za-z_])(" + pattern + ")(?:[^0-9A-Za-z_]|$)" : pattern;
    line_ = std::make_unique<RE2>(body, re2_options(icase, false));
    buffer_ = std::make_unique<RE2>("(?m)" + body, re2_options(icase, true));
    if (failed()) return;  // never used: regex_matcher refuses it
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
      plain = word_byte(static_cast<unsigned char>(pattern[at + i]));
    prefilter_ = plain ? literal_matcher(pattern.substr(at, atom.size()), false, false)
                       : literal_matcher(atom, true, false);
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

  void spans(std::string_view line, std::vector<Span>& out) const override {
    const re2::StringPiece text(line.data(), line.size());
    re2::StringPiece g[2];
    const int groups = word_ ? 2 : 1;
    bool empty_seen = false;
    Span first_empty{0, 0};
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

  bool matches(std::string_view line) const override {
    return line_->Match(re2::StringPiece(line.data(), line.size()), 0, line.size(), RE2::UNANCHORED,
                        nullptr, 0);
  }

  bool line_by_line(bool crlf) const override { return shape_.unsafe || (crlf && shape_.dollar); }
  const Matcher* long_filter() const override { return prefilter_.get(); }
  bool wants_eol_first() const override { return shape_.dollar; }

 private:
  bool word_;
  PatternShape shape_;
  std::unique_ptr<RE2> line_, buffer_;
  std::unique_ptr<Matcher> prefilter_;
};

}  // namespace

std::unique_ptr<Matcher> regex_matcher(const std::string& pattern, bool icase, bool word,
                                       RegexError& error) {
  auto refused = [&](const RE2& re) {
    error = {re.error(), re.error_arg()};
    return std::unique_ptr<Matcher>();
  };
  // The pattern as given first, so that the message names the user's own text. Without
  // `word` the line form is that very pattern; with it, the wrapped form can compile where
  // the pattern alone does not ("a)(b").
  if (word) {
    const RE2 bare(pattern, re2_options(icase, false));
    if (!bare.ok()) return refused(bare);
  }
  // Then the forms the search runs, which can still exceed RE2's memory limit where the bare
  // pattern did not.
  auto m = std::make_unique<RegexMatcher>(pattern, icase, word);
  if (const RE2* f = m->failed()) return refused(*f);
  return m;
}

}  // namespace text
